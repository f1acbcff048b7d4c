import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import type { Logger } from '../system/logger.js';
import { bufferOf, resample, samplesOf } from './pcm.js';
import type { ClockedPlayer } from './player.js';
import { readPcm16Mono } from './wav-header.js';

export type EarconKind = 'listening' | 'thinking' | 'error' | 'alarm' | 'announce';
export const EARCON_DIR = join(PACKAGE_ROOT, 'assets', 'sounds');

/** Short sounds that say what hark is doing, for a user who cannot see it. */
export interface Earcons {
  play(kind: EarconKind): void;
}

export const silentEarcons: Earcons = { play: () => undefined };

/** The sounds in assets/sounds, at the player's rate; a missing file just stays silent. */
export function loadEarcons(player: ClockedPlayer, logger: Logger, dir = EARCON_DIR): Earcons {
  const sounds = new Map<EarconKind, Buffer>();
  for (const kind of ['listening', 'thinking', 'error', 'alarm', 'announce'] as const) {
    const path = join(dir, `${kind}.wav`);
    if (!existsSync(path)) continue;
    try {
      const { pcm, sampleRateHz } = readPcm16Mono(readFileSync(path));
      sounds.set(kind, bufferOf(resample(samplesOf(pcm), sampleRateHz, player.sampleRateHz)));
    } catch (error) {
      logger.warn('earcon.unusable', { path, error: (error as Error).message });
    }
  }
  return {
    play(kind) {
      const sound = sounds.get(kind);
      if (sound) player.write(sound);
    },
  };
}
