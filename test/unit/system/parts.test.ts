import { describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { Parts, type Part } from '../../../src/system/parts.js';

/** A part that writes its name to `stopped` when it stops, or fails to stop with `failure`. */
function part(name: string, stopped: string[], failure?: Error): Part {
  return {
    stop: async () => {
      await Promise.resolve();
      stopped.push(name);
      if (failure) throw failure;
    },
  };
}

describe('Parts: started in order, stopped in reverse', () => {
  it('stops the last started first: what leans on another stops before it', async () => {
    const stopped: string[] = [];
    const parts = new Parts(createMemoryLogger());
    await parts.start('page', () => part('page', stopped));
    await parts.start('voice loop', async () => part('voice loop', stopped));
    parts.add('home', part('home', stopped));
    parts.add('systemd', part('systemd', stopped));
    await parts.stop();
    expect(stopped).toEqual(['systemd', 'home', 'voice loop', 'page']);
  });

  it('a stop that fails does not keep the others from stopping: each failure logged, the first thrown', async () => {
    const stopped: string[] = [];
    const logger = createMemoryLogger();
    const parts = new Parts(logger);
    parts.add('page', part('page', stopped, new Error('the page would not close')));
    parts.add('voice loop', part('voice loop', stopped, new Error('the output file cannot be finished')));
    parts.add('home', part('home', stopped));
    await expect(parts.stop()).rejects.toThrow('the output file cannot be finished');
    expect(stopped).toEqual(['home', 'voice loop', 'page']);
    expect(logger.lines.filter((l) => l.event === 'part.stop_failed').map((l) => l.part)).toEqual([
      'voice loop',
      'page',
    ]);
  });

  it('stops each part once, and none that failed to start or was not started', async () => {
    const stopped: string[] = [];
    const parts = new Parts(createMemoryLogger());
    parts.add('page', part('page', stopped));
    parts.add('no page', undefined);
    await expect(parts.start('voice loop', () => Promise.reject(new Error('no microphone')))).rejects.toThrow();
    await parts.stop();
    await parts.stop();
    expect(stopped).toEqual(['page']);
  });
});
