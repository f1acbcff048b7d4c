import type { Vad } from '../../pipeline/ports.js';
import { VAD_FRAME_SAMPLES } from '../../listen/vad.js';

/**
 * A VAD whose model is still loading: hark listens from its start, and each frame heard meanwhile
 * waits for the model and is scored by it, in order. Its name is the engine asked for until the one loaded (perhaps a fallback) says.
 */
export class LoadingVad implements Vad {
  readonly frameSamples = VAD_FRAME_SAMPLES;
  /** Settles once the model (or the one that stands in for it) has loaded. */
  readonly loaded: Promise<void>;
  private vad: Vad | undefined;

  constructor(
    private readonly loading: Promise<Vad>,
    private readonly asked: Vad['name'],
  ) {
    this.loaded = loading.then((vad) => {
      this.vad = vad;
    });
  }

  get name(): Vad['name'] {
    return this.vad?.name ?? this.asked;
  }

  probability(frame: Int16Array): Promise<number> | number {
    return this.vad ? this.vad.probability(frame) : this.loading.then((vad) => vad.probability(frame));
  }

  /** Before the model has loaded there is nothing to forget: it starts afresh. */
  reset(): void {
    this.vad?.reset();
  }

  async close(): Promise<void> {
    await (await this.loading).close();
  }
}
