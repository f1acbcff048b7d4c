/**
 * Makes the committed wake-word fixtures (test/fixtures/wake-*.ogg and wake-clips.json):
 *
 *   npm run bench -- none && node bench/dist/make-wake-fixtures.js /work/shared/fixtures/speech/aepyx_8k.wav
 *
 * Each clip: a cut of real speech (unrelated talk), a short quiet, then an espeak-ng phrase of
 * a wake word and a command said in one breath ("hey jarvis, what time is it"), over faint pink
 * noise, encoded as Opus. The times of the wake word and the command go to wake-clips.json.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFileToPcm, runFfmpeg } from '../../dist/audio/ffmpeg.js';
import { bufferOf, samplesOf } from '../../dist/audio/pcm.js';
import { OpenWakeWord } from '../../dist/listen/wake/openwakeword.js';
import { FIXTURES } from './fixtures.js';
import { concat, firstPause, mix, msOf, noise, quiet, RATE, speak, speechLevel } from './wake-audio.js';

export interface WakeClip {
  file: string;
  model: string;
  text: string;
  voice: string;
  wordsPerMinute: number;
  /** Where the real speech was cut from the source recording, in seconds. */
  speechFromS: [number, number];
  wakeStartMs: number;
  wakeEndMs: number;
  commandStartMs: number;
  commandEndMs: number;
}

const CLIPS = [
  {
    file: 'wake-hey-jarvis.ogg',
    model: 'hey_jarvis',
    text: 'hey jarvis, what time is it',
    voice: 'en-us',
    wpm: 160,
    cut: [6.1, 8.25],
  },
  { file: 'wake-alexa.ogg', model: 'alexa', text: 'alexa, set a timer', voice: 'en-gb', wpm: 150, cut: [21.95, 23.65] },
] as const;

const FADE_SAMPLES = 15 * 16;

function fade(samples: Int16Array): Int16Array {
  const out = samples.slice();
  for (let i = 0; i < FADE_SAMPLES; i++) {
    const g = i / FADE_SAMPLES;
    out[i] = Math.round((out[i] as number) * g);
    out[out.length - 1 - i] = Math.round((out[out.length - 1 - i] as number) * g);
  }
  return out;
}

function scaleTo(samples: Int16Array, level: number): Int16Array {
  const gain = level / speechLevel(samples);
  return samples.map((v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

async function main(source: string): Promise<void> {
  const recording = samplesOf(await decodeFileToPcm(source, RATE));
  const clips: WakeClip[] = [];
  for (const spec of CLIPS) {
    const phrase = await speak(spec.text, spec.voice, spec.wpm);
    const pause = firstPause(phrase, 250);
    const talk = fade(
      scaleTo(recording.slice(Math.round(spec.cut[0] * RATE), Math.round(spec.cut[1] * RATE)), speechLevel(phrase)),
    );
    const lead = concat([quiet(200), talk, quiet(400)]);
    const clip = mix(concat([lead, phrase, quiet(700)]), noise('pink', 5000), 30, speechLevel(phrase));
    const encoded = await runFfmpeg(
      [
        '-f',
        's16le',
        '-ar',
        String(RATE),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-c:a',
        'libopus',
        '-b:a',
        '32k',
        '-f',
        'ogg',
        'pipe:1',
      ],
      bufferOf(clip),
    );
    writeFileSync(join(FIXTURES, spec.file), encoded);
    const start = msOf(lead.length);
    clips.push({
      file: spec.file,
      model: spec.model,
      text: spec.text,
      voice: spec.voice,
      wordsPerMinute: spec.wpm,
      speechFromS: [spec.cut[0], spec.cut[1]],
      wakeStartMs: Math.round(start),
      wakeEndMs: Math.round(start + pause.startMs),
      commandStartMs: Math.round(start + pause.endMs),
      commandEndMs: Math.round(start + msOf(phrase.length)),
    });
    // What the detector makes of the encoded clip, as a check by eye.
    const decoded = samplesOf(await decodeFileToPcm(join(FIXTURES, spec.file), RATE));
    const detector = await OpenWakeWord.load({
      models: [spec.model],
      threshold: 0.5,
      refractoryMs: 2000,
      endWaitMs: 160,
    });
    const found: unknown[] = [];
    detector.detections.subscribe((d) => found.push(d));
    detector.push(decoded);
    detector.push(new Int16Array(RATE));
    await detector.drain();
    await detector.close();
    console.log(spec.file, `${encoded.length} bytes`, JSON.stringify(clips.at(-1)), JSON.stringify(found));
  }
  writeFileSync(join(FIXTURES, 'wake-clips.json'), `${JSON.stringify(clips, null, 2)}\n`);
}

const source = process.argv[2];
if (!source) {
  console.error('usage: node bench/dist/make-wake-fixtures.js SPEECH_RECORDING (aepyx_8k.wav)');
  process.exitCode = 2;
} else {
  await main(source);
}
