import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { pageControls } from '../../../src/app/page-controls.js';
import type { VoiceLoop } from '../../../src/app/voice-loop.js';
import type { LoadedConfig } from '../../../src/config/load.js';
import { ClockedPlayer } from '../../../src/audio/player.js';
import type { Service } from '../../../src/service/index.js';
import { realClock } from '../../../src/system/clock.js';
import { silentLogger } from '../../../src/system/logger.js';

/** A player whose device refuses every write, always in the same words (aplay on a missing card), or takes them all. */
class TestPlayer extends ClockedPlayer {
  constructor(private readonly refuses: boolean) {
    super(24000, realClock, true);
  }
  protected output(): void {
    if (this.refuses) this.failed('aplay exited with 1: audio open error: No such device');
  }
  protected discard(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The page's controls on a loop that plays through `player`, its microphone muted as `mic` says. */
function controlsFor(player: ClockedPlayer, mic: { muted: boolean; set: boolean[] }) {
  const loop = {
    player,
    synthesizer: { synthesize: () => of(Buffer.alloc(4800)) },
    mute: (on: boolean) => {
      mic.muted = on;
      mic.set.push(on);
    },
    isMuted: () => mic.muted,
    about: { output: 'aplay' },
  } as unknown as VoiceLoop;
  const setup = {
    loaded: {} as LoadedConfig,
    service: {} as Service,
    hasKey: true,
    logger: silentLogger,
    voice: 'the system voice',
  };
  return pageControls(setup, () => loop, { state: () => 'listening', push: () => undefined });
}

describe('the status page voice test', () => {
  it('reports a failed playback every time, even when the player fails in the same words again', async () => {
    const controls = controlsFor(new TestPlayer(true), { muted: false, set: [] });
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
  });

  it('leaves the microphone as it found it: muted by Home Assistant, it stays muted after the test', async () => {
    const mic = { muted: true, set: [] as boolean[] };
    await controlsFor(new TestPlayer(false), mic).voiceTest('Testing.');
    expect(mic.set).toEqual([true, true]);
  });
});
