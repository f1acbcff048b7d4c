import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, map } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { FilePlayer } from '../../../src/audio/file-player.js';
import { pcmSource } from '../../../src/audio/file-source.js';
import { Reframer } from '../../../src/audio/frames.js';
import { PlaybackClock } from '../../../src/audio/playback-clock.js';
import { ClockedPlayer } from '../../../src/audio/player.js';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { pcm } from '../../helpers/fakes.js';
import { testScheduler } from '../../helpers/marbles.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-players-'));

describe('PlaybackClock', () => {
  it('plays at the sample rate while audio is queued and never ahead of what was written', () => {
    let now = 0;
    const clock = new PlaybackClock(1000, false, () => now);
    clock.write(100);
    now = 30;
    expect(clock.playedSamples()).toBe(30);
    now = 500;
    expect(clock.playedSamples()).toBe(100);
    now = 600;
    clock.write(50);
    now = 610;
    expect(clock.playedSamples()).toBe(110);
    expect(clock.queuedMs()).toBe(40);
  });

  it('drop keeps what was played and forgets the rest', () => {
    let now = 0;
    const clock = new PlaybackClock(1000, false, () => now);
    clock.write(100);
    now = 40;
    expect(clock.drop()).toBe(60);
    expect(clock.writtenSamples()).toBe(40);
    expect(clock.queuedMs()).toBe(0);
  });

  it('does not drift when read often', () => {
    let now = 0;
    const clock = new PlaybackClock(16000, false, () => now);
    clock.write(160000);
    for (let i = 0; i < 1000; i++) {
      now += 0.37;
      clock.playedSamples();
    }
    expect(Math.abs(clock.playedSamples() - 0.37 * 1000 * 16)).toBeLessThanOrEqual(1);
  });
});

describe('Reframer', () => {
  it('makes whole frames from odd-sized chunks without losing a byte, each stamped with when it was captured', () => {
    // 1 kHz: a sample per millisecond. A chunk arriving at t was captured up to t.
    const reframer = new Reframer(3, 1000);
    const bytes = Buffer.from(Int16Array.from({ length: 10 }, (_, i) => i).buffer);
    const frames = [
      ...reframer.push(bytes.subarray(0, 5), 100),
      ...reframer.push(bytes.subarray(5, 13), 104),
      ...reframer.push(bytes.subarray(13), 110),
    ];
    expect(frames.map((f) => [...f.samples])).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
    ]);
    // Times come from the samples counted: the 2 whole samples of the first chunk were captured
    // by 100, so sample n ends at 98 + n. The last chunk came 2 ms late: still on the same count.
    expect(frames.map((f) => f.capturedAt)).toEqual([101, 104, 107]);
  });

  it('a chunk that comes sooner than the count allows moves the timeline earlier; a long gap starts it over', () => {
    const reframer = new Reframer(2, 1000, 200);
    const two = Buffer.from(Int16Array.of(1, 2).buffer);
    expect(reframer.push(two, 10)[0]?.capturedAt).toBe(10);
    // Captured no later than it arrived: the first chunk must have ended by 9.
    expect(reframer.push(two, 11)[0]?.capturedAt).toBe(11);
    expect(reframer.push(two, 12)[0]?.capturedAt).toBe(12);
    // 500 ms with nothing (the microphone was reopened): the timeline starts over.
    expect(reframer.push(two, 600)[0]?.capturedAt).toBe(600);
  });
});

describe('FilePlayer', () => {
  it('in real time, writes only what was played before a stop', async () => {
    const path = join(dir, 'stopped.wav');
    const scheduler = testScheduler();
    let closed: Promise<void> | undefined;
    scheduler.run(() => {
      const player = new FilePlayer(path, 16000, true, { now: () => scheduler.now(), scheduler });
      player.write(pcm(2000, 16000));
      scheduler.schedule(() => player.stop(), 300);
      scheduler.schedule(() => {
        closed = player.close();
      }, 400);
    });
    await closed;
    expect(readWavInfo(readFileSync(path)).durationMs).toBe(300);
  });

  it('a pause holds playback and a resume plays on from exactly there: nothing lost, nothing twice', async () => {
    const path = join(dir, 'paused.wav');
    const scheduler = testScheduler();
    const ramp = Buffer.from(Int16Array.from({ length: 16000 }, (_, i) => i - 8000).buffer);
    let closed: Promise<void> | undefined;
    let queuedWhilePaused = 0;
    scheduler.run(() => {
      const player = new FilePlayer(path, 16000, true, { now: () => scheduler.now(), scheduler });
      player.write(ramp);
      scheduler.schedule(() => player.pause(), 200);
      scheduler.schedule(() => (queuedWhilePaused = player.queuedMs()), 450);
      scheduler.schedule(() => player.resume(), 500);
      scheduler.schedule(() => {
        closed = player.close();
      }, 1600);
    });
    await closed;
    const wav = readFileSync(path);
    const info = readWavInfo(wav);
    expect(queuedWhilePaused).toBe(800);
    expect(info.durationMs).toBe(1000);
    expect(wav.subarray(info.dataOffset).equals(ramp)).toBe(true);
  });

  it('replaces a file already there when the run ends, and leaves it as it was when the run failed', async () => {
    const path = join(dir, 'kept.wav');
    writeFileSync(path, 'an older file');
    const failed = new FilePlayer(path, 24000, false);
    failed.write(pcm(500, 24000));
    await failed.close(true);
    expect(readFileSync(path, 'utf8')).toBe('an older file');
    const ended = new FilePlayer(path, 24000, false);
    ended.write(pcm(500, 24000));
    await ended.close();
    expect(readWavInfo(readFileSync(path)).durationMs).toBeCloseTo(500, 0);
    expect(readdirSync(dir).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('names a file it cannot write as it was asked for, never as the hidden one it writes first', async () => {
    const path = join(dir, 'gone', 'reply.wav');
    const player = new FilePlayer(path, 24000, false);
    player.write(pcm(500, 24000));
    const closed = player.close();
    await expect(closed).rejects.toThrow(`cannot write ${path}: files cannot be made there`);
    await expect(closed).rejects.not.toThrow(/partial/);
  });

  it('as fast as possible, writes everything at once', async () => {
    const path = join(dir, 'fast.wav');
    const player = new FilePlayer(path, 24000, false);
    player.write(pcm(1500, 24000));
    expect(player.queuedMs()).toBe(0);
    await player.close();
    expect(readWavInfo(readFileSync(path)).durationMs).toBeCloseTo(1500, 0);
  });
});

/** A device that takes a while to open, on a clock the test moves. */
class SlowDevice extends ClockedPlayer {
  readonly sent: Buffer[] = [];
  readonly told: { samples: number; startMs: number }[] = [];
  constructor(at: { now: number }) {
    super(16000, { now: () => at.now, scheduler: asyncScheduler });
    this.listen({
      write: (samples, _rate, startMs) => this.told.push({ samples: samples.length, startMs }),
      drop: () => undefined,
    });
  }
  open(): void {
    this.opening();
  }
  ready(): void {
    this.opened();
  }
  protected output(pcm: Buffer): void {
    this.sent.push(pcm);
  }
  protected discard(): void {}
  async close(): Promise<void> {}
}

describe('ClockedPlayer with a device still opening', () => {
  it('nothing counts as played until the device is open; then it all plays from there, told once', () => {
    const at = { now: 0 };
    const device = new SlowDevice(at);
    device.open();
    device.write(pcm(500, 16000));
    at.now = 300;
    expect(device.playedSamples()).toBe(0);
    expect(device.sent).toEqual([]);
    device.ready();
    expect(device.told).toEqual([{ samples: 8000, startMs: 300 }]);
    at.now = 550;
    expect(device.playedSamples()).toBe(4000);
    expect(Buffer.concat(device.sent).length).toBe(16000);
  });

  it('a pause while it opens holds the reply past the opening, until the resume', () => {
    const at = { now: 0 };
    const device = new SlowDevice(at);
    device.open();
    device.write(pcm(500, 16000));
    device.pause();
    at.now = 100;
    device.ready();
    at.now = 400;
    expect(device.sent).toEqual([]);
    expect(device.playedSamples()).toBe(0);
    device.resume();
    expect(device.told).toEqual([{ samples: 8000, startMs: 400 }]);
    expect(Buffer.concat(device.sent).length).toBe(16000);
  });

  it('a stop while it opens drops what waited, and what follows waits for the device too', () => {
    const at = { now: 0 };
    const device = new SlowDevice(at);
    device.open();
    device.write(pcm(500, 16000));
    device.stop();
    device.write(pcm(100, 16000));
    at.now = 200;
    expect(device.playedSamples()).toBe(0);
    device.ready();
    expect(device.told).toEqual([{ samples: 1600, startMs: 200 }]);
  });
});

describe('pcmSource', () => {
  it('in real time, sends chunk n when it would have been captured, (n + 1) * chunkMs from the start', () => {
    testScheduler().run(({ expectObservable }) => {
      const pcm32 = Buffer.alloc(16 * 32 * 2 * 3 + 10);
      const sizes = pcmSource(pcm32, { sampleRateHz: 16000, realtime: true, chunkMs: 32 }).pipe(map((b) => b.length));
      expectObservable(sizes).toBe('32ms a 31ms b 31ms c 31ms (d|)', { a: 1024, b: 1024, c: 1024, d: 10 });
      const fast = pcmSource(pcm32, { sampleRateHz: 16000, realtime: false, chunkMs: 32 }).pipe(map((b) => b.length));
      expectObservable(fast).toBe('(abcd|)', { a: 1024, b: 1024, c: 1024, d: 10 });
    });
  });
});
