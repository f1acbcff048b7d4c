/** The VAD's input: 512-sample frames of 16 kHz mono audio (Silero v5's frame). */
export const VAD_SAMPLE_RATE_HZ = 16000;
export const VAD_FRAME_SAMPLES = 512;
export const VAD_FRAME_MS = (VAD_FRAME_SAMPLES / VAD_SAMPLE_RATE_HZ) * 1000;
