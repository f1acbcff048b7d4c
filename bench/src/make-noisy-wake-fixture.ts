/**
 * Makes test/fixtures/wake-hey-jarvis-noisy.ogg: "hey jarvis, what time is it" (espeak-ng en-us,
 * 175 words per minute) after 1.04 s of pink noise, the noise 8 dB below the speech: a wake word
 * the detector hears only with the noise taken out (wake.denoise). Prints the peak score of the
 * encoded clip with and without the denoiser.
 *
 *   npm run bench -- none && node bench/dist/make-noisy-wake-fixture.js
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFileToPcm, runFfmpeg } from '../../dist/audio/ffmpeg.js';
import { bufferOf, samplesOf } from '../../dist/audio/pcm.js';
import { OpenWakeWord } from '../../dist/listen/wake/openwakeword.js';
import { FIXTURES } from './fixtures.js';
import { concat, mix, noise, quiet, RATE, speak, speechLevel } from './wake-audio.js';

const FILE = 'wake-hey-jarvis-noisy.ogg';

async function peak(samples: Int16Array, denoise: boolean): Promise<number> {
  const detector = await OpenWakeWord.load({
    models: ['hey_jarvis'],
    threshold: 0.5,
    refractoryMs: 2000,
    endWaitMs: 160,
    denoise,
  });
  let best = 0;
  detector.scores.subscribe((s) => (best = Math.max(best, s.scores.hey_jarvis ?? 0)));
  for (let i = 0; i < samples.length; i += 512) detector.push(samples.subarray(i, i + 512));
  detector.push(new Int16Array(RATE));
  await detector.drain();
  await detector.close();
  return best;
}

const phrase = await speak('hey jarvis, what time is it', 'en-us', 175);
const clip = mix(concat([quiet(1040), phrase, quiet(500)]), noise('pink', 5000), 8, speechLevel(phrase));
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
    '48k',
    '-f',
    'ogg',
    'pipe:1',
  ],
  bufferOf(clip),
);
writeFileSync(join(FIXTURES, FILE), encoded);
const decoded = samplesOf(await decodeFileToPcm(join(FIXTURES, FILE), RATE));
console.log(
  FILE,
  `${encoded.length} bytes`,
  `peak ${await peak(decoded, false)} as it is, ${await peak(decoded, true)} denoised`,
);
