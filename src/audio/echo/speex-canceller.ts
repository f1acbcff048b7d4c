import { meanSquare } from '../pcm.js';
import { compileWasm } from '../../system/wasm-modules.js';
import { SPEEX_WASM_PATH } from '../speex-module.js';

export interface SpeexCancellerOptions {
  sampleRateHz: number;
  /** Samples per call of `cancel`; a power of two around 10-20 ms works best (256 at 16 kHz). */
  frameSamples: number;
  /** Length of the adaptive filter in samples: the longest echo path (after alignment) it can cancel. */
  tailSamples: number;
  /** Residual echo suppression after the filter, in dB (negative); 0 leaves the filter's output as it is. */
  suppressDb: number;
  /** The same while the near end talks too (double talk), in dB (negative). */
  suppressActiveDb: number;
}

/** What the canceller is doing, for logs and a status page. */
export interface SpeexCancellerState {
  /** Frames processed since the last reset. */
  frames: number;
  /** speexdsp's own judgement that its filter has adapted to the echo path. */
  adapted: boolean;
  /**
   * Echo return loss enhancement, estimated: microphone power over output power while the
   * reference plays, smoothed over about half a second (lower while the user talks too).
   * null until the reference has played.
   */
  erleDb: number | null;
  /** Where the filter's impulse response peaks (ms from the start of the tail), null until it has one. */
  filterPeakMs: number | null;
}

/** The echo canceller could not be loaded: hark keeps running without it. */
export class EchoCancellerUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`echo canceller unavailable: ${message}`, options);
    this.name = 'EchoCancellerUnavailableError';
  }
}

interface Exports {
  memory: WebAssembly.Memory;
  hark_aec_create(
    frame: number,
    filter: number,
    rate: number,
    suppressDb: number,
    suppressActiveDb: number,
    noiseDb: number,
  ): number;
  hark_aec_mic(h: number): number;
  hark_aec_ref(h: number): number;
  hark_aec_out(h: number): number;
  hark_aec_process(h: number): void;
  hark_aec_reset(h: number): void;
  hark_aec_adapted(h: number): number;
  hark_aec_peak(h: number): number;
  hark_aec_destroy(h: number): void;
}

const EXPORTS = ['hark_aec_create', 'hark_aec_process', 'hark_aec_reset', 'hark_aec_adapted', 'hark_aec_peak'];
/** Smoothing of the ERLE estimate per frame (about 0.5 s at 16 ms frames). */
const ERLE_SMOOTHING = 0.03;
/** Reference frames quieter than this mean power (about -70 dBFS) count as silence for the estimate. */
const REFERENCE_FLOOR = 32768 * 32768 * 1e-7;

/**
 * One echo canceller: frames of microphone audio in, the same frames with the echo of the
 * reference (what the speaker played, aligned to the microphone) taken out. Each instance
 * has its own WebAssembly memory, so instances never share state.
 */
export class SpeexCanceller {
  private frames = 0;
  private micPower = 0;
  private outPower = 0;
  private heardReference = false;
  private closed = false;

  private constructor(
    private readonly wasm: Exports,
    private readonly handle: number,
    readonly options: SpeexCancellerOptions,
  ) {}

  /** Throws EchoCancellerUnavailableError when the module cannot be read, compiled or started. */
  static async load(options: SpeexCancellerOptions, wasmPath = SPEEX_WASM_PATH): Promise<SpeexCanceller> {
    const { frameSamples, tailSamples, sampleRateHz, suppressDb, suppressActiveDb } = options;
    if (
      !Number.isInteger(frameSamples) ||
      frameSamples < 32 ||
      !Number.isInteger(tailSamples) ||
      tailSamples < frameSamples
    ) {
      throw new RangeError(`bad echo canceller sizes: frame ${frameSamples}, tail ${tailSamples}`);
    }
    let wasm: Exports;
    try {
      const instance = await WebAssembly.instantiate(await compileWasm(wasmPath), {});
      wasm = instance.exports as unknown as Exports;
      for (const name of EXPORTS) {
        if (typeof (wasm as unknown as Record<string, unknown>)[name] !== 'function') throw new Error(`no ${name}`);
      }
    } catch (error) {
      throw new EchoCancellerUnavailableError(`cannot load ${wasmPath}: ${(error as Error).message}`, { cause: error });
    }
    let handle = 0;
    try {
      handle = wasm.hark_aec_create(
        frameSamples,
        tailSamples,
        sampleRateHz,
        Math.round(suppressDb),
        Math.round(suppressActiveDb),
        0,
      );
    } catch (error) {
      throw new EchoCancellerUnavailableError(`cannot start: ${(error as Error).message}`, { cause: error });
    }
    if (!handle) throw new EchoCancellerUnavailableError('out of memory');
    return new SpeexCanceller(wasm, handle, options);
  }

  get frameSamples(): number {
    return this.options.frameSamples;
  }

  /** One frame of microphone audio and the reference aligned to it; returns a new frame. */
  cancel(mic: Int16Array, reference: Int16Array): Int16Array {
    const n = this.options.frameSamples;
    if (this.closed) throw new Error('echo canceller is closed');
    if (mic.length !== n || reference.length !== n) {
      throw new RangeError(`echo canceller takes frames of ${n} samples (got ${mic.length} and ${reference.length})`);
    }
    const { wasm, handle } = this;
    // Views are made per call: the module's memory buffer changes if it ever grows.
    new Int16Array(wasm.memory.buffer, wasm.hark_aec_mic(handle), n).set(mic);
    new Int16Array(wasm.memory.buffer, wasm.hark_aec_ref(handle), n).set(reference);
    wasm.hark_aec_process(handle);
    const out = new Int16Array(wasm.memory.buffer, wasm.hark_aec_out(handle), n).slice();
    this.frames++;
    if (meanSquare(reference) > REFERENCE_FLOOR) {
      if (!this.heardReference) {
        this.micPower = meanSquare(mic);
        this.outPower = meanSquare(out);
        this.heardReference = true;
      } else {
        this.micPower += ERLE_SMOOTHING * (meanSquare(mic) - this.micPower);
        this.outPower += ERLE_SMOOTHING * (meanSquare(out) - this.outPower);
      }
    }
    return out;
  }

  state(): SpeexCancellerState {
    const peak = this.closed ? -1 : this.wasm.hark_aec_peak(this.handle);
    return {
      frames: this.frames,
      adapted: !this.closed && this.wasm.hark_aec_adapted(this.handle) === 1,
      erleDb: this.erleDb,
      filterPeakMs: peak < 0 || this.frames === 0 ? null : (peak / this.options.sampleRateHz) * 1000,
    };
  }

  /** The echo return loss enhancement estimate of `state()`, cheaply, frame by frame. */
  get erleDb(): number | null {
    return this.heardReference ? 10 * Math.log10((this.micPower + 1) / (this.outPower + 1)) : null;
  }

  /** Forgets the echo path (after the path changed, e.g. a new delay). */
  reset(): void {
    if (this.closed) return;
    this.wasm.hark_aec_reset(this.handle);
    this.frames = 0;
    this.heardReference = false;
    this.micPower = 0;
    this.outPower = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wasm.hark_aec_destroy(this.handle);
  }
}
