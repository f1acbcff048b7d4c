import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { pageControls, playerNow } from '../../../../src/app/page/page-controls.js';
import type { VoiceLoop } from '../../../../src/app/compose/voice-loop.js';
import type { LoadedConfig } from '../../../../src/config/load.js';
import { PLAYBACK_FIX } from '../../../../src/audio/playback-error.js';
import { ClockedPlayer } from '../../../../src/audio/player.js';
import { defaultConfig } from '../../../../src/config/schema.js';
import { INPUT_ENDED, type PageEvent } from '../../../../src/web/page-json.js';
import type { Service } from '../../../../src/service/index.js';
import { realClock } from '../../../../src/system/clock.js';
import { silentLogger } from '../../../../src/system/logger.js';

/** A player that plays every write at once. */
class PlayingPlayer extends ClockedPlayer {
  constructor() {
    super(24000, realClock, true);
  }
  protected output(): void {}
  protected discard(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

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

/** A loop playing through `player`, its synthesizer saying 0.1 s of anything, its microphone muted as `mic` says. */
function loopWith(player: ClockedPlayer, mic = { muted: false, set: [] as boolean[] }): VoiceLoop {
  return {
    player,
    synthesizer: { synthesize: () => of(Buffer.alloc(4800)) },
    mute: (on: boolean) => {
      mic.muted = on;
      mic.set.push(on);
    },
    isMuted: () => mic.muted,
    about: { output: 'aplay', input: 'microphone (arecord)' },
    lastAudioAt: () => performance.now(),
  } as unknown as VoiceLoop;
}

const setup = {
  loaded: { config: defaultConfig(), sources: ['default.yaml'], apiKey: 'k', webToken: undefined } as LoadedConfig,
  service: {} as Service,
  hasKey: true,
  logger: silentLogger,
  voice: 'the system voice',
};

describe('the status page voice test', () => {
  it('reports a failed playback every time, even when the player fails in the same words again', async () => {
    const loop = loopWith(new RefusingPlayer());
    const controls = pageControls(setup, () => loop, { state: () => 'listening', push: () => undefined });
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
    await expect(controls.voiceTest(undefined)).rejects.toThrow(/playback failed: aplay exited with 1/);
  });

  it('a failed test is an entry of the conversation, with the fix, not only a line in the log', async () => {
    const loop = loopWith(new RefusingPlayer());
    const pushed: PageEvent[] = [];
    const controls = pageControls(setup, () => loop, { state: () => 'listening', push: (e) => pushed.push(e) });
    await expect(controls.voiceTest('Hi.')).rejects.toThrow();
    expect(pushed).toEqual([
      {
        type: 'voice-test',
        text: 'Hi.',
        voice: 'the system voice',
        player: 'aplay',
        failed: 'playback failed: aplay exited with 1: audio open error: No such device',
        fix: PLAYBACK_FIX,
      },
    ]);
  });

  it('leaves the microphone as it found it: muted by Home Assistant, it stays muted after the test', async () => {
    const mic = { muted: true, set: [] as boolean[] };
    const loop = loopWith(new PlayingPlayer(), mic);
    await pageControls(setup, () => loop, { state: () => 'listening', push: () => undefined }).voiceTest('Testing.');
    expect(mic.set).toEqual([true, true]);
  });

  it('plays once a file run’s input has ended: its player stays open for it', async () => {
    const player = new PlayingPlayer();
    const controls = pageControls(setup, () => loopWith(player), { state: () => INPUT_ENDED, push: () => undefined });
    await expect(controls.voiceTest('Hi.')).resolves.toMatchObject({ text: 'Hi.', playedMs: 100 });
  });
});

describe('the status page panels', () => {
  it('the configuration under --sim shows the stand-in hark talks to, not the configured service', () => {
    const sim = { url: 'http://127.0.0.1:40123' };
    const controls = pageControls({ ...setup, sim }, () => undefined, {
      state: () => 'listening',
      push: () => undefined,
    });
    const shown = controls.config() as { read: string[]; config: { service: { baseUrl: string } } };
    expect(shown.config.service.baseUrl).toBe(sim.url);
    expect(shown.read.at(-1)).toMatch(/--sim/);
  });

  it("the doctor's row for a failing player gives the fix, not a log event to look for", () => {
    const player = new RefusingPlayer();
    player.write(Buffer.alloc(4800));
    expect(playerNow(loopWith(player))).toEqual({
      check: 'player',
      status: 'fail',
      detail: 'aplay: aplay exited with 1: audio open error: No such device',
      fix: PLAYBACK_FIX,
    });
  });
});
