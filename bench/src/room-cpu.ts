/**
 * CPU of listening in the room: the microphone audio of a room loop run, with everything its
 * player told the echo reference, run again through the listening half alone (echo canceller,
 * Silero VAD with the own-voice test, segmenter: the real operators), frame by frame in the
 * order and at the times they happened. Process CPU time (all threads: onnxruntime's too) over
 * the audio's duration.
 */
import { Subject, type Subscription } from 'rxjs';
import { AcousticEchoCanceller, ECHO_FRAME_SAMPLES } from '../../dist/audio/echo/echo-canceller.js';
import type { Frame } from '../../dist/audio/frames.js';
import { defaultConfig } from '../../dist/config/schema.js';
import type { AssistantState } from '../../dist/dialog/turn.js';
import { SileroVad } from '../../dist/listen/silero-vad.js';
import { cancelEcho } from '../../dist/pipeline/cancel-echo.js';
import type { Vad } from '../../dist/pipeline/ports.js';
import { scoreVoice } from '../../dist/pipeline/score-voice.js';
import { segment } from '../../dist/pipeline/segment.js';
import { silentLogger } from '../../dist/system/logger.js';
import { FRAME, FRAME_MS, RATE, type ReferenceEvent } from './room-loop.js';

export interface ListeningCpu {
  audioMs: number;
  cpuMs: number;
  /** Share of one core, %, and audio time per CPU time. */
  cpuPercent: number;
  realTimeFactor: number;
}

export async function listeningCpu(
  recording: { mic: Int16Array[]; reference: ReferenceEvent[] },
  states: AssistantState[],
): Promise<ListeningCpu> {
  const config = defaultConfig();
  const canceller = await AcousticEchoCanceller.load({
    ...config.echo,
    sampleRateHz: RATE,
    frameSamples: ECHO_FRAME_SAMPLES,
  });
  const silero = await SileroVad.load({ capDbfs: config.vad.energyGateDbfs, marginDb: config.vad.gateMarginDb });
  let pending: Promise<number> | undefined;
  const vad: Vad = {
    name: silero.name,
    frameSamples: silero.frameSamples,
    probability: (frame) => (pending = silero.probability(frame)),
    reset: () => silero.reset(),
    close: () => silero.close(),
  };
  const frames = new Subject<Frame>();
  const context = new Subject<{ speaking: boolean; listening: boolean }>();
  const subscription: Subscription = frames
    .pipe(
      cancelEcho(canceller, RATE, silentLogger),
      scoreVoice(vad, silentLogger, {
        fallbackGateDbfs: config.vad.energyGateDbfs,
        ownVoiceBelowDb: config.bargeIn.ownVoiceBelowDb,
      }),
      segment({ ...config.vad, sampleRateHz: RATE }, context),
    )
    .subscribe();
  let next = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < recording.mic.length; i++) {
    const arrivedAt = (i + 1) * FRAME_MS;
    for (; next < recording.reference.length && (recording.reference[next]?.at ?? Infinity) <= arrivedAt; next++) {
      const event = recording.reference[next] as ReferenceEvent;
      if ('dropAtMs' in event) canceller.reference.drop(event.dropAtMs);
      else canceller.reference.write(event.samples, event.rateHz, event.startMs);
    }
    context.next({ speaking: states[i] === 'speaking', listening: true });
    frames.next({ samples: recording.mic[i] as Int16Array, capturedAt: arrivedAt });
    await pending;
  }
  const used = process.cpuUsage(before);
  subscription.unsubscribe();
  canceller.close();
  await silero.close();
  const cpuMs = (used.user + used.system) / 1000;
  const audioMs = (recording.mic.length * FRAME * 1000) / RATE;
  return { audioMs, cpuMs, cpuPercent: (cpuMs / audioMs) * 100, realTimeFactor: audioMs / cpuMs };
}
