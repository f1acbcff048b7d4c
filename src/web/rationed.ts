/**
 * Something costly asked for on demand (the doctor): made once at a time, and for `restMs` after
 * it was made, the same answer is given again instead of a new one being made.
 */
export class Rationed<T> {
  private last: { value: T; at: number } | undefined;
  private making: Promise<{ value: T; at: number }> | undefined;

  constructor(
    private readonly make: () => Promise<T>,
    private readonly restMs: number,
    private readonly now: () => number,
  ) {}

  /** The answer, when it was made (epoch ms), and whether it is one made before. */
  async get(): Promise<{ value: T; ranAt: number; again: boolean }> {
    const last = this.last;
    if (last && this.now() - last.at < this.restMs) return { value: last.value, ranAt: last.at, again: true };
    if (this.making) {
      const shared = await this.making;
      return { value: shared.value, ranAt: shared.at, again: true };
    }
    this.making = this.make().then((value) => ({ value, at: this.now() }));
    try {
      this.last = await this.making;
      return { value: this.last.value, ranAt: this.last.at, again: false };
    } finally {
      this.making = undefined;
    }
  }
}
