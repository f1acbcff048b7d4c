import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler, asyncScheduler, map } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { CommandPlayer, commandWords } from '../../../src/audio/command-player.js';
import { FilePlayer } from '../../../src/audio/file-player.js';
import { pcmSource } from '../../../src/audio/file-source.js';
import { Reframer } from '../../../src/audio/frames.js';
import { PlaybackClock } from '../../../src/audio/playback-clock.js';
import type { PlaybackError } from '../../../src/audio/playback-error.js';
import { ClockedPlayer } from '../../../src/audio/player.js';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { pcm } from '../../helpers/fakes.js';
import { watchedLogger } from '../../helpers/logger.js';
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
    let now = 0;
    const started: ExitingChild[] = [];
    const logger = createMemoryLogger();
    const player = new CommandPlayer('aplay -q', 16000, logger, { now: () => now, scheduler: asyncScheduler }, () => {
      const child = new ExitingChild();
      started.push(child);
      return child.process;
    });
    const lost: PlaybackError[] = [];
    player.failures.subscribe((failure) => lost.push(failure));
    const written: [number, number][] = [];
    // A minute of writes every 25 ms (a reply, earcons, meters' worth); each start fails at once.
    for (now = 0; now < 60_000; now += 25) {
      const from = player.writtenSamples();
      written.push([from, player.write(pcm(25, 16000))]);
      started.at(-1)?.fails('aplay: main:831: audio open error: No such device');
    }
    // Waits of 0.5, 1, 2, 4, 8, 16, 30 s: 8 starts in the first minute, where there were 2400 writes.
    expect(started.length).toBeLessThanOrEqual(8);
    const failed = logger.lines.filter((l) => l.event === 'player.failed');
    expect(failed).toHaveLength(started.length);
    expect(failed.at(-1)).toMatchObject({
      error: 'aplay exited with 1: aplay: main:831: audio open error: No such device',
      retryInMs: 30_000,
      fix: expect.stringMatching(/hark devices.*audio\.playbackDevice.*-o FILE\.wav/) as unknown,
    });
    const unreported = written.filter(([from, to]) => !lost.some((l) => l.fromSample <= from && l.toSample >= to));
    expect(unreported).toEqual([]);
  });

  it('a player that runs dry with audio still queued is logged, and the next asks for twice the buffer; running dry at the end is no fault', () => {
    let now = 0;
    const started: { child: ExitingChild; args: readonly string[] }[] = [];
    const logger = createMemoryLogger();
    const time = { now: () => now, scheduler: asyncScheduler };
    const player = new CommandPlayer('pacat --latency-msec={bufferMs} --verbose', 16000, logger, time, (_, args) => {
      const child = new ExitingChild();
      started.push({ child, args });
      return child.process;
    });
    const says = (i: number, text: string): void => void started[i]?.child.stderr.emit('data', Buffer.from(text));
    player.write(pcm(2000, 16000));
    expect(started[0]?.args).toContain('--latency-msec=20');
    says(0, 'Stream started.\u001b[K\n');
    now = 500;
    // pacat --verbose: its status line, then the underrun, on one line ended by a carriage return.
    says(0, 'Time: 0.500 sec; Latency: 18000 usec.        \rStream underrun.\u001b[K\n');
    says(0, 'Stream underrun.\u001b[K\n');
    player.stop();
    player.write(pcm(2000, 16000));
    expect(started[1]?.args).toContain('--latency-msec=40');
    now = 2600;
    // The reply played to its end: nothing was queued when it ran dry.
    says(1, 'Stream underrun.\u001b[K\n');
    player.write(pcm(500, 16000));
    expect(logger.lines.filter((l) => l.event === 'player.underrun')).toEqual([
      expect.objectContaining({ level: 'warn', command: 'pacat', queuedMs: 1500, bufferMs: 20, nextBufferMs: 40 }),
    ]);
    // Its chatter is no part of why it failed.
    started[1]?.child.fails('Connection failure: Connection refused');
    expect(logger.lines.find((l) => l.event === 'player.failed')).toMatchObject({
      error: 'pacat exited with 1: Connection failure: Connection refused',
    });
  });

  it('a player that ran dry holds hark’s clock until it plays on, and its listeners hear the rest from then', () => {
    const virtual = new VirtualTimeScheduler();
    const at = (ms: number): void => {
      virtual.maxFrames = ms;
      virtual.flush();
      virtual.frame = ms;
    };
    const children: ExitingChild[] = [];
    const written: number[] = [];
    const time = { now: () => virtual.now(), scheduler: virtual };
    const player = new CommandPlayer('pacat --verbose', 16000, createMemoryLogger(), time, () => {
      const child = new ExitingChild();
      child.stdin.write = (pcm: Buffer) => written.push(pcm.length / 2) > 0;
      children.push(child);
      return child.process;
    });
    const heard: { startMs: number; samples: number }[] = [];
    const silentFrom: number[] = [];
    player.listen({
      write: (samples, _, startMs) => heard.push({ startMs, samples: samples.length }),
      drop: (atMs) => silentFrom.push(atMs),
    });
    const says = (text: string): void => void children[0]?.stderr.emit('data', Buffer.from(text));
    player.write(pcm(2000, 16000));
    says('Stream started.\u001b[K\n');
    at(500);
    says('Stream underrun.\u001b[K\n');
    expect(silentFrom).toEqual([500]);
    at(560);
    expect(player.playedSamples()).toBe(8000);
    // Written meanwhile: the player has it at once, its listeners when it plays.
    player.write(pcm(100, 16000));
    expect(written).toEqual([32_000, 1600]);
    says('Stream started.\u001b[K\n');
    expect(heard).toEqual([
      { startMs: 0, samples: 32_000 },
      { startMs: 560, samples: 25_600 },
    ]);
    at(1560);
    expect(player.queuedMs()).toBe(600);
    // One that never says it plays on is taken to, half a second after it ran dry.
    says('Stream underrun.\u001b[K\n');
    at(1900);
    expect(player.queuedMs()).toBe(600);
    at(2160);
    expect(player.queuedMs()).toBe(500);
  });

  it('a pause while the player has run dry holds it there, and the resume plays on from exactly there', () => {
    const virtual = new VirtualTimeScheduler();
    const at = (ms: number): void => {
      virtual.maxFrames = ms;
      virtual.flush();
      virtual.frame = ms;
    };
    const children: { child: ExitingChild; written: number[] }[] = [];
    const time = { now: () => virtual.now(), scheduler: virtual };
    const player = new CommandPlayer('pacat --verbose', 16000, createMemoryLogger(), time, () => {
      const child = new ExitingChild();
      const written: number[] = [];
      child.stdin.write = (pcm: Buffer) => written.push(pcm.length / 2) > 0;
      children.push({ child, written });
      return child.process;
    });
    const heard: { startMs: number; samples: number }[] = [];
    player.listen({ write: (samples, _, startMs) => heard.push({ startMs, samples: samples.length }), drop: () => {} });
    const says = (text: string): void => void children[0]?.child.stderr.emit('data', Buffer.from(text));
    player.write(pcm(2000, 16000));
    says('Stream started.\n');
    at(500);
    says('Stream underrun.\n');
    at(520);
    player.pause();
    // Past the most a dry player is waited for: paused, nothing plays.
    at(1200);
    expect(player.playedSamples()).toBe(8000);
    player.resume();
    expect(children[1]?.written).toEqual([24_000]);
    expect(heard).toEqual([
      { startMs: 0, samples: 32_000 },
      { startMs: 1200, samples: 24_000 },
    ]);
  });

  it('a player that does not say when it plays on (aplay) is not waited for, though its buffer grows', () => {
    let now = 0;
    const children: { child: ExitingChild; args: readonly string[] }[] = [];
    const logger = createMemoryLogger();
    const time = { now: () => now, scheduler: asyncScheduler };
    const player = new CommandPlayer('aplay --buffer-time={bufferMs}000', 16000, logger, time, (_, args) => {
      const child = new ExitingChild();
      children.push({ child, args });
      return child.process;
    });
    player.write(pcm(2000, 16000));
    now = 500;
    children[0]?.child.stderr.emit('data', Buffer.from('underrun!!! (at least 41.234 ms long)\n'));
    now = 700;
    expect(player.playedSamples()).toBe(11_200);
    player.stop();
    player.write(pcm(100, 16000));
    expect(children.map(({ args }) => args)).toEqual([['--buffer-time=20000'], ['--buffer-time=40000']]);
    expect(logger.lines.filter((l) => l.event === 'player.underrun')).toHaveLength(1);
  });

  it('logs a command that cannot start, and keeps going', async () => {
    const logger = watchedLogger();
    const player = new CommandPlayer('no-such-player-binary -q', 16000, logger);
    player.write(pcm(100, 16000));
    expect(await logger.line('player.failed')).toMatchObject({ command: 'no-such-player-binary' });
    await player.close();
  });
});

/** A player process that the test ends: it exits with an error the moment it is told to. */
class ExitingChild extends EventEmitter {
  readonly stdin = Object.assign(new EventEmitter(), { write: (_pcm: Buffer): boolean => true, end: () => undefined });
  readonly stderr = new EventEmitter();
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;

  /** What CommandPlayer sees: the parts of a ChildProcess it uses. */
  get process(): ChildProcess {
    return this as unknown as ChildProcess;
  }

  fails(said: string): void {
    if (this.exitCode !== null) return;
    this.exitCode = 1;
    this.stderr.emit('data', Buffer.from(`${said}\n`));
    this.emit('close', 1, null);
  }

  kill(signal: NodeJS.Signals): boolean {
    this.signalCode = signal;
    this.emit('close', null, signal);
    return true;
  }
}

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
