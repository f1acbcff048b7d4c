import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { HARK } from './cli.js';

export type LogLine = Record<string, unknown> & { event?: string };

/** A real `hark` process (the built CLI), its JSON log read line by line as it comes. */
export class RunningHark {
  readonly lines: LogLine[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: (() => void)[] = [];

  constructor(args: string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [HARK, '--log-format', 'json', ...args], { env });
    let rest = '';
    this.child.stdout.on('data', (d: Buffer) => {
      rest += d.toString();
      let at;
      while ((at = rest.indexOf('\n')) >= 0) {
        const text = rest.slice(0, at);
        rest = rest.slice(at + 1);
        if (text.startsWith('{')) this.lines.push(JSON.parse(text) as LogLine);
        this.tell();
      }
    });
    this.child.stderr.on('data', (d: Buffer) => this.stderr.push(d.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('close', (code, signal) => {
        this.tell();
        resolve({ code, signal });
      }),
    );
  }

  get pid(): number {
    return this.child.pid as number;
  }

  /** The first log line of `event` (from the start) that matches; fails after `timeoutMs` or when hark has exited. */
  async line(event: string, matches: (line: LogLine) => boolean = () => true, timeoutMs = 30_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find((l) => l.event === event && matches(l));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0 || this.child.exitCode !== null || this.child.signalCode !== null) {
        const events = this.lines.map((l) => l.event).join(', ');
        throw new Error(`no ${event} line (hark ${left <= 0 ? 'still running' : 'exited'}); seen: ${events}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** How many log lines of `event` so far. */
  count(event: string): number {
    return this.lines.filter((l) => l.event === event).length;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Kills it if it still runs (a test that failed part-way), and waits for it to be gone. */
  async end(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }

  private tell(): void {
    for (const tell of this.waiting.splice(0)) tell();
  }
}
