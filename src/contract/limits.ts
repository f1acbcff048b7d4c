/** The service's published limits (spec: Limits), one place for client and stand-in alike. */
export const LIMITS = {
  nonStreamingTimeoutMs: 90_000,
  defaultMaxTokens: 32_000,
  temperature: { min: 0, max: 1 },
  /** (0, 1]: zero itself is outside. */
  topP: { minExclusive: 0, max: 1 },
  speech: {
    inputMaxChars: 2048,
    sampleRatesHz: [8000, 16000, 22050, 24000] as const,
    defaultSampleRateHz: 22050,
    speed: { min: 0.25, max: 4 },
    volume: { min: 0.5, max: 2 },
    pitch: { min: 0.5, max: 2 },
    responseFormats: ['mp3', 'wav', 'pcm', 'opus', 'aac'] as const,
    streamFormats: ['sse', 'audio'] as const,
    maxReferences: 1,
    referenceMaxDurationMs: 30_000,
    /** The Base64 data URL may be at most 10 MB; MB read as 10^6 bytes, the stricter reading. */
    referenceMaxEncodedBytes: 10_000_000,
  },
  /**
   * Audio sent to a chat model (`audio_url`, Ming-3.0-audio-flash): the interface gives no limits
   * of its own, so hark holds it to the transcription endpoint's (WAV or MP3, 10 MB, 30 s).
   */
  chatAudio: {
    mimeTypes: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/mpeg'] as const,
    maxBytes: 10_000_000,
    maxDurationMs: 30_000,
  },
  transcription: {
    fileMaxBytes: 10_000_000,
    fileMaxDurationMs: 30_000,
    fileExtensions: ['.wav', '.mp3'] as const,
    promptRecommendedMaxChars: 60,
    temperature: { min: 0, max: 1 },
    responseFormats: ['json'] as const,
    unsupportedParameters: [
      'chunking_strategy',
      'include',
      'keywords',
      'known_speaker_names',
      'known_speaker_references',
      'languages',
      'timestamp_granularities',
      'stream',
    ] as const,
  },
} as const;

export type SpeechSampleRate = (typeof LIMITS.speech.sampleRatesHz)[number];
export type SpeechResponseFormat = (typeof LIMITS.speech.responseFormats)[number];
export type SpeechStreamFormat = (typeof LIMITS.speech.streamFormats)[number];

export const SPEECH_CONTENT_TYPES: Record<SpeechResponseFormat, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Characters as the spec counts them: Unicode code points, not UTF-16 units. */
export function charCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A measured duration beside a limit, in seconds with as many decimals as it takes to tell the
 * two apart ("30.001 s" against 30 s, never "30.0 s"), at least one.
 */
export function secondsAgainst(valueMs: number, limitMs: number): string {
  for (let digits = 1; digits <= 6; digits++) {
    const shown = (valueMs / 1000).toFixed(digits);
    if (Number(shown) !== limitMs / 1000) return `${shown} s`;
  }
  return `${valueMs / 1000} s`;
}
