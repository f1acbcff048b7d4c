import type { ServerResponse } from 'node:http';
import { BehaviorSubject, distinctUntilChanged, type Observable } from 'rxjs';
import { redact } from '../system/secrets.js';
import type { PageState } from './page-state.js';
import type { PageEvent } from './page-json.js';

/** A client this far behind gets no meters until it catches up (a phone on a weak network). */
const BEHIND_BYTES = 64 * 1024;
/** A client this far behind is let go: it can reconnect and start from a fresh snapshot. */
const GONE_BYTES = 1024 * 1024;
/** A comment this often keeps proxies and phones from closing a quiet stream. */
const HEARTBEAT_MS = 20_000;

/**
 * The page's live stream (`/api/events`, Server-Sent Events): each event is folded into the
 * page's state and sent to every browser listening, as one `data:` line of JSON, scrubbed of
 * secrets. Whether anyone listens is itself a stream, so meters are made only then.
 */
export class LiveFeed {
  private readonly clients = new Set<ServerResponse>();
  private readonly listening = new BehaviorSubject(false);
  private heartbeat: NodeJS.Timeout | undefined;
  /** true while at least one browser (or script) listens to the live stream. */
  readonly watching: Observable<boolean> = this.listening.pipe(distinctUntilChanged());

  constructor(readonly state: PageState) {}

  get clientCount(): number {
    return this.clients.size;
  }

  push(event: PageEvent): void {
    this.state.apply(event);
    if (this.clients.size === 0) return;
    const frame = `data: ${redact(JSON.stringify(event))}\n\n`;
    for (const client of this.clients) {
      if (client.writableLength > GONE_BYTES) {
        client.destroy();
        continue;
      }
      if (event.type === 'meter' && client.writableLength > BEHIND_BYTES) continue;
      client.write(frame);
    }
  }

  /** Starts the stream for one client: a snapshot first (what is going on, and the last turns), then every event. */
  open(response: ServerResponse): void {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const hello = { type: 'hello', snapshot: this.state.snapshot(), turns: this.state.report() };
    response.write(`retry: 2000\ndata: ${redact(JSON.stringify(hello))}\n\n`);
    this.clients.add(response);
    response.on('close', () => this.close(response));
    this.heartbeat ??= setInterval(() => {
      for (const client of this.clients) client.write(': still here\n\n');
    }, HEARTBEAT_MS).unref();
    this.listening.next(true);
  }

  /** Ends every stream (hark is stopping). */
  end(): void {
    for (const client of this.clients) client.end();
    this.clients.clear();
    this.quiet();
  }

  private close(response: ServerResponse): void {
    this.clients.delete(response);
    if (this.clients.size === 0) this.quiet();
  }

  private quiet(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.listening.next(false);
  }
}
