/**
 * Namespacing keeps test files (and, if wanted, environments) apart on one NATS server: every
 * subject and stream name gets the namespace as a prefix. Production runs with none.
 */
export class Namespace {
  constructor(readonly prefix: string) {}

  subject(subject: string): string {
    return this.prefix ? `${this.prefix}.${subject}` : subject;
  }

  /** The subject as the contracts name it, without the prefix. */
  strip(subject: string): string {
    return this.prefix && subject.startsWith(`${this.prefix}.`) ? subject.slice(this.prefix.length + 1) : subject;
  }

  stream(owner: string): string {
    const name = owner.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
    return this.prefix ? `${this.prefix.toUpperCase()}_${name}` : name;
  }

  durable(name: string): string {
    return name.replace(/[^A-Za-z0-9_-]/g, '_');
  }

  deadLetterSubject(consumer: string): string {
    return this.subject(`deadletter.${consumer}`);
  }
}
