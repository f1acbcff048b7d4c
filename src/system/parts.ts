import type { Logger } from './logger.js';

/** A part of hark with a lifecycle: its `start…` function returns it running, and `stop` ends it. */
export interface Part {
  stop(): Promise<void>;
}

/**
 * Parts started in order and stopped in reverse, so that a part stops before those it was started
 * on. A stop that fails does not keep the others from stopping: each failure is logged with the
 * part's name, and the first is thrown once every part has stopped.
 */
export class Parts implements Part {
  private readonly running: { name: string; part: Part }[] = [];

  constructor(private readonly logger: Logger) {}

  /** Starts a part, to be stopped with the others; one that fails to start is not. */
  async start<P extends Part | undefined>(name: string, start: () => P | Promise<P>): Promise<P> {
    return this.add(name, await start());
  }

  /** A part started already, to be stopped with the others (none when undefined). */
  add<P extends Part | undefined>(name: string, part: P): P {
    if (part) this.running.push({ name, part });
    return part;
  }

  async stop(): Promise<void> {
    let first: { error: unknown } | undefined;
    for (const { name, part } of this.running.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (error) {
        this.logger.error('part.stop_failed', { part: name, error: error as Error });
        first ??= { error };
      }
    }
    if (first) throw first.error;
  }
}
