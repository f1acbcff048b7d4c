import { Observable, asyncScheduler, defer, from, map, mergeMap, range, type SchedulerLike } from 'rxjs';
import { decodeFileToPcm } from './ffmpeg.js';
import { bytesFor } from './pcm.js';

export interface FileSourceOptions {
  sampleRateHz: number;
  /** Paced as if spoken now (the default), or as fast as the pipeline takes it. */
  realtime: boolean;
  chunkMs?: number;
  scheduler?: SchedulerLike;
}

/** Any audio file ffmpeg reads, as 16-bit mono PCM chunks, in real time or all at once. */
export function fileSource(path: string, options: FileSourceOptions): Observable<Buffer> {
  const chunkMs = options.chunkMs ?? 32;
  return defer(() => from(decodeFileToPcm(path, options.sampleRateHz))).pipe(
    mergeMap((pcm) => pcmSource(pcm, { ...options, chunkMs })),
  );
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
