import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { CommandPlayer, commandWords } from '../../../src/audio/command-player.js';
import type { PlaybackError } from '../../../src/audio/playback-error.js';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { pcm } from '../../helpers/fakes.js';
import { watchedLogger } from '../../helpers/logger.js';
import { standIn } from '../../helpers/stand-in-player.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-command-player-'));

describe('CommandPlayer', () => {
  it('splits the command line and fills in the rate', () => {
    expect(commandWords('pacat --raw --rate={rate} "--client-name=hark voice"', 24000)).toEqual([
      'pacat',
      '--raw',
      '--rate=24000',
      '--client-name=hark voice',
    ]);
  });

  it('pipes PCM to the command, and closing lets it play to the end', async () => {
    const out = join(dir, 'command.raw');
    const logger = createMemoryLogger();
    const player = new CommandPlayer(`sh -c "cat > ${out}"`, 16000, logger);
    player.write(pcm(500, 16000));
    await player.close();
    expect(readFileSync(out).length).toBe(16000);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a stop kills the command at once and drops the queue; the next write starts a new one', async () => {
    const out = mkdtempSync(join(dir, 'stop-'));
    const logger = createMemoryLogger();
    // Each process writes its own file, named by its PID.
    const player = new CommandPlayer(`sh -c "cat > ${out}/$$.raw"`, 16000, logger);
    player.write(pcm(5000, 16000));
    player.stop();
    expect(player.queuedMs()).toBe(0);
    player.write(pcm(100, 16000));
    await player.close();
    const sizes = readdirSync(out).map((f) => readFileSync(join(out, f)).length);
    // The killed process may not even have opened its file; the new one got exactly the audio after the stop.
    expect(sizes.length).toBeLessThanOrEqual(2);
    expect(sizes).toContain(3200);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('a pause silences the command at once and starts the next, which plays the rest on the resume', async () => {
    const out = mkdtempSync(join(dir, 'pause-'));
    let now = 0;
    const player = new CommandPlayer(`sh -c "cat > ${out}/$$.raw"`, 16000, createMemoryLogger(), {
      now: () => now,
      scheduler: asyncScheduler,
    });
    player.write(pcm(1000, 16000));
    await vi.waitFor(() => expect(readdirSync(out)).toHaveLength(1));
    now = 250;
    player.pause();
    // The next command is already running, so the resume does not wait for it to start.
    await vi.waitFor(() => expect(readdirSync(out)).toHaveLength(2));
    now = 900;
    expect(player.queuedMs()).toBe(750);
    player.resume();
    await player.close();
    const sizes = readdirSync(out).map((f) => readFileSync(join(out, f)).length);
    // The resumed process got exactly the 750 ms that had not been played.
    expect(sizes).toContain(750 * 32);
  });

  it('a command that always fails is started a few times a minute however often hark writes, and nothing written is taken for played', () => {
    const { player, logger, children, at } = standIn('aplay -q');
    const lost: PlaybackError[] = [];
    player.failures.subscribe((failure) => lost.push(failure));
    const written: [number, number][] = [];
    // A minute of writes every 25 ms (a reply, earcons, meters' worth); each start fails at once.
    for (let now = 0; now < 60_000; now += 25) {
      at(now);
      const from = player.writtenSamples();
      written.push([from, player.write(pcm(25, 16000))]);
      children.at(-1)?.fails('aplay: main:831: audio open error: No such device');
    }
    // Waits of 0.5, 1, 2, 4, 8, 16, 30 s: 8 starts in the first minute, where there were 2400 writes.
    expect(children.length).toBeLessThanOrEqual(8);
    const failed = logger.lines.filter((l) => l.event === 'player.failed');
    expect(failed).toHaveLength(children.length);
    expect(failed.at(-1)).toMatchObject({
      error: 'aplay exited with 1: aplay: main:831: audio open error: No such device',
      retryInMs: 30_000,
      fix: expect.stringMatching(/hark devices.*audio\.playbackDevice.*-o FILE\.wav/) as unknown,
    });
    const unreported = written.filter(([from, to]) => !lost.some((l) => l.fromSample <= from && l.toSample >= to));
    expect(unreported).toEqual([]);
  });

  it('logs a command that cannot start, and keeps going', async () => {
    const logger = watchedLogger();
    const player = new CommandPlayer('no-such-player-binary -q', 16000, logger);
    player.write(pcm(100, 16000));
    expect(await logger.line('player.failed')).toMatchObject({ command: 'no-such-player-binary' });
    await player.close();
  });
});
