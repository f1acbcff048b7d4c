import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { HARK, cleanEnv } from './cli.js';

export interface WebHark {
  child: ChildProcessWithoutNullStreams;
  /** The page's address, as hark logged it (web.listening). */
  url: string;
  /** Every JSON log line so far. */
  lines: Record<string, unknown>[];
  /** Resolves with the first log line of that event (already seen or to come). */
  line(event: string): Promise<Record<string, unknown>>;
  /** SIGINT, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `hark <args>` with the status page on a free loopback port, its JSON log read as it comes.
 * Resolves once the page listens.
 */
export async function startWebHark(args: string[], env: Record<string, string> = {}): Promise<WebHark> {
  const child = spawn(process.execPath, [HARK, '--log-format', 'json', '--log-level', 'debug', ...args], {
    env: cleanEnv({ HARK_WEB_LISTEN: '127.0.0.1:0', HARK_WAKE_ENGINE: 'none', ...env }),
  });
  const lines: Record<string, unknown>[] = [];
  const waiting: { event: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  let rest = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => {
    rest += d.toString();
    let at;
    while ((at = rest.indexOf('\n')) >= 0) {
      const text = rest.slice(0, at).replace(/^<\d>/, '');
      rest = rest.slice(at + 1);
      if (!text.startsWith('{')) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      for (const w of waiting.filter((w) => w.event === line.event)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = (event: string): Promise<Record<string, unknown>> =>
    Promise.race([
      new Promise<Record<string, unknown>>((resolve) => {
        const seen = lines.find((l) => l.event === event);
        if (seen) resolve(seen);
        else waiting.push({ event, resolve });
      }),
      exited.then((code) => {
        throw new Error(`hark exited (${String(code)}) before ${event}: ${stderr}`);
      }),
    ]);
  const listening = await line('web.listening');
  return {
    child,
    url: (listening.urls as string[])[0] as string,
    lines,
    line,
    stop: () => {
      child.kill('SIGINT');
      return exited;
    },
  };
}
