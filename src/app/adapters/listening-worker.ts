/**
 * The listening thread: Silero and openWakeWord load and run here, so that the models (each loads,
 * and runs, without ever yielding) never hold up the main thread's microphone, replies and
 * playback. Started by ListeningThread with its ListeningSetup; what it is sent for a
 * model is handled in order, once that model has loaded.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OpenWakeWord } from '../../listen/wake/openwakeword.js';
import { SileroVad } from '../../listen/silero-vad.js';
import { asError } from '../../system/as-error.js';
import { collectGarbage } from '../../system/collect-garbage.js';
import { ModelSteps } from './model-steps.js';
import type { FromListening, ListeningSetup, ToListening } from './listening-messages.js';

const setup = workerData as ListeningSetup;
const port = parentPort;
if (!port) throw new Error('the listening thread runs as a worker thread');
const send = (message: FromListening): void => port.postMessage(message);

const vad = setup.silero
  ? SileroVad.load(setup.silero, setup.silero.modelPath).then(
      (loaded) => {
        send({ type: 'vad-ready' });
        return loaded;
      },
      (error: unknown) => {
        send({ type: 'vad-failed', message: asError(error).message });
        return undefined;
      },
    )
  : Promise.resolve(undefined);

// The wake word's models load once Silero has: the VAD is what every utterance needs first.
const wake = vad.then(() =>
  setup.wake
    ? OpenWakeWord.load(setup.wake.options, setup.wake.files).then(
        (detector) => {
          detector.detections.subscribe({
            next: (detection) => send({ type: 'detection', detection }),
            error: (error: unknown) => send({ type: 'failed', model: 'wake', message: asError(error).message }),
          });
          detector.scores.subscribe({ next: (scores) => send({ type: 'scores', scores }), error: () => undefined });
          detector.backlog.subscribe({ next: (backlog) => send({ type: 'backlog', backlog }), error: () => undefined });
          send({
            type: 'wake-ready',
            models: [...detector.models],
            denoising: detector.denoising,
            denoiseError: detector.denoiseError,
            embeddingStreamed: detector.embeddingStreamed,
          });
          return detector;
        },
        (error: unknown) => {
          send({ type: 'wake-failed', message: asError(error).message });
          return undefined;
        },
      )
    : undefined,
);

const failed = (model: 'vad' | 'wake') => (error: unknown) =>
  send({ type: 'failed', model, message: asError(error).message });
const vadSteps = new ModelSteps(vad, failed('vad'));
const wakeSteps = new ModelSteps(wake, failed('wake'));

async function close(): Promise<void> {
  await Promise.all([vadSteps.settled(), wakeSteps.settled()]);
  await Promise.all([(await vad)?.close(), (await wake)?.close()]);
  send({ type: 'closed' });
  port?.close();
}

port.on('message', (message: ToListening) => {
  switch (message.type) {
    case 'frame': {
      const { samples } = message;
      if (message.vad)
        vadSteps.run((silero) => silero.probability(samples).then((value) => send({ type: 'probability', value })));
      if (message.wake) wakeSteps.run((detector) => detector.push(samples));
      return;
    }
    case 'vad-reset':
      return vadSteps.run((silero) => silero.reset());
    case 'wake-reset':
      return wakeSteps.run((detector) => detector.reset());
    case 'drain': {
      const { id } = message;
      wakeSteps.run((detector) => detector.drain());
      // Answered even when the detector failed: the main thread waits for it.
      void wakeSteps.settled().then(() => send({ type: 'drained', id }));
      return;
    }
    case 'collect':
      return collectGarbage();
    case 'close':
      void close();
      return;
  }
});
