/** Voice activity: the probability that a 512-sample frame of 16 kHz audio is speech. */
export interface Vad {
  readonly name: 'silero' | 'energy';
  readonly frameSamples: number;
  probability(frame: Int16Array): Promise<number> | number;
  reset(): void;
  close(): Promise<void>;
}

export const VAD_SAMPLE_RATE_HZ = 16000;
export const VAD_FRAME_SAMPLES = 512;
export const VAD_FRAME_MS = (VAD_FRAME_SAMPLES / VAD_SAMPLE_RATE_HZ) * 1000;
