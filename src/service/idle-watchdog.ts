/**
 * Gives up a streaming call that stops making progress: no response headers within the limit,
 * or no content for the limit afterwards. Content is what the caller says it is (`progress()`):
 * text, reasoning, tool input, audio. Keep-alives (SSE comments, `ping` events) are bytes but
 * not progress, so a server that only sends them cannot hold a turn open forever.
 */
export class IdleWatchdog {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private phase: 'headers' | 'content' = 'headers';
  private bytesSinceProgress = false;
  private firedIn: 'headers' | 'content' | undefined;

  constructor(readonly limitMs: number) {
    this.timer = setTimeout(() => {
      this.firedIn = this.phase;
      this.controller.abort(new Error(this.describe()));
    }, limitMs);
  }

  /** Aborted when the limit passes; give it to the request, which then closes the connection. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get fired(): boolean {
    return this.firedIn !== undefined;
  }

  headersArrived(): void {
    this.phase = 'content';
    this.timer.refresh();
  }

  /** Some bytes arrived: not progress by itself, but it tells keep-alives from silence. */
  bytes(): void {
    this.bytesSinceProgress = true;
  }

  progress(): void {
    this.bytesSinceProgress = false;
    this.timer.refresh();
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  describe(): string {
    if ((this.firedIn ?? this.phase) === 'headers') return `no response headers within ${this.limitMs} ms`;
    return this.bytesSinceProgress
      ? `no content for ${this.limitMs} ms, only keep-alives`
      : `no data for ${this.limitMs} ms`;
  }
}
