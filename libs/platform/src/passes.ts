/**
 * Work that drains a queue in passes (due mail, stored webhook events), woken by commits and by a
 * timer: one pass at a time per process. A wake while a pass runs asks for one more pass right
 * after it, for what the running pass's select could not see yet; every wake during the same pass
 * shares that next pass. A caller waits for its own pass alone: wakes that keep coming while it
 * runs ask for the pass after it, and do not hold up the callers before them (a periodic task
 * that wakes the mail queue ends when its pass does, however much mail keeps arriving).
 */
export class CoalescedPasses {
  private running: Promise<number> | undefined;
  private next: { answer: Promise<number>; settle: (answer: Promise<number>) => void } | undefined;

  /** `pass` returns how much it did; `goOn` is asked before a pass asked for during another (false once stopping). */
  constructor(
    private readonly pass: () => Promise<number>,
    private readonly goOn: () => boolean = () => true,
  ) {}

  /** What the pass that sees the caller's work did: a new pass, or the one after the running pass. */
  run(): Promise<number> {
    if (!this.running) return this.start();
    if (!this.next) {
      let settle!: (answer: Promise<number>) => void;
      const answer = new Promise<number>((resolve) => {
        settle = resolve;
      });
      this.next = { answer, settle };
    }
    return this.next.answer;
  }

  private start(): Promise<number> {
    let running: Promise<number>;
    try {
      running = this.pass();
    } catch (error) {
      running = Promise.reject(error);
    }
    this.running = running;
    const after = () => {
      this.running = undefined;
      const next = this.next;
      this.next = undefined;
      // Asked for during this pass (it may have failed): run it now, or answer 0 when stopping.
      if (next) next.settle(this.goOn() ? this.start() : Promise.resolve(0));
    };
    running.then(after, after);
    return running;
  }

  /** Settles once no pass runs any more: the running one and any asked for during it (never rejects). */
  async settled(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
  }
}
