/**
 * What is asked of one model in the listening thread, in order, once it has loaded. A step runs
 * at once while none before it waits (the wake word's frames, most of the time: nothing chained
 * for a step that returns no promise), else after the one before it. A step that throws or
 * rejects fails the model: `onFailure` is told once, and the steps after it do not run on the
 * model, so nothing waits forever.
 */
export class ModelSteps<M> {
  private model: M | undefined;
  private failed = false;
  private waiting: Promise<void> | undefined;

  constructor(
    loaded: Promise<M | undefined>,
    private readonly onFailure: (error: unknown) => void,
  ) {
    this.wait(
      loaded.then((model) => {
        this.model = model;
      }),
    );
  }

  /** Runs `step` on the model after the steps asked for before it (not at all if it never loaded or has failed). */
  run(step: (model: M) => unknown): void {
    if (this.waiting) this.wait(this.waiting.then(() => this.call(step)));
    else this.wait(this.call(step));
  }

  /** Settles once every step asked for so far has run, whether the model did its part or not. */
  settled(): Promise<void> {
    return this.waiting ?? Promise.resolve();
  }

  private call(step: (model: M) => unknown): unknown {
    if (this.model === undefined || this.failed) return undefined;
    try {
      const result = step(this.model);
      return result instanceof Promise ? result.catch((error: unknown) => this.fail(error)) : undefined;
    } catch (error) {
      this.fail(error);
      return undefined;
    }
  }

  private wait(result: unknown): void {
    if (!(result instanceof Promise)) return;
    const waiting: Promise<void> = result.then(
      () => this.done(waiting),
      (error: unknown) => {
        this.fail(error);
        this.done(waiting);
      },
    );
    this.waiting = waiting;
  }

  private done(waiting: Promise<void>): void {
    if (this.waiting === waiting) this.waiting = undefined;
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.onFailure(error);
  }
}
