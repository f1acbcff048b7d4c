import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { pageControls } from '../../../src/app/page-controls.js';
import type { VoiceLoop } from '../../../src/app/voice-loop.js';
import type { LoadedConfig } from '../../../src/config/load.js';
import { ClockedPlayer } from '../../../src/audio/player.js';
import type { Service } from '../../../src/service/index.js';
import { realClock } from '../../../src/system/clock.js';
import { silentLogger } from '../../../src/system/logger.js';

/** A player whose device refuses every write, always in the same words (aplay on a missing card). */
class RefusingPlayer extends ClockedPlayer {
  constructor() {
    super(24000, realClock, true);
  }
  protected output(): void {
    this.failed('aplay exited with 1: audio open error: No such device');
  }
  protected discard(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('the status page voice test', () => {
  it('reports a failed playback every time, even when the player fails in the same words again', async () => {
    const player = new RefusingPlayer();
    const loop = {
      player,
      synthesizer: { synthesize: () => of(Buffer.alloc(4800)) },
      mute: () => undefined,
      about: { output: 'aplay' },
    } as unknown as VoiceLoop;
    const setup = {
      loaded: {} as LoadedConfig,
      service: {} as Service,
      hasKey: true,
      logger: silentLogger,
      voice: 'the system voice',
    };
    const controls = pageControls(setup, () => loop, { state: () => 'listening', push: () => undefined });
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
  });
});
