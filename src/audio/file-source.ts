import {
  Observable,
  asyncScheduler,
  defer,
  from,
  map,
  mergeMap,
  range,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import { decodeStream } from './decode-stream.js';
import { decodeFileToPcm } from './ffmpeg.js';
import { bytesFor } from './pcm.js';

export interface FileSourceOptions {
  sampleRateHz: number;
  /** Paced as if spoken now (the default), or as fast as the pipeline takes it. */
  realtime: boolean;
  chunkMs?: number;
  scheduler?: SchedulerLike;
}

/**
 * Any audio file ffmpeg reads, as 16-bit mono PCM chunks. In real time it is decoded as it is
 * played, so hark holds a few seconds of it, not the whole file (an hour is 115 MB); as fast as
 * the pipeline takes it, it is decoded whole first.
 */
export function fileSource(path: string, options: FileSourceOptions): Observable<Buffer> {
  const paced = { ...options, chunkMs: options.chunkMs ?? 32 };
  if (options.realtime) return streamedSource(path, paced);
  return defer(() => from(decodeFileToPcm(path, options.sampleRateHz))).pipe(mergeMap((pcm) => pcmSource(pcm, paced)));
}

/**
 * Emits PCM in `chunkMs` pieces. In real time, chunk n leaves at start + (n + 1) * chunkMs:
 * when a microphone would have finished capturing it, measured from the start, since a chained
 * interval would drift and stream time would stop matching wall time.
 */
export function pcmSource(pcm: Buffer, options: FileSourceOptions): Observable<Buffer> {
  const chunkMs = options.chunkMs ?? 32;
  const chunkBytes = bytesFor(chunkMs, options.sampleRateHz);
  const count = Math.ceil(pcm.length / chunkBytes);
  const chunk = (i: number): Buffer => pcm.subarray(i * chunkBytes, (i + 1) * chunkBytes);
  if (!options.realtime) return range(0, count).pipe(map(chunk));
  const scheduler = options.scheduler ?? asyncScheduler;
  return new Observable<Buffer>((subscriber) => {
    const startedAt = scheduler.now();
    let next = 0;
    return scheduler.schedule(function tick() {
      while (next < count && scheduler.now() >= startedAt + (next + 1) * chunkMs) subscriber.next(chunk(next++));
      if (next >= count) subscriber.complete();
      else this.schedule(undefined, Math.max(0, startedAt + (next + 1) * chunkMs - scheduler.now()));
    });
  });
}

/**
 * The file decoded as it is read, paced as pcmSource paces it (from the first decoded piece):
 * ffmpeg waits while a chunk waits for its time, so what is held stays one read's worth.
 */
function streamedSource(path: string, options: FileSourceOptions & { chunkMs: number }): Observable<Buffer> {
  const { chunkMs, sampleRateHz } = options;
  const scheduler = options.scheduler ?? asyncScheduler;
  const chunkBytes = bytesFor(chunkMs, sampleRateHz);
  return new Observable<Buffer>((subscriber) => {
    const stop = new AbortController();
    const until = waiter(scheduler, stop.signal);
    const play = async (): Promise<void> => {
      let startedAt: number | undefined;
      let sent = 0;
      let rest = Buffer.alloc(0);
      const send = async (chunk: Buffer): Promise<void> => {
        startedAt ??= scheduler.now();
        await until(startedAt + (sent + 1) * chunkMs);
        if (stop.signal.aborted) return;
        subscriber.next(chunk);
        sent++;
      };
      for await (const piece of decodeStream(path, sampleRateHz, stop.signal)) {
        // The piece is a view into decodeStream's buffer, reused for the next one: copied here.
        let pending = Buffer.concat([rest, piece]);
        while (pending.length >= chunkBytes && !stop.signal.aborted) {
          await send(pending.subarray(0, chunkBytes));
          pending = pending.subarray(chunkBytes);
        }
        if (stop.signal.aborted) return;
        rest = Buffer.from(pending);
      }
      if (rest.length > 0) await send(rest);
    };
    play().then(
      () => subscriber.complete(),
      (error: unknown) => {
        if (!stop.signal.aborted) subscriber.error(error);
      },
    );
    return () => stop.abort();
  });
}

/**
 * Waits on the scheduler's clock: `until(time)` resolves then, or when stopped; at once (no timer)
 * when that has passed. One abort listener for all the waits of a file, not one a chunk.
 */
function waiter(scheduler: SchedulerLike, stop: AbortSignal): (time: number) => Promise<void> | void {
  let waiting: { timer: Subscription; resolve: () => void } | undefined;
  stop.addEventListener(
    'abort',
    () => {
      waiting?.timer.unsubscribe();
      waiting?.resolve();
    },
    { once: true },
  );
  return (time) => {
    const wait = time - scheduler.now();
    if (wait <= 0 || stop.aborted) return;
    return new Promise((resolve) => {
      const timer = scheduler.schedule(() => {
        waiting = undefined;
        resolve();
      }, wait);
      waiting = { timer, resolve };
    });
  };
}
