import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { existsSync, statSync } from 'node:fs';
import { firstValueFrom } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { lastWords } from '../../../src/audio/child-process.js';
import { SpeakerPlayer } from '../../../src/audio/speaker-player.js';
import { realClock } from '../../../src/system/clock.js';
import { pcm } from '../../helpers/fakes.js';
import { watchedLogger } from '../../helpers/logger.js';

const STUBS = resolve(import.meta.dirname, '../../fixtures/speaker-stubs');

describe('SpeakerPlayer (the speaker module in a child process)', () => {
  it('hands the PCM to the module, and closing lets it finish', async () => {
    const out = join(tmpdir(), `hark-speaker-stub-${process.pid}.raw`);
    rmSync(out, { force: true });
    const player = new SpeakerPlayer(16000, null, watchedLogger(), undefined, join(STUBS, 'records.cjs'));
    player.write(pcm(250, 16000));
    await player.close();
    expect(readFileSync(out).length).toBe(8000);
    expect(player.lastFailure).toBeUndefined();
  });

  it('a stop while the module is writing (a barge-in) silences the rest without crashing the host, and what follows plays', async () => {
    const out = join(tmpdir(), `hark-speaker-stub-${process.pid}.raw`);
    rmSync(out, { force: true });
    const logger = watchedLogger();
    const player = new SpeakerPlayer(16000, null, logger, undefined, join(STUBS, 'native-writes.cjs'));
    player.write(pcm(1000, 16000, 1000));
    // The module has begun writing the reply's first piece.
    await vi.waitFor(() => expect(existsSync(out) && statSync(out).size > 0).toBe(true), { timeout: 10_000 });
    player.stop();
    player.write(pcm(250, 16000, 2000));
    await player.close();
    const played = new Int16Array(new Uint8Array(readFileSync(out)).buffer);
    const cut = played.filter((v) => v === 1000).length;
    expect(cut).toBeGreaterThan(0);
    expect(cut).toBeLessThan(16000 / 2);
    expect(played.filter((v) => v === 2000)).toHaveLength(4000);
    expect(logger.lines.filter((l) => l.event === 'player.host_exited')).toEqual([]);
    expect(player.lastFailure).toBeUndefined();
  });

  it('what is written while the host is starting sounds once it is ready, and the echo reference is told so then, not before', async () => {
    const out = join(tmpdir(), `hark-speaker-stub-${process.pid}.raw`);
    rmSync(out, { force: true });
    const createdAt = realClock.now();
    const player = new SpeakerPlayer(16000, null, watchedLogger(), realClock, join(STUBS, 'slow-load.cjs'));
    const told: number[] = [];
    player.listen({ write: (_samples, _rate, startMs) => told.push(startMs - createdAt), drop: () => undefined });
    player.write(pcm(250, 16000));
    await firstValueFrom(player.queuedBelow(0));
    expect(told).toHaveLength(1);
    expect(told[0]).toBeGreaterThanOrEqual(400);
    await player.close();
    expect(readFileSync(out).length).toBe(8000);
  });

  it('after a pause, the echo reference keeps the voice the sound server may go on playing', async () => {
    const player = new SpeakerPlayer(16000, null, watchedLogger(), realClock, join(STUBS, 'records.cjs'));
    const dropped: number[] = [];
    player.listen({ write: () => undefined, drop: (atMs) => dropped.push(atMs) });
    player.write(pcm(1000, 16000));
    await vi.waitFor(() => expect(player.playedSamples()).toBeGreaterThan(0), { timeout: 10_000 });
    const pausedAt = realClock.now();
    player.pause();
    expect(dropped).toHaveLength(1);
    expect(dropped[0]! - pausedAt).toBeGreaterThanOrEqual(30);
    player.stop();
    await player.close();
  });

  it('a module that is not installed: one line saying so, with the fix, and no host started again', async () => {
    const logger = watchedLogger();
    const player = new SpeakerPlayer(16000, null, logger, undefined, join(STUBS, 'not-there.cjs'));
    player.write(pcm(100, 16000));
    expect(await logger.line('player.unavailable')).toMatchObject({
      error: 'the speaker module is not installed',
      fix: expect.stringMatching(/npm install -g speaker.*audio\.player: auto/),
    });
    // A reply to a player with no device still ends, rather than wait for it forever.
    await firstValueFrom(player.queuedBelow(0));
    player.write(pcm(100, 16000));
    await player.close();
    expect(logger.lines.filter((l) => l.event === 'player.unavailable')).toHaveLength(1);
  });

  it('a host that crashes says why in one line, not the tail of a stack trace', async () => {
    const logger = watchedLogger();
    const player = new SpeakerPlayer(16000, null, logger, undefined, join(STUBS, 'unplugged.cjs'));
    player.write(pcm(100, 16000));
    const line = await logger.line('player.host_exited');
    expect(line.error).toBe('the speaker host exited with 1: Error: device unplugged');
    expect(player.lastFailure).toBe(line.error);
    await player.close();
  });

  it('a host aborted by the module (no usable device) says so, with ALSA’s own words', async () => {
    const logger = watchedLogger();
    const player = new SpeakerPlayer(16000, null, logger, undefined, join(STUBS, 'no-device.cjs'));
    player.write(pcm(100, 16000));
    expect((await logger.line('player.host_exited')).error).toBe(
      'no usable audio output device (ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM hark_no_such_device)',
    );
    await player.close();
  });
});

describe('lastWords', () => {
  it('finds the error line of a Node.js crash, whatever follows it', () => {
    const crash = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      '  ^',
      '',
      "Error: Cannot find module 'speaker'",
      'Require stack:',
      '- /opt/hark/dist/audio/speaker-host.js',
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15) {',
      "  code: 'MODULE_NOT_FOUND',",
      '}',
      '',
      'Node.js v20.20.2',
    ].join('\n');
    expect(lastWords(crash)).toBe("Error: Cannot find module 'speaker'");
  });

  it('else the last line that says something', () => {
    expect(lastWords('aplay: main:831: audio open error: Device or resource busy\n')).toBe(
      'aplay: main:831: audio open error: Device or resource busy',
    );
    expect(lastWords('}\n\nNode.js v20.20.2\n')).toBe('');
  });
});
