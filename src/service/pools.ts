import type * as Undici from 'undici';
import type { Pool } from 'undici';
import type { Logger } from '../system/logger.js';

/** undici is loaded by the first request, not when hark starts: it is a large part of a start's code. */
let undici: Promise<typeof Undici> | undefined;
const loadUndici = (): Promise<typeof Undici> => (undici ??= import('undici'));

export interface PoolsOptions {
  /** Connections per origin. */
  connections: number;
  connectMs: number;
  userAgent: string;
  logger: Logger;
}

/** One keep-alive connection pool per origin, opened ahead of need on request, all closed together. */
export class Pools {
  private readonly pools = new Map<string, Pool>();
  private warming: Promise<void> | undefined;
  private readonly closing = new AbortController();

  constructor(private readonly options: PoolsOptions) {}

  /** The pool already open for `origin`, for a request to go out without waiting a turn of the event loop. */
  opened(origin: string): Pool | undefined {
    return this.closing.signal.aborted ? undefined : this.pools.get(origin);
  }

  async of(origin: string): Promise<Pool> {
    const { Pool } = await loadUndici();
    if (this.closing.signal.aborted) throw new Error('the service client is closed');
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: this.options.connectMs },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /**
   * Opens connections to `base` before they are needed, so a turn does not wait for TCP and TLS
   * handshakes (keep-alive connections close when idle between turns): up to `connections` open
   * at once, by an OPTIONS request that carries no key (undici closes a connection after HEAD).
   * Failures are left to the request that follows, which has its own retries.
   */
  warm(base: URL, connections: number): Promise<void> {
    this.warming ??= this.open(base, connections).finally(() => (this.warming = undefined));
    return this.warming;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.warming;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private async open(base: URL, connections: number): Promise<void> {
    const pool = await this.of(base.origin).catch(() => undefined);
    const missing = connections - (pool?.stats.connected ?? connections);
    if (!pool || missing <= 0) return;
    const opened = Array.from({ length: missing }, () =>
      pool
        .request({
          path: base.pathname,
          method: 'OPTIONS',
          headers: { 'user-agent': this.options.userAgent },
          headersTimeout: this.options.connectMs,
          signal: this.closing.signal,
        })
        .then((response) => response.body.dump()),
    );
    await Promise.allSettled(opened);
    this.options.logger.debug('service.warmed', { connected: pool.stats.connected });
  }
}
