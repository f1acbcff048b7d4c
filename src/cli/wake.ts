import type { Command } from 'commander';
import { decodeFileToPcm } from '../audio/ffmpeg.js';
import { Reframer } from '../audio/frames.js';
import { MIC_FIX, micSource } from '../audio/mic-source.js';
import { samplesOf } from '../audio/pcm.js';
import { checkWakeWord } from '../app/doctor/wake-check.js';
import { loadConfig } from '../config/load.js';
import type { HarkConfig } from '../config/schema.js';
import { LIVE_DETECTOR } from '../listen/wake/wake-settings.js';
import { OpenWakeWord } from '../listen/wake/openwakeword.js';
import { VAD_FRAME_SAMPLES } from '../listen/vad.js';
import { WAKE_SAMPLE_RATE_HZ } from '../listen/wake/wake-features.js';
import { WakeModelsMissingError } from '../listen/wake/wake-models.js';
import type { WakeWordDetection, WakeWordScores } from '../pipeline/ports.js';
import { commandLogger, type GlobalOptions, parseNumber, UsageError } from './command-context.js';
import { checkAudioInput } from './files.js';

interface WakeOptions {
  models?: string;
  threshold?: number;
  json?: boolean;
}

const BAR_WIDTH = 20;
const BLOCKS = ' ▏▎▍▌▋▊▉█';

/** A score 0..1 as a bar, with `|` where the threshold is. */
export function scoreBar(score: number, threshold: number): string {
  const eighths = Math.round(Math.max(0, Math.min(1, score)) * BAR_WIDTH * 8);
  const cells = Array.from(
    { length: BAR_WIDTH },
    (_, i) => BLOCKS[Math.max(0, Math.min(8, eighths - i * 8))] as string,
  );
  const mark = Math.min(BAR_WIDTH - 1, Math.floor(threshold * BAR_WIDTH));
  if (cells[mark] === ' ') cells[mark] = '|';
  return `▕${cells.join('')}▏`;
}

function detectorOptions(config: HarkConfig, options: WakeOptions) {
  const models = options.models?.split(',').map((m) => m.trim()) ?? config.wake.models;
  return { ...config.wake, models, threshold: options.threshold ?? config.wake.threshold };
}

const round = (score: number): number => Math.round(score * 1000) / 1000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function describeDetection(d: WakeWordDetection): string {
  return `${d.model} at ${seconds(d.atMs)} (wake word ended at ${seconds(d.endMs)}), score ${d.score.toFixed(2)}`;
}

/** The highest score of each model in each second of the stream. */
class PeaksPerSecond {
  readonly seconds: Record<string, number>[] = [];
  add(step: WakeWordScores): void {
    const second = Math.floor((step.atMs - 1) / 1000);
    const peaks = (this.seconds[second] ??= {});
    for (const [model, score] of Object.entries(step.scores)) peaks[model] = Math.max(peaks[model] ?? 0, score);
  }
}

export async function scanFile(path: string, config: HarkConfig, options: WakeOptions): Promise<void> {
  const settings = detectorOptions(config, options);
  const detector = await OpenWakeWord.load(settings).catch((error: unknown) => {
    // A model named with --models that is not there is a mistake in how hark was called.
    throw options.models && error instanceof WakeModelsMissingError ? new UsageError(error.message) : error;
  });
  const detections: WakeWordDetection[] = [];
  const peaks = new PeaksPerSecond();
  let durationMs = 0;
  try {
    const samples = samplesOf(await decodeFileToPcm(path, WAKE_SAMPLE_RATE_HZ));
    durationMs = (samples.length / WAKE_SAMPLE_RATE_HZ) * 1000;
    detector.detections.subscribe((d) => detections.push(d));
    detector.scores.subscribe((s) => s.atMs <= durationMs + 80 && peaks.add(s));
    detector.push(samples);
    // A second of quiet after the end, so that a wake word said last is heard out.
    detector.push(new Int16Array(WAKE_SAMPLE_RATE_HZ));
    await detector.drain();
  } finally {
    await detector.close();
  }
  if (options.json) {
    const result = {
      file: path,
      durationMs: Math.round(durationMs),
      models: detector.models,
      threshold: settings.threshold,
      detections: detections.map((d) => ({ ...d, score: round(d.score) })),
      peaksPerSecond: peaks.seconds.map((scores, second) => ({
        second,
        scores: Object.fromEntries(Object.entries(scores).map(([m, v]) => [m, round(v)])),
      })),
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  if (process.stdout.isTTY) {
    process.stdout.write(`highest score in each second (threshold ${settings.threshold} at |):\n`);
    peaks.seconds.forEach((scores, second) => {
      const [model, score] = Object.entries(scores).sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
      process.stdout.write(
        `${String(second).padStart(5)} s ${scoreBar(score, settings.threshold)} ${score.toFixed(2)} ${model}\n`,
      );
    });
    process.stdout.write('\n');
  }
  for (const d of detections) process.stdout.write(`${describeDetection(d)}\n`);
  process.stdout.write(
    `${detections.length} wake word${detections.length === 1 ? '' : 's'} heard in ${seconds(durationMs)} of audio ` +
      `(${detector.models.join(', ')}; threshold ${settings.threshold})\n`,
  );
}

async function listenLive(config: HarkConfig, options: WakeOptions, globals: GlobalOptions): Promise<void> {
  const settings = detectorOptions(config, options);
  const detector = await OpenWakeWord.load({ ...settings, ...LIVE_DETECTOR });
  const logger = commandLogger(globals, config, 'stderr');
  const tty = process.stdout.isTTY;
  const reframer = new Reframer(VAD_FRAME_SAMPLES, WAKE_SAMPLE_RATE_HZ);
  const meter = detector.scores.subscribe((step) => {
    if (!tty) return;
    const line = Object.entries(step.scores)
      .map(([model, score]) => `${model} ${scoreBar(score, settings.threshold)} ${score.toFixed(2)}`)
      .join('  ');
    process.stdout.write(`\r${line.slice(0, Math.max(20, (process.stdout.columns ?? 100) - 1))}`);
  });
  const heard = detector.detections.subscribe((d) => {
    process.stdout.write(`${tty ? '\r\x1b[K' : ''}heard ${describeDetection(d)}\n`);
  });
  process.stderr.write(
    `listening for ${detector.models.join(', ')} (threshold ${settings.threshold}); Ctrl-C to stop\n`,
  );
  // Someone is watching: a microphone that fails ends the command with why, never a silent meter.
  let lost: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (lost = reject));
  const mic = micSource({
    recorder: config.audio.recorder,
    device: config.audio.captureDevice,
    sampleRateHz: WAKE_SAMPLE_RATE_HZ,
    retryMaxMs: config.audio.micRetryMaxMs,
    logger,
    reopen: false,
  }).subscribe({
    next: (chunk) => {
      for (const frame of reframer.push(chunk, performance.now())) detector.push(frame.samples);
    },
    error: (error: Error) => lost(new Error(`no microphone (${error.message}): ${MIC_FIX}`)),
  });
  try {
    await Promise.race([new Promise<void>((resolve) => process.once('SIGINT', () => resolve())), failed]);
  } finally {
    mic.unsubscribe();
    meter.unsubscribe();
    heard.unsubscribe();
    await detector.close();
    if (tty) process.stdout.write('\n');
  }
}

export function registerWake(program: Command, globals: () => GlobalOptions): void {
  const wake = program
    .command('wake')
    .description('the wake word: try it on a recording or live, to choose the threshold; list its models');
  const modelsOption = [
    '--models <list>',
    'comma-separated models (names or .onnx paths) instead of wake.models',
  ] as const;
  const thresholdOption = [
    '--threshold <score>',
    'score (0..1) that counts as heard, instead of wake.threshold',
    parseNumber('--threshold', 0.01, 0.99),
  ] as const;
  wake
    .command('scan')
    .description('run the wake-word detector over a recording (any format) and print what it hears')
    .argument('<file>', 'audio file (anything ffmpeg reads)')
    .option(...modelsOption)
    .option(...thresholdOption)
    .option('--json', 'print detections and per-second peak scores as JSON')
    .action(async (file: string, options: WakeOptions) => {
      await checkAudioInput(file);
      await scanFile(file, loadConfig({ configPath: globals().config }).config, options);
    });
  wake
    .command('listen')
    .description('listen on the microphone with a live score meter, to tune wake.threshold')
    .option(...modelsOption)
    .option(...thresholdOption)
    .action(async (options: WakeOptions) => {
      await listenLive(loadConfig({ configPath: globals().config }).config, options, globals());
    });
  wake
    .command('models')
    .description('check that the configured wake-word models load, and say their licence')
    .action(async () => {
      const result = await checkWakeWord(loadConfig({ configPath: globals().config }).config);
      process.stdout.write(`${result.status}: ${result.detail}\n${result.fix ? `fix: ${result.fix}\n` : ''}`);
      process.exitCode = result.status === 'fail' ? 1 : 0;
    });
}
