import { EMPTY, map, merge, takeUntil, type BehaviorSubject, type Observable } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import type { AssistantState } from '../dialog/turn.js';
import type { NoticeEvent, RingEvent, RingStop } from './events.js';
import { shareWithoutReset } from './share-without-reset.js';
import type { Announcement, Earcons, Notice, Player, Synthesizer } from './ports.js';
import { ringAlarms, type SaysWhenIdle } from './ring-alarms.js';
import { sayNotices } from './say-notices.js';

export interface UnpromptedDeps {
  config: Pick<HarkConfig, 'tools' | 'listen'>;
  /** Timers and alarms as they fall due. */
  announcements?: Observable<Announcement> | undefined;
  /** What the home asks hark to say. */
  notices?: Observable<Notice> | undefined;
  /** What the loop is doing: nothing is said unprompted over a turn. */
  state: BehaviorSubject<AssistantState>;
  /** A ring or a notice sounding: set here, read by what hears the room and by the other. */
  sounding: BehaviorSubject<boolean>;
  /** What stops a ring or a notice under way. */
  stops: Observable<RingStop>;
  /** Emits once the input has ended: nothing more is said unprompted. */
  inputEnded: Observable<unknown>;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  now: () => number;
}

/**
 * What hark says without being asked, while no turn is under way and nothing else sounds, for
 * as long as there is input: timers and alarms rung, and the home's notices said. Idle as it is
 * when each reader is told (one that starts to sound makes it false for the next reader at once).
 */
export function sayUnprompted(deps: UnpromptedDeps): {
  rings: Observable<RingEvent>;
  notices: Observable<NoticeEvent>;
} {
  const { state, sounding, inputEnded, config } = deps;
  const idle = merge(state, sounding).pipe(
    map(() => state.value === 'listening' && !sounding.value),
    takeUntil(inputEnded),
  );
  const common: SaysWhenIdle = {
    idle,
    stops: deps.stops,
    sounding: (on: boolean) => sounding.next(on),
    synthesizer: deps.synthesizer,
    player: deps.player,
    earcons: deps.earcons,
  };
  const rings = deps.announcements
    ? ringAlarms({
        ...common,
        announcements: deps.announcements.pipe(takeUntil(inputEnded)),
        maxMs: config.tools.timers.ringMaxMs,
        repeatPauseMs: config.tools.timers.repeatPauseMs,
      }).pipe(shareWithoutReset())
    : EMPTY;
  const notices = deps.notices
    ? sayNotices({
        ...common,
        notices: deps.notices.pipe(takeUntil(inputEnded)),
        answerWithinMs: config.listen.followUpMs,
        now: deps.now,
      }).pipe(shareWithoutReset())
    : EMPTY;
  return { rings, notices };
}
