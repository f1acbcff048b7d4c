/**
 * The wake word: detection rate on espeak-ng phrases in noise, false accepts on real speech,
 * latency from the wake word's end, where the command is cut, and CPU time on one core.
 * The positive clips are made at run time (espeak-ng and sox), so only a few fixtures are committed.
 */
import { existsSync } from 'node:fs';
import { defaultConfig } from '../../dist/config/schema.js';
import { OpenWakeWord } from '../../dist/listen/wake/openwakeword.js';
import { PRETRAINED_WAKE_MODELS } from '../../dist/listen/wake/wake-models.js';
import type { WakeWordDetection } from '../../dist/pipeline/ports.js';
import { concatSamples, fixture } from './fixtures.js';
import { median, met, percentile, round, table, writeResult } from './stats.js';
import { concat, firstPause, mix, msOf, noise, quiet, RATE, speak, speechLevel } from './wake-audio.js';

const SHARED_SPEECH = '/work/shared/fixtures/speech/aepyx_8k.wav';
const VOICES = ['en-us', 'en-gb', 'en-gb-x-rp', 'en-gb-scotland', 'en-us+f3', 'en-gb+f4', 'en-us+m5', 'en-us-nyc+m5'];
const WORDS_PER_MINUTE = [150, 175];
const SNRS_DB = [20, 10, 5];
const PHRASE = 'hey jarvis, what time is it';
const MODEL = 'hey_jarvis';
const LEAD_MS = 1500;

/** A way of running the detector: the default first, then what it is compared with on the same audio. */
interface Setup {
  name: string;
  options: { stepMs?: 40 | 80; denoise?: boolean; lookCloserAt?: number };
}
const SETUPS: Setup[] = [
  {
    name: 'default: 80 ms steps, windows every 20 ms scored near a wake word, denoised in a noisy room',
    options: {},
  },
  { name: '40 ms steps, halfway windows near a wake word (the default before)', options: { stepMs: 40 } },
  { name: "80 ms steps alone (openWakeWord's)", options: { lookCloserAt: Infinity } },
  { name: 'denoise off', options: { denoise: false } },
];

interface Positive {
  voice: string;
  wordsPerMinute: number;
  snrDb: number;
  noise: string;
  detected: boolean;
  latencyMs?: number;
  /** endMs minus the true end of the wake word; the command starts `pauseMs` after that end. */
  endErrorMs?: number;
  pauseMs: number;
}

/** Pushes audio in the VAD's 512-sample frames and waits until it is all scored. */
async function listen(detector: OpenWakeWord, samples: Int16Array): Promise<WakeWordDetection[]> {
  const found: WakeWordDetection[] = [];
  const subscription = detector.detections.subscribe((d) => found.push(d));
  for (let i = 0; i + 512 <= samples.length; i += 512) detector.push(samples.subarray(i, i + 512));
  await detector.drain();
  subscription.unsubscribe();
  return found;
}

async function positives(setup: Setup): Promise<Positive[]> {
  const detector = await OpenWakeWord.load({ ...defaultConfig().wake, models: [MODEL], ...setup.options });
  const beds = { pink: noise('pink', 8000), brown: noise('brown', 8000) };
  const results: Positive[] = [];
  let pushedMs = 0;
  let n = 0;
  for (const voice of VOICES) {
    for (const wordsPerMinute of WORDS_PER_MINUTE) {
      const phrase = await speak(PHRASE, voice, wordsPerMinute);
      const pause = firstPause(phrase, 250);
      for (const snrDb of SNRS_DB) {
        const bedName = n % 2 ? 'brown' : 'pink';
        // A different step phase for each clip (10 ms apart within 80 ms), as a live stream would have.
        const leadMs = LEAD_MS + ((n++ * 37) % 80);
        const clean = concat([quiet(leadMs), phrase, quiet(1200)]);
        const clip = mix(clean, beds[bedName], snrDb, speechLevel(phrase));
        const usable = clip.length - (clip.length % 512);
        detector.reset();
        const found = (await listen(detector, clip)).filter((d) => d.model === MODEL);
        const wakeEndMs = pushedMs + leadMs + pause.startMs;
        pushedMs += msOf(usable);
        const hit = found.find((d) => d.atMs > wakeEndMs - 500);
        results.push({
          voice,
          wordsPerMinute,
          snrDb,
          noise: bedName,
          detected: hit !== undefined,
          pauseMs: pause.endMs - pause.startMs,
          ...(hit ? { latencyMs: hit.atMs - wakeEndMs, endErrorMs: hit.endMs - wakeEndMs } : {}),
        });
      }
    }
  }
  await detector.close();
  return results;
}

async function realSpeech(): Promise<{ source: string; samples: Int16Array }> {
  if (existsSync(SHARED_SPEECH)) {
    const { decodeFileToPcm } = await import('../../dist/audio/ffmpeg.js');
    const { samplesOf } = await import('../../dist/audio/pcm.js');
    return { source: 'aepyx_8k.wav (all of it)', samples: samplesOf(await decodeFileToPcm(SHARED_SPEECH, RATE)) };
  }
  const parts = [await fixture('utterance-8k.wav'), await fixture('monologue-71s.ogg')];
  return { source: 'test/fixtures utterance-8k.wav + monologue-71s.ogg', samples: concatSamples(parts) };
}

async function falseAccepts(samples: Int16Array, setup: Setup) {
  const detector = await OpenWakeWord.load({
    ...defaultConfig().wake,
    models: PRETRAINED_WAKE_MODELS,
    ...setup.options,
  });
  const peaks: Record<string, number> = {};
  const subscription = detector.scores.subscribe((s) => {
    for (const [m, v] of Object.entries(s.scores)) peaks[m] = Math.max(peaks[m] ?? 0, v);
  });
  const found = await listen(detector, concatSamples([samples, quiet(1000)]));
  subscription.unsubscribe();
  await detector.close();
  return { found, peaks };
}

/**
 * CPU time to score `samples`, one core: live (512-sample frames, each scored before the next
 * is pushed, as from the microphone) or a file (batched).
 */
async function cpuTime(
  models: readonly string[],
  samples: Int16Array,
  mode: 'live' | 'file',
  rounds: number,
  setup: Setup,
) {
  const detector = await OpenWakeWord.load({ ...defaultConfig().wake, models, ...setup.options });
  const times: number[] = [];
  for (let r = 0; r <= rounds; r++) {
    detector.reset();
    const start = process.cpuUsage();
    if (mode === 'file') {
      detector.push(samples);
      await detector.drain();
    } else {
      for (let i = 0; i + 512 <= samples.length; i += 512) {
        detector.push(samples.subarray(i, i + 512));
        await detector.drain();
      }
    }
    const used = process.cpuUsage(start);
    if (r > 0) times.push((used.user + used.system) / 1000);
  }
  await detector.close();
  return { medianMs: median(times), p90Ms: percentile(times, 90) };
}

function summarise(clips: Positive[]) {
  const detected = clips.filter((c) => c.detected);
  return {
    clips: clips.length,
    detected: detected.length,
    rate: detected.length / clips.length,
    perSnr: SNRS_DB.map((snr) => {
      const at = clips.filter((c) => c.snrDb === snr);
      return `${snr} dB: ${at.filter((c) => c.detected).length}/${at.length}`;
    }),
    latencies: detected.map((c) => c.latencyMs as number),
    endErrors: detected.map((c) => c.endErrorMs as number),
    clipped: detected.filter((c) => (c.endErrorMs as number) > c.pauseMs).length,
    byClip: clips,
  };
}

export async function benchWake(rounds = 5) {
  const speech = await realSpeech();
  const speechHours = speech.samples.length / RATE / 3600;
  const defaultModels = defaultConfig().wake.models;
  const runs = [];
  for (const setup of SETUPS) {
    const clips = summarise(await positives(setup));
    const { found, peaks } = await falseAccepts(speech.samples, setup);
    const defaultFalse = found.filter((d) => defaultModels.includes(d.model)).length;
    runs.push({ setup, clips, falseAccepts: { defaultFalse, all: found, peaks } });
  }

  const cpuAudio = speech.samples.subarray(0, Math.min(speech.samples.length, 60 * RATE));
  const cpuSeconds = cpuAudio.length / RATE;
  const cpu: Record<string, { medianMs: number; p90Ms: number; realTimeFactor: number; target: boolean }> = {};
  const [byDefault, never, by80, raw] = SETUPS as [Setup, Setup, Setup, Setup];
  for (const [models, mode, setup] of [
    [[MODEL], 'live', byDefault],
    [[MODEL], 'file', byDefault],
    [PRETRAINED_WAKE_MODELS, 'live', byDefault],
    [PRETRAINED_WAKE_MODELS, 'file', byDefault],
    [[MODEL], 'live', never],
    [PRETRAINED_WAKE_MODELS, 'live', never],
    [[MODEL], 'live', by80],
    [PRETRAINED_WAKE_MODELS, 'live', by80],
    [[MODEL], 'live', raw],
  ] as const) {
    const t = await cpuTime(models, cpuAudio, mode, rounds, setup);
    const label = `${models.length === 1 ? '1 model' : `${models.length} models`}, ${mode}, ${setup.name}`;
    const target = setup === byDefault && mode === 'live';
    cpu[label] = { ...t, realTimeFactor: round((cpuSeconds * 1000) / t.medianMs, 1), target };
  }

  const target = (isDefault: boolean, text: string): string => (isDefault ? text : 'info');
  console.log(
    `\nWake word (${MODEL}, threshold ${defaultConfig().wake.threshold}): ${runs[0]?.clips.clips} espeak-ng clips of "${PHRASE}" ` +
      `(${VOICES.length} voices x ${WORDS_PER_MINUTE.join('/')} wpm x SNR ${SNRS_DB.join('/')} dB, pink/brown noise); ` +
      `false accepts on ${round(speechHours * 3600, 1)} s of real speech (${speech.source})`,
  );
  const rows: string[][] = [['measure', 'figure', 'target']];
  for (const [i, { setup, clips, falseAccepts: fa }] of runs.entries()) {
    const isDefault = i === 0;
    const { rate, perSnr, latencies, endErrors, clipped, detected } = clips;
    const perHour = fa.defaultFalse / speechHours;
    rows.push(
      [`[${setup.name}]`, '', ''],
      [
        'detection rate',
        `${round(rate * 100, 1)} % (${perSnr.join(', ')})`,
        target(isDefault, `>= 95 % ${met(rate >= 0.95)}`),
      ],
      [
        `false accepts, ${defaultModels.join(', ')}`,
        `${fa.defaultFalse} in ${round(speechHours * 3600, 1)} s = ${round(perHour, 2)}/h (one would be ${round(1 / speechHours, 1)}/h)`,
        target(isDefault, `<= 0.5/h ${met(perHour <= 0.5)}`),
      ],
      ['false accepts, all 6 models', `${fa.all.length} (${fa.all.map((d) => d.model).join(', ') || 'none'})`, 'info'],
      [
        'highest score on real speech',
        Object.entries(fa.peaks)
          .map(([m, v]) => `${m} ${round(v, 3)}`)
          .join(', '),
        'info',
      ],
      [
        'latency from the wake word end',
        `median ${round(median(latencies))} ms, p90 ${round(percentile(latencies, 90))} ms`,
        target(isDefault, `median <= 250 ms ${met(median(latencies) <= 250)}`),
      ],
      [
        'endMs - true end of the wake word',
        `median ${round(median(endErrors))} ms, p10 ${round(percentile(endErrors, 10))}, p90 ${round(percentile(endErrors, 90))}; command clipped in ${clipped} of ${detected}`,
        'info',
      ],
    );
  }
  rows.push(
    ...Object.entries(cpu).map(([label, c]) => [
      `CPU, ${label}`,
      `${round(c.medianMs)} ms for ${round(cpuSeconds, 1)} s (p90 ${round(c.p90Ms)} ms) = ${c.realTimeFactor}x real time`,
      c.target ? `>= 20x ${met(c.realTimeFactor >= 20)}` : 'info',
    ]),
  );
  console.log(table(rows));
  const path = writeResult('wake', {
    model: MODEL,
    threshold: defaultConfig().wake.threshold,
    falseAcceptSource: { source: speech.source, seconds: speechHours * 3600, defaultModels },
    runs,
    cpu: { audioSeconds: cpuSeconds, rounds, ...cpu },
  });
  console.log(`wrote ${path}`);
}
