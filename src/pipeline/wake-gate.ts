import {
  Subscription,
  concatMap,
  defer,
  finalize,
  from,
  of,
  withLatestFrom,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { AssistantState } from '../dialog/turn.js';
import type { Utterance } from '../listen/speech-events.js';
import type { ListenEvent } from './events.js';
import type { WakeWordDetection, WakeWordDetector } from './ports.js';

export interface WakeGateOptions {
  detector: WakeWordDetector;
  /** Speech after the wake word shorter than this is the wake word alone: no command in it. */
  minSpeechMs: number;
  /** While hark is busy, speech goes through anyway (`any-speech`: "stop" works), or only after a wake word. */
  bargeIn: 'any-speech' | 'wake-word';
}

/** What the gate needs to know as each utterance ends. */
export interface WakeGateContext {
  state: AssistantState;
  /** The follow-up window after a reply (or a lone wake word) is open. */
  followUp: boolean;
}

/**
 * Nothing leaves the room until the wake word is said: utterances (and guesses at a pause) pass
 * only when a wake word ended inside them (cut where it ended, so the command is what follows),
 * in the follow-up window, or while hark is busy (unless barge-in needs the wake word too).
 * Speech heard otherwise becomes `no-wake-word` and is never sent anywhere. Every other event
 * passes in order; an utterance in which no wake word was heard yet waits until the detector
 * has scored all audio up to it. A detector that cannot hear (see WakeWordDetector.failedToLoad)
 * lets every utterance through.
 */
export function wakeGate(
  options: WakeGateOptions,
  context: Observable<WakeGateContext>,
): OperatorFunction<ListenEvent, ListenEvent> {
  return (events) =>
    defer(() => {
      const heard: WakeWordDetection[] = [];
      const listening = new Subscription();
      listening.add(options.detector.detections.subscribe((detection) => heard.push(detection)));
      const heardIn = (utterance: Utterance): WakeWordDetection | undefined => {
        const startMs = utterance.endMs - (utterance.samples.length / utterance.sampleRateHz) * 1000;
        return heard.filter((d) => d.endMs >= startMs && d.endMs <= utterance.endMs).at(-1);
      };
      const decide = (utterance: Utterance, now: WakeGateContext, type: 'utterance' | 'tentative'): ListenEvent[] => {
        if (options.detector.failedToLoad) return [{ type, utterance }];
        const wake = heardIn(utterance);
        if (wake && type === 'utterance') heard.splice(0, heard.indexOf(wake) + 1);
        const open = now.followUp || (now.state !== 'listening' && options.bargeIn === 'any-speech');
        if (!wake && !open)
          return [{ type: 'no-wake-word', utteranceId: utterance.id, tentative: type === 'tentative' }];
        const command = wake ? after(utterance, wake.endMs) : utterance;
        const speechMs = (command.samples.length / command.sampleRateHz) * 1000;
        // The wake word alone: hark has acknowledged it, and listens for the command that follows.
        if (wake && speechMs < options.minSpeechMs) return [];
        return [{ type, utterance: command }];
      };
      return events.pipe(
        withLatestFrom(context),
        concatMap(([event, now]) => {
          if (event.type !== 'utterance' && event.type !== 'tentative') return of(event);
          // A wake word heard in it already decides: a detector behind the microphone (a slow
          // board, after scoring the wake word finely) is not waited for to score the rest.
          const drained = heardIn(event.utterance) ? undefined : options.detector.drain();
          const decided = (): ListenEvent[] => decide(event.utterance, now, event.type);
          return drained ? from(drained).pipe(concatMap(decided)) : of(...decided());
        }),
        finalize(() => listening.unsubscribe()),
      );
    });
}

/** The part of an utterance after `fromMs` (stream time): the command said after the wake word. */
function after(utterance: Utterance, fromMs: number): Utterance {
  const startMs = utterance.endMs - (utterance.samples.length / utterance.sampleRateHz) * 1000;
  const cut = Math.max(0, Math.round(((fromMs - startMs) / 1000) * utterance.sampleRateHz));
  return { ...utterance, samples: utterance.samples.subarray(cut), onsetMs: Math.max(utterance.onsetMs, fromMs) };
}
