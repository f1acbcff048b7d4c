/**
 * Audio a player took and that will not sound: the player could not start, died, or was
 * waiting to start again after failing. It covers the player's timeline from `fromSample` up to
 * (not including) `toSample`: what a turn placed there was never heard.
 */
export class PlaybackError extends Error {
  override readonly name = 'PlaybackError';
  constructor(
    message: string,
    readonly fromSample: number,
    readonly toSample: number,
  ) {
    super(message);
  }
}

/** What to do when hark cannot play: every message about a failing player ends with it. */
export const PLAYBACK_FIX =
  'list the output devices with `hark devices` and set audio.playbackDevice (HARK_AUDIO_PLAYBACK_DEVICE), or write what hark says to a file with -o FILE.wav';
