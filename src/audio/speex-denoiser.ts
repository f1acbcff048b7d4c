import { compileWasm } from '../system/wasm-modules.js';
import { SPEEX_WASM_PATH } from './speex-module.js';

export interface SpeexDenoiserOptions {
  sampleRateHz: number;
  /** Samples per frame: 10 ms (160 at 16 kHz) as openWakeWord uses it. */
  frameSamples: number;
  /** Most the noise is taken down, in dB (negative); speexdsp's default is -15. */
  suppressDb: number;
}

interface Exports {
  memory: WebAssembly.Memory;
  hark_denoise_create(frame: number, rate: number, noiseDb: number): number;
  hark_denoise_frame(h: number): number;
  hark_denoise_process(h: number): void;
  hark_denoise_destroy(h: number): void;
}

const EXPORTS = ['hark_denoise_create', 'hark_denoise_frame', 'hark_denoise_process', 'hark_denoise_destroy'];

/**
 * speexdsp's noise suppressor: it learns the steady noise under the speech (a fan, a fridge,
 * traffic) and takes it down frame by frame. Its output lags its input by one frame.
 */
export class SpeexDenoiser {
  private handle: number;
  private started = false;
  private closed = false;

  private constructor(
    private readonly wasm: Exports,
    readonly options: SpeexDenoiserOptions,
  ) {
    this.handle = this.create();
  }

  /** Throws when the module cannot be read, compiled or started. */
  static async load(options: SpeexDenoiserOptions, wasmPath = SPEEX_WASM_PATH): Promise<SpeexDenoiser> {
    if (!Number.isInteger(options.frameSamples) || options.frameSamples < 32) {
      throw new RangeError(`bad denoiser frame: ${options.frameSamples}`);
    }
    const instance = await WebAssembly.instantiate(await compileWasm(wasmPath), {});
    const wasm = instance.exports as unknown as Exports;
    for (const name of EXPORTS) {
      if (typeof (wasm as unknown as Record<string, unknown>)[name] !== 'function') {
        throw new Error(`${wasmPath} has no ${name}`);
      }
    }
    return new SpeexDenoiser(wasm, options);
  }

  /** How late the output is: the suppressor's overlap-add holds one frame back. */
  get latencySamples(): number {
    return this.options.frameSamples;
  }

  /**
   * Whole frames in, as many out, `latencySamples` late. After a start or reset, the suppressor
   * first hears the first frame once more, so the output starts with it rather than with silence.
   */
  process(samples: Int16Array): Int16Array {
    const n = this.options.frameSamples;
    if (this.closed) throw new Error('denoiser is closed');
    if (samples.length % n !== 0) throw new RangeError(`the denoiser takes whole frames of ${n} samples`);
    const out = new Int16Array(samples.length);
    if (!this.started && samples.length > 0) {
      this.run(samples.subarray(0, n));
      this.started = true;
    }
    for (let at = 0; at < samples.length; at += n) out.set(this.run(samples.subarray(at, at + n)), at);
    return out;
  }

  /** Forgets the noise it learnt and the frame it holds back (the stream starts afresh). */
  reset(): void {
    if (this.closed) return;
    this.wasm.hark_denoise_destroy(this.handle);
    this.handle = this.create();
    this.started = false;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wasm.hark_denoise_destroy(this.handle);
  }

  private create(): number {
    const { frameSamples, sampleRateHz, suppressDb } = this.options;
    const handle = this.wasm.hark_denoise_create(frameSamples, sampleRateHz, Math.round(suppressDb));
    if (!handle) throw new Error('denoiser: out of memory');
    return handle;
  }

  private run(frame: Int16Array): Int16Array {
    const { wasm, handle } = this;
    // A view per call: the module's memory buffer changes if it ever grows.
    const view = new Int16Array(wasm.memory.buffer, wasm.hark_denoise_frame(handle), frame.length);
    view.set(frame);
    wasm.hark_denoise_process(handle);
    return new Int16Array(wasm.memory.buffer, wasm.hark_denoise_frame(handle), frame.length);
  }
}
