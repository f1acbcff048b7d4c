import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NEVER, tap, type Observable } from 'rxjs';
import { loadEarcons, silentEarcons } from '../../dist/audio/earcons.js';
import { FilePlayer } from '../../dist/audio/file-player.js';
import { pcmSource } from '../../dist/audio/file-source.js';
import { bufferOf } from '../../dist/audio/pcm.js';
import { defaultConfig, type HarkConfig } from '../../dist/config/schema.js';
import { SileroVad } from '../../dist/listen/silero-vad.js';
import { assistant } from '../../dist/pipeline/assistant.js';
import type { AssistantEvent } from '../../dist/pipeline/events.js';
import { servicePorts } from '../../dist/app/adapters/service-ports.js';
import { warmUp } from '../../dist/app/compose/warm-up.js';
import type { Turn } from '../../dist/dialog/turn.js';
import { createService, type Service } from '../../dist/service/index.js';
import type { SimTiming } from '../../dist/sim/sim-context.js';
import type { SimOptions } from '../../dist/sim/server.js';
import { afterIo } from '../../dist/system/after-io.js';
import { silentLogger } from '../../dist/system/logger.js';
import { RemoteSim } from './sim-client.js';
import { monotonicMs } from './stats.js';

export interface Loop {
  sim: RemoteSim;
  /** The voice loop's events; subscribing runs it. */
  events: Observable<AssistantEvent>;
  /** When the first audio chunk arrived, less its duration: stream time 0 as monotonic ms. */
  inputStartedAt(): number | undefined;
  player: FilePlayer;
  service: Service;
  config: HarkConfig;
  outcomes: Turn[];
  completedTurns(): number;
  close(): Promise<void>;
}

/** hark's real voice loop (Silero, service clients, file player) against a stand-in in its own process. */
export async function startLoop(options: {
  timing: Partial<SimTiming>;
  /** The stand-in's voice: espeak-ng where installed (auto), or its synthetic one, made in no time. */
  voice?: SimOptions['voice'];
  source: (realtime: boolean) => Observable<Buffer>;
  realtime: boolean;
  earcons?: boolean;
  /** Keep every turn's outcome (false: only count them, so the benchmark itself holds no memory per turn). */
  keepOutcomes?: boolean;
  /** Settings other than the defaults, for comparing them. */
  adjust?: (config: HarkConfig) => void;
}): Promise<Loop> {
  const sim = await RemoteSim.start({ timing: options.timing, voice: options.voice });
  const config = defaultConfig();
  options.adjust?.(config);
  const service = createService(config, { baseUrl: sim.url, apiKey: sim.apiKey }, silentLogger);
  // As the daemon starts: what the first turn needs is built before listening.
  await warmUp(config);
  const vad = await SileroVad.load({ capDbfs: config.vad.energyGateDbfs, marginDb: config.vad.gateMarginDb });
  const player = new FilePlayer(
    join(mkdtempSync(join(tmpdir(), 'hark-bench-')), 'out.wav'),
    config.speech.sampleRateHz,
    options.realtime,
  );
  const outcomes: Turn[] = [];
  let counted = 0;
  let startedAt: number | undefined;
  const events = options.source(options.realtime).pipe(
    tap((chunk) => (startedAt ??= monotonicMs() - (chunk.length / 2 / 16000) * 1000)),
    assistant({
      config,
      vad,
      ...servicePorts(service, config),
      player,
      earcons: options.earcons === false ? silentEarcons : loadEarcons(player, silentLogger),
      logger: silentLogger,
      queue: !options.realtime,
      shutdown: NEVER,
      afterIo,
      now: monotonicMs,
    }),
    tap((event) => {
      if (event.type !== 'turn') return;
      counted++;
      if (options.keepOutcomes !== false) outcomes.push(event.turn);
    }),
  );
  return {
    sim,
    events,
    inputStartedAt: () => startedAt,
    player,
    service,
    config,
    outcomes,
    completedTurns: () => counted,
    async close() {
      await player.close();
      await vad.close();
      await service.close();
      sim.close();
    },
  };
}

/** A paced or unpaced PCM source of the given samples. */
export function samplesSource(samples: Int16Array): (realtime: boolean) => Observable<Buffer> {
  return (realtime) => pcmSource(bufferOf(samples), { sampleRateHz: 16000, realtime });
}

export function runToEnd(loop: Loop): Promise<void> {
  return new Promise((resolve, reject) => loop.events.subscribe({ complete: resolve, error: reject }));
}
