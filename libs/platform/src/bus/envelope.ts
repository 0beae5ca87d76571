import { v7 as uuidv7 } from 'uuid';
import { AppError, EnvelopeSchema, type Envelope, type EventContract } from '@qw/contracts';
import type { Static, TSchema } from 'typebox';
import { describeProblems } from './validation.ts';

/** Builds the envelope for an event, refusing a payload that breaks its contract. */
export function createEnvelope<S extends TSchema>(
  contract: EventContract<S>,
  data: Static<S>,
  now = new Date(),
): Envelope<Static<S>> {
  const problems = describeProblems(contract.schema, data);
  if (problems.length > 0) {
    throw new AppError('validation_failed', `${contract.subject} payload refused: ${problems.join('; ')}`, {
      problems,
    });
  }
  return { id: uuidv7(), type: contract.subject, occurredAt: now.toISOString(), version: contract.version, data };
}

export type DecodeResult = { ok: true; envelope: Envelope } | { ok: false; problems: string[]; eventId?: string };

/** Parses bytes from the wire and checks both the envelope and the payload against the contract. */
export function decodeEnvelope(bytes: Uint8Array, contract: EventContract | undefined): DecodeResult {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return { ok: false, problems: ['body: not JSON'] };
  }
  const eventId = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : undefined;
  const envelopeProblems = describeProblems(EnvelopeSchema, value, 'envelope');
  if (envelopeProblems.length > 0) return { ok: false, problems: envelopeProblems, ...(eventId ? { eventId } : {}) };
  const envelope = value as Envelope;
  if (!contract) return { ok: false, problems: [`type: no contract for ${envelope.type}`], eventId: envelope.id };
  if (envelope.version !== contract.version) {
    return { ok: false, problems: [`version: ${envelope.version} is not ${contract.version}`], eventId: envelope.id };
  }
  const problems = describeProblems(contract.schema, envelope.data);
  if (problems.length > 0) return { ok: false, problems, eventId: envelope.id };
  return { ok: true, envelope };
}
