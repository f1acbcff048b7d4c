import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VirtualTimeScheduler, type Observable, type SchedulerAction, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { decodeFileToPcm } from '../../../src/audio/ffmpeg.js';
import { fileSource } from '../../../src/audio/file-source.js';
import { UTTERANCE } from '../../helpers/speech.js';

interface Heard {
  chunks: Buffer[];
  at: number[];
  error?: Error;
}

/** A virtual clock that says when something waits on it, so a test can run the timer at once. */
class JumpingClock extends VirtualTimeScheduler {
  private waiter: (() => void) | undefined;

  override schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
    const scheduled = super.schedule(work, delay, state);
    this.waiter?.();
    return scheduled;
  }

  waited(): Promise<void> {
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

/** Subscribes on a jumping clock (time moves to each timer at once, nothing sleeps); stops after `take` chunks when given. */
async function hear(source: (scheduler: VirtualTimeScheduler) => Observable<Buffer>, take = Infinity): Promise<Heard> {
  const clock = new JumpingClock();
  const heard: Heard = { chunks: [], at: [] };
  let finish = (): void => undefined;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let done = false;
  const end = (): void => {
    done = true;
    finish();
  };
  const subscription = source(clock).subscribe({
    next: (chunk) => {
      heard.chunks.push(Buffer.from(chunk));
      heard.at.push(clock.now());
      if (heard.chunks.length >= take) {
        end();
        queueMicrotask(() => subscription.unsubscribe());
      }
    },
    error: (error: Error) => {
      heard.error = error;
      end();
    },
    complete: end,
  });
  while (!done) {
    if (clock.actions.length === 0) await Promise.race([clock.waited(), finished]);
    clock.flush();
  }
  return heard;
}

describe('fileSource in real time', () => {
  it('gives the whole file, in 32 ms chunks, each when a microphone would have captured it', async () => {
    const whole = await decodeFileToPcm(UTTERANCE, 16000);
    const heard = await hear((scheduler) => fileSource(UTTERANCE, { sampleRateHz: 16000, realtime: true, scheduler }));
    expect(heard.error).toBeUndefined();
    expect(Buffer.concat(heard.chunks).equals(whole)).toBe(true);
    expect(heard.chunks.slice(0, -1).every((chunk) => chunk.length === 1024)).toBe(true);
    const start = (heard.at[0] as number) - 32;
    expect(heard.at).toEqual(heard.chunks.map((_, n) => start + (n + 1) * 32));
  });

  it('sends nothing more, and no error, once the listener unsubscribes', async () => {
    const heard = await hear(
      (scheduler) => fileSource(UTTERANCE, { sampleRateHz: 16000, realtime: true, scheduler }),
      5,
    );
    expect(heard.chunks).toHaveLength(5);
    expect(heard.error).toBeUndefined();
  });

  it("fails with ffmpeg's words for a file that is not audio", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hark-file-source-')), 'notes.wav');
    writeFileSync(path, 'these are notes, not audio');
    const heard = await hear((scheduler) => fileSource(path, { sampleRateHz: 16000, realtime: true, scheduler }));
    expect(heard.chunks).toHaveLength(0);
    expect(heard.error?.message).toMatch(/ffmpeg failed \(exit \d+\): .*notes\.wav/);
  });
});
