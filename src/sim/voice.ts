import { readWavInfo } from '../audio/wav-header.js';
import { resample, scale, samplesOf } from '../audio/pcm.js';
import { runChild, spawnChild } from '../system/spawn.js';

export type VoiceEngine = 'espeak' | 'synthetic';

export interface RenderRequest {
  text: string;
  sampleRateHz: number;
  speed: number;
  volume: number;
  pitch: number;
  /** Different voice names sound different (a pitch offset), so a test can tell them apart. */
  voice: string | undefined;
}

let espeakAvailable: boolean | undefined;

export function hasEspeak(): boolean {
  espeakAvailable ??= runChild('espeak-ng', ['--version'], { stdio: 'ignore' }).status === 0;
  return espeakAvailable;
}

export function pickEngine(preference: 'auto' | VoiceEngine): VoiceEngine {
  if (preference === 'auto') return hasEspeak() ? 'espeak' : 'synthetic';
  return preference;
}

/** Real PCM (16-bit mono at the requested rate) for the text. */
export async function renderSpeech(request: RenderRequest, engine: VoiceEngine): Promise<Int16Array> {
  const samples = engine === 'espeak' ? await renderEspeak(request) : renderSynthetic(request);
  return scale(samples, request.volume);
}

function voiceOffset(voice: string | undefined): number {
  if (!voice) return 0;
  let hash = 0;
  for (const ch of voice) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) | 0;
  return (Math.abs(hash) % 21) - 10;
}

async function renderEspeak(request: RenderRequest): Promise<Int16Array> {
  const cjk = /[\u3400-\u9fff]/u.test(request.text);
  const args = [
    '--stdout',
    '-v',
    cjk ? 'cmn' : 'en-us',
    '-s',
    String(Math.round(Math.min(450, Math.max(80, 175 * request.speed)))),
    '-p',
    String(Math.round(Math.min(99, Math.max(0, 50 * request.pitch + voiceOffset(request.voice))))),
  ];
  const wav = await new Promise<Buffer>((resolve, reject) => {
    const child = spawnChild('espeak-ng', args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`espeak-ng exit ${code}`)),
    );
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(request.text);
  });
  const info = readWavInfo(wav);
  const pcm = samplesOf(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
  return resample(pcm, info.sampleRateHz, request.sampleRateHz);
}

/**
 * A voice-like signal when espeak-ng is absent: one voiced syllable (a harmonic tone under
 * a smooth envelope) per ~3 letters, short gaps between words, longer ones after sentences.
 */
export function renderSynthetic(request: RenderRequest): Int16Array {
  const rate = request.sampleRateHz;
  const syllableMs = 170 / request.speed;
  const f0 = (130 + voiceOffset(request.voice) * 3) * request.pitch;
  const parts: { ms: number; voiced: boolean }[] = [];
  for (const word of request.text.split(/\s+/).filter(Boolean)) {
    const letters = [...word.replace(/[^\p{L}\p{N}]/gu, '')].length;
    const cjk = /[\u3400-\u9fff]/u.test(word);
    const syllables = Math.max(1, cjk ? letters : Math.round(letters / 3));
    for (let i = 0; i < syllables; i++) parts.push({ ms: syllableMs, voiced: true });
    parts.push({ ms: /[.!?。！？]$/u.test(word) ? 280 / request.speed : 60 / request.speed, voiced: false });
  }
  const total = parts.reduce((sum, p) => sum + Math.round((p.ms / 1000) * rate), 0);
  const out = new Int16Array(total);
  let at = 0;
  let syllable = 0;
  for (const part of parts) {
    const n = Math.round((part.ms / 1000) * rate);
    if (part.voiced) {
      const pitch = f0 * (1 + 0.08 * Math.sin(syllable++ * 1.7));
      for (let i = 0; i < n; i++) {
        const t = i / rate;
        const envelope = Math.sin((Math.PI * i) / n) ** 2;
        let v = 0;
        for (let h = 1; h <= 5; h++) v += Math.sin(2 * Math.PI * pitch * h * t) / h;
        out[at + i] = Math.round(envelope * v * 0.25 * 32767);
      }
    }
    at += n;
  }
  return out;
}
