import { asyncScheduler } from 'rxjs';
import { ClockedPlayer } from '../../src/audio/player.js';
import type { EarconKind, Earcons } from '../../src/pipeline/ports.js';

/** A player that keeps what it was given, on a clock the test controls. */
export class FakePlayer extends ClockedPlayer {
  readonly writes: Buffer[] = [];
  stops = 0;
  pauses = 0;
  /** While set, nothing written sounds: a player waiting to start again after failing, in these words. */
  down: string | undefined;

  constructor(sampleRateHz: number, now: () => number) {
    super(sampleRateHz, { now, scheduler: asyncScheduler });
  }

  protected output(pcm: Buffer): void {
    this.writes.push(pcm);
  }

  protected override notPlaying(): string | undefined {
    return this.down;
  }

  /** The device fails now, as a player process that dies: what it had not played is lost. */
  die(why: string): void {
    this.failed(why);
  }

  protected discard(): void {
    this.stops++;
  }

  protected override hold(): void {
    this.pauses++;
  }

  async close(): Promise<void> {}
}

export class RecordingEarcons implements Earcons {
  readonly played: EarconKind[] = [];
  play(kind: EarconKind): void {
    this.played.push(kind);
  }
}

/** `ms` of PCM at `sampleRateHz`, filled with a marker value so tests can tell chunks apart. */
export function pcm(ms: number, sampleRateHz: number, marker = 1000): Buffer {
  const samples = new Int16Array(Math.round((ms / 1000) * sampleRateHz)).fill(marker);
  return Buffer.from(samples.buffer);
}
