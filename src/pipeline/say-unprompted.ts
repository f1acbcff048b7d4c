import { EMPTY, takeUntil, type Observable } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
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
  /** No turn under way and nothing sounding, as it is when each reader is told (see idleFeedback). */
  idle: Observable<boolean>;
  /** Told when a ring or a notice starts and stops sounding: what hears the room takes it as hark speaking. */
  sounding: (on: boolean) => void;
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
 * as long as there is input: timers and alarms rung, and the home's notices said. One that
 * starts to sound makes hark busy for the other at once.
 */
export function sayUnprompted(deps: UnpromptedDeps): {
  rings: Observable<RingEvent>;
  notices: Observable<NoticeEvent>;
} {
  const { inputEnded, config } = deps;
  const common: SaysWhenIdle = {
    idle: deps.idle.pipe(takeUntil(inputEnded)),
    stops: deps.stops,
    sounding: deps.sounding,
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
