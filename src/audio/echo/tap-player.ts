import { samplesOf } from '../pcm.js';
import type { EchoReference } from './echo-reference.js';

/** What the tap needs of a player: its clock (see ClockedPlayer) and the two calls that change what will sound. */
export interface TappablePlayer {
  readonly sampleRateHz: number;
  write(pcm: Buffer): number;
  writtenSamples(): number;
  playedSamples(): number;
  stop(): void;
}

/**
 * The same player, with everything written to it (replies and earcons alike) also handed to
 * the echo reference, placed where the player's clock says it will sound; `stop` drops the
 * unplayed part from the reference too. `now` must be the clock the player's clock runs on.
 */
export function tapPlayer<P extends TappablePlayer>(player: P, reference: EchoReference, now: () => number): P {
  const write = (pcm: Buffer): number => {
    if (pcm.length < 2) return player.write(pcm);
    const queued = player.writtenSamples() - player.playedSamples();
    const startMs = now() + (queued / player.sampleRateHz) * 1000;
    const end = player.write(pcm);
    reference.write(samplesOf(pcm), player.sampleRateHz, startMs);
    return end;
  };
  const stop = (): void => {
    player.stop();
    reference.drop(now());
  };
  return new Proxy(player, {
    get(target, property, receiver) {
      if (property === 'write') return write;
      if (property === 'stop') return stop;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
