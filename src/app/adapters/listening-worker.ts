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

// What is asked of each model, in order, once it has loaded. A step that throws fails that model
// (the main thread carries on without it); the steps after it still run, so nothing waits forever.
let vadTurn: Promise<unknown> = vad;
let wakeTurn: Promise<unknown> = wake;
let vadFailed = false;
let wakeFailed = false;

function fail(model: 'vad' | 'wake', error: unknown): void {
  if (model === 'vad' ? vadFailed : wakeFailed) return;
  if (model === 'vad') vadFailed = true;
  else wakeFailed = true;
  send({ type: 'failed', model, message: asError(error).message });
}

function onVad(step: (silero: SileroVad) => unknown): void {
  vadTurn = vadTurn
    .then(async () => {
      const silero = await vad;
      if (silero && !vadFailed) await step(silero);
    })
    .catch((error: unknown) => fail('vad', error));
}

function onWake(step: (detector: OpenWakeWord) => unknown): void {
  wakeTurn = wakeTurn
    .then(async () => {
      const detector = await wake;
      if (detector && !wakeFailed) await step(detector);
    })
    .catch((error: unknown) => fail('wake', error));
}

async function close(): Promise<void> {
  await Promise.all([vadTurn, wakeTurn]);
  await Promise.all([(await vad)?.close(), (await wake)?.close()]);
  send({ type: 'closed' });
  port?.close();
}

port.on('message', (message: ToListening) => {
  switch (message.type) {
    case 'frame': {
      const { samples } = message;
      if (message.vad) onVad(async (silero) => send({ type: 'probability', value: await silero.probability(samples) }));
      if (message.wake) onWake((detector) => detector.push(samples));
      return;
    }
    case 'vad-reset':
      return onVad((silero) => silero.reset());
    case 'wake-reset':
      return onWake((detector) => detector.reset());
    case 'drain': {
      const { id } = message;
      // Answered even when the detector failed: the main thread waits for it.
      wakeTurn = wakeTurn
        .then(async () => {
          if (!wakeFailed) await (await wake)?.drain();
        })
        .catch((error: unknown) => fail('wake', error))
        .finally(() => send({ type: 'drained', id }));
      return;
    }
    case 'close':
      void close();
      return;
  }
});
