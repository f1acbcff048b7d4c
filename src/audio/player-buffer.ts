/**
 * How much audio a player command asks its sound server to hold ahead (`{bufferMs}` in the
 * command): little, so that hark's voice starts at once; more each time the player ran dry while
 * hark had given it plenty. A player that is not woken within its buffer (a small board short of
 * CPU) leaves a gap in the voice, and everything after it sounds later than hark's clock says:
 * on a board emulated at 7 % of a core a 20 ms pacat ran dry about once a second of speech.
 */
export const PLAYER_BUFFER = { startMs: 20, mostMs: 160 };

/**
 * A player that says it ran dry with at least this much still queued on hark's clock was starved,
 * not finished: at the end of a reply, or between sentences that came late, hark's queue is empty.
 */
const STARVED_WITH_MS = 100;

/** What a player command says about running dry: pacat --verbose, `Stream underrun.`; aplay, `underrun!!!`. */
const RAN_DRY = /underrun/i;
/** pacat --verbose's account of itself, which is no reason for a failure. */
const CHATTER =
  /^(Time: .*|Stream (started|underrun)\.|Connection established\.|Stream successfully created\.|Buffer metrics: .*|Using sample spec .*|Connected to device .*|Opening a .*)$/;

export class PlayerBuffer {
  private current: number;

  constructor(
    startMs = PLAYER_BUFFER.startMs,
    private readonly mostMs = PLAYER_BUFFER.mostMs,
  ) {
    this.current = startMs;
  }

  get ms(): number {
    return this.current;
  }

  /** The player was starved: the next one asks for twice as much, up to the most. Returns that. */
  grow(): number {
    this.current = Math.min(this.mostMs, this.current * 2);
    return this.current;
  }
}

/** A player that ran dry with `queuedMs` left on hark's clock was starved (not finished). */
export function starved(queuedMs: number): boolean {
  return queuedMs >= STARVED_WITH_MS;
}

/** pacat --verbose, when it starts to play and when it plays on after running dry. */
const PLAYS = /Stream started\./;

/** What a player said of its playing, in order. */
export type PlayerNews = 'ran dry' | 'plays';

/** What a player wrote on stderr: what it said of its playing, and the rest, for a failure's message. */
export function playerSaid(chunk: string): { news: PlayerNews[]; rest: string } {
  const lines = chunk
    .replaceAll('\u001b[K', '')
    .split(/[\r\n]+/)
    .map((line) => line.trim());
  const news = lines.flatMap((line): PlayerNews[] =>
    RAN_DRY.test(line) ? ['ran dry'] : PLAYS.test(line) ? ['plays'] : [],
  );
  const rest = lines
    .filter((line) => line && !CHATTER.test(line))
    .map((line) => `${line}\n`)
    .join('');
  return { news, rest };
}
