/** The last lines of the log, as written (scrubbed of secrets), for the status page. */
export class LogTail {
  private readonly lines: string[] = [];

  constructor(private readonly max = 200) {}

  push(line: string): void {
    this.lines.push(line.trimEnd());
    if (this.lines.length > this.max) this.lines.shift();
  }

  /** Oldest first. */
  recent(): string[] {
    return [...this.lines];
  }
}
