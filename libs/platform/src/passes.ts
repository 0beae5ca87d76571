/**
 * Work that drains a queue in passes (due mail, stored webhook events), woken by commits and by a
 * timer: one pass at a time per process. A wake during a pass shares that pass's answer and makes
 * one more pass run right after it, for what the running pass's select could not see yet.
 */
export class CoalescedPasses {
  private running: Promise<number> | undefined;
  private again = false;

  /** `pass` returns how much it did; `goOn` is asked before each extra pass (false once stopping). */
  constructor(
    private readonly pass: () => Promise<number>,
    private readonly goOn: () => boolean = () => true,
  ) {}

  /** The running pass (and the ones it owes), or a new one; the total of what they did. */
  run(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let done = 0;
      do {
        this.again = false;
        done += await this.pass();
      } while (this.again && this.goOn());
      return done;
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Settles once the running pass does (never rejects). */
  async settled(): Promise<void> {
    await this.running?.catch(() => undefined);
  }
}
