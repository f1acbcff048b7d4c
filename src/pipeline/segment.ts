import { withLatestFrom, type Observable, type OperatorFunction } from 'rxjs';
import { Segmenter } from '../listen/segmenter.js';
import type { FrameContext, ScoredFrame, SegmenterConfig, SegmenterEvent } from '../listen/speech-events.js';
import { stateful } from './stateful.js';

/** Scored frames → speech, utterances and blips; `context` says per frame whether hark speaks and whether it listens. */
export function segment(
  config: SegmenterConfig,
  context: Observable<FrameContext>,
): OperatorFunction<ScoredFrame, SegmenterEvent> {
  return (frames) =>
    frames.pipe(
      withLatestFrom(context),
      stateful(() => {
        const segmenter = new Segmenter(config);
        return {
          push: ([frame, now]: [ScoredFrame, FrameContext]) => segmenter.push(frame, now),
          flush: () => segmenter.flush(),
        };
      }),
    );
}
