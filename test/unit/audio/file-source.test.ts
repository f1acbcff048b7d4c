import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type * as FsPromises from 'node:fs/promises';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subscription, type Observable, type SchedulerAction, type SchedulerLike } from 'rxjs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { decodeFileToPcm } from '../../../src/audio/ffmpeg.js';
import { fileSource } from '../../../src/audio/file-source.js';
import type * as Spawn from '../../../src/system/spawn.js';
import { spawnChild } from '../../../src/system/spawn.js';
import { MONOLOGUE, UTTERANCE } from '../../helpers/speech.js';

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof FsPromises>();
  return { ...real, open: vi.fn(real.open) };
});
vi.mock('../../../src/system/spawn.js', async (original) => {
  const real = await original<typeof Spawn>();
  return { ...real, spawnChild: vi.fn(real.spawnChild) };
});

/** A clock that moves only to its next timer, or when a test moves it: nothing sleeps. */
class TestClock implements SchedulerLike {
  time = 0;
  private timers: { at: number; run: () => void }[] = [];
  private waiter: (() => void) | undefined;

  now(): number {
    return this.time;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    // fileSource's timers use neither `this` nor rescheduling.
    const timer = { at: this.time + delay, run: () => work.call(undefined as unknown as SchedulerAction<T>, state) };
    this.timers.push(timer);
    this.waiter?.();
    return new Subscription(() => (this.timers = this.timers.filter((t) => t !== timer)));
  }

  /** Runs the earliest timer, the clock moved to it (never back). */
  runNext(): void {
    const next = this.timers.reduce((a, b) => (b.at < a.at ? b : a));
    this.timers = this.timers.filter((t) => t !== next);
    this.time = Math.max(this.time, next.at);
    next.run();
  }

  get waiting(): number {
    return this.timers.length;
  }

  waited(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

interface Heard {
  chunks: Buffer[];
  at: number[];
  error?: Error;
}

/**
 * Listens on a test clock. `onChunk` may move the clock, or return true to stop listening: the
 * listener then unsubscribes while the source waits for its next chunk's time.
 */
async function hear(
  source: (clock: TestClock) => Observable<Buffer>,
  onChunk: (n: number, clock: TestClock) => boolean | void = () => undefined,
): Promise<Heard> {
  const clock = new TestClock();
  const heard: Heard = { chunks: [], at: [] };
  let done = false;
  let stopping = false;
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const end = (): void => {
    done = true;
    finish();
  };
  const subscription = source(clock).subscribe({
    next: (chunk) => {
      heard.chunks.push(Buffer.from(chunk));
      heard.at.push(clock.now());
      if (onChunk(heard.chunks.length - 1, clock) === true) stopping = true;
    },
    error: (error: Error) => {
      heard.error = error;
      end();
    },
    complete: end,
  });
  while (!done) {
    if (stopping && clock.waiting > 0) {
      subscription.unsubscribe();
      break;
    }
    if (clock.waiting === 0) await Promise.race([clock.waited(), finished]);
    else clock.runNext();
  }
  return heard;
}

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('fileSource in real time', () => {
  it('gives the whole file, in 32 ms chunks, each when a microphone would have captured it', async () => {
    const whole = await decodeFileToPcm(UTTERANCE, 16000);
    const heard = await hear((clock) =>
      fileSource(UTTERANCE, { sampleRateHz: 16000, realtime: true, scheduler: clock }),
    );
    expect(heard.error).toBeUndefined();
    expect(Buffer.concat(heard.chunks).equals(whole)).toBe(true);
    expect(heard.chunks.slice(0, -1).every((chunk) => chunk.length === 1024)).toBe(true);
    expect(heard.at).toEqual(heard.chunks.map((_, n) => (n + 1) * 32));
  });

  it('sends what is late at once, then keeps to the time from the start, not from the delay', async () => {
    const heard = await hear(
      (clock) => fileSource(UTTERANCE, { sampleRateHz: 8000, realtime: true, scheduler: clock }),
      (n, clock) => {
        if (n === 2) clock.time += 200;
        return n === 12;
      },
    );
    // Chunks 3 to 8 were due by 296 ms (96 + the 200 the listener was held up): sent then.
    expect(heard.at).toEqual([32, 64, 96, 296, 296, 296, 296, 296, 296, 320, 352, 384, 416]);
  });

  it('closes a WAV it reads itself once the listener unsubscribes', async () => {
    vi.mocked(spawnChild).mockClear();
    vi.mocked(open).mockClear();
    const heard = await hear(
      (clock) => fileSource(UTTERANCE, { sampleRateHz: 8000, realtime: true, scheduler: clock }),
      (n) => n === 4,
    );
    expect(heard.chunks).toHaveLength(5);
    expect(spawnChild).not.toHaveBeenCalled();
    // Held here, the handle cannot be closed by the garbage collector: only by hark.
    const handle = (await vi.mocked(open).mock.results[0]?.value) as FileHandle;
    for (let round = 0; handle.fd !== -1 && round < 1000; round++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(handle.fd).toBe(-1);
  });

  it('stops ffmpeg once the listener unsubscribes', async () => {
    vi.mocked(spawnChild).mockClear();
    const heard = await hear(
      (clock) => fileSource(MONOLOGUE, { sampleRateHz: 16000, realtime: true, scheduler: clock }),
      (n) => n === 4,
    );
    expect(heard.chunks).toHaveLength(5);
    // 71 s of PCM does not fit the socket: ffmpeg ends only when it is stopped.
    const ffmpeg = vi.mocked(spawnChild).mock.results[0]?.value as ChildProcess;
    await new Promise((resolve) =>
      ffmpeg.exitCode !== null || ffmpeg.signalCode !== null ? resolve(undefined) : ffmpeg.once('close', resolve),
    );
    expect(ffmpeg.signalCode).toBe('SIGKILL');
  });

  it("fails with ffmpeg's words for a file that is not audio", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-file-source-'));
    dirs.push(dir);
    const path = join(dir, 'notes.wav');
    writeFileSync(path, 'these are notes, not audio');
    const heard = await hear((clock) => fileSource(path, { sampleRateHz: 16000, realtime: true, scheduler: clock }));
    expect(heard.chunks).toHaveLength(0);
    expect(heard.error?.message).toMatch(/ffmpeg failed \(exit \d+\): .*notes\.wav/);
  });
});
