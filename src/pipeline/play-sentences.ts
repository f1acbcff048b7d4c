import { Observable, concat, concatMap, defer, ignoreElements, type OperatorFunction } from 'rxjs';
import type { Placement } from '../speak/heard.js';
import type { Sentence } from '../speak/sentences.js';
import type { Player } from './ports.js';
import type { Prefetched } from './prefetch-ahead.js';

/**
 * Writes each sentence's PCM to the player as it arrives, one sentence after another. The
 * next sentence is taken up when the queue runs low (not empty), so playback never gaps.
 * Emits the sentence's placement after every write, so the turn always knows what is where.
 */
export function playSentences(
  player: Player,
  lowWaterMs: number,
): OperatorFunction<Prefetched<Sentence, Buffer>, Placement> {
  return concatMap(({ item: sentence, output }) =>
    defer(() => {
      let startSample: number | undefined;
      const written = new Observable<Placement>((subscriber) =>
        output.subscribe({
          next: (pcm) => {
            startSample ??= player.writtenSamples();
            const endSample = player.write(pcm);
            subscriber.next({ sentence, startSample, endSample, final: false });
          },
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            const at = player.writtenSamples();
            subscriber.next({ sentence, startSample: startSample ?? at, endSample: at, final: true });
            subscriber.complete();
          },
        }),
      );
      return concat(written, player.queuedBelow(lowWaterMs).pipe(ignoreElements()));
    }),
  );
}
