import {
  asyncScheduler,
  defer,
  from,
  map,
  mergeMap,
  range,
  take,
  timer,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
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

/** Emits PCM in `chunkMs` pieces; in real time, chunk n leaves at n * chunkMs from the start. */
export function pcmSource(pcm: Buffer, options: FileSourceOptions): Observable<Buffer> {
  const chunkBytes = bytesFor(options.chunkMs ?? 32, options.sampleRateHz);
  const count = Math.ceil(pcm.length / chunkBytes);
  const chunk = (i: number): Buffer => pcm.subarray(i * chunkBytes, (i + 1) * chunkBytes);
  if (!options.realtime) return range(0, count).pipe(map(chunk));
  return timer(0, options.chunkMs ?? 32, options.scheduler ?? asyncScheduler).pipe(take(count), map(chunk));
}
