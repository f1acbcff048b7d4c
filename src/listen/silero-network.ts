import { nameEndingWith, OnnxModelError, onnxConstants, weightsOf } from './onnx/onnx-constants.js';
import { filled, rowsBlock, rowWidth, type RowKernels, type RowProduct } from './nn-rows.js';
import { dftWindow, FramePairs } from './stft-window.js';

/**
 * Silero VAD v5's network at 16 kHz, run by hark from the weights of its ONNX file: a short-time
 * Fourier transform (the model's basis is a windowed DFT, so a windowed FFT computes it), four
 * convolutions, an LSTM cell and a sigmoid, their products of weights and inputs on `kernels`
 * (hark's WebAssembly). The model is small (about 680,000 multiply-adds a 32 ms frame); running it
 * here rather than through onnxruntime keeps onnxruntime's library, sessions and arenas out of
 * hark whenever no wake-word model runs.
 */

/** 64 samples of the frame before, then the frame's 512. */
export const SILERO_INPUT_SAMPLES = 576;
/** The recurrent state: the LSTM's hidden and cell vectors, 128 each. */
export const SILERO_STATE_SIZE = 256;

const HIDDEN = 128;
const FILTER = 256;
const HOP = 128;
/** The input is padded on the right by reflection, so that four hops fit. */
const PAD_RIGHT = 64;
const BINS = FILTER / 2 + 1;
/** Four: an even number, as the transform takes two at a time. */
const HOPS = (SILERO_INPUT_SAMPLES + PAD_RIGHT - FILTER) / HOP + 1;

interface Conv {
  inChannels: number;
  stride: number;
  /**
   * One product per output step: the weights [out][in × 3, padded to a multiple of 4] (each output
   * channel's as a row) times the step's inputs laid out as such a row (its `x`, shared by all).
   */
  steps: RowProduct[];
}

/** The encoder's convolutions: 3 wide, padded by 1, each followed by a ReLU. */
const ENCODER = [
  { inChannels: BINS, outChannels: 128, stride: 1 },
  { inChannels: 128, outChannels: 64, stride: 2 },
  { inChannels: 64, outChannels: 64, stride: 2 },
  { inChannels: 64, outChannels: HIDDEN, stride: 1 },
] as const;
const KERNEL = 3;

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

export class SileroNetwork {
  /** The transform, through the model's window (periodic Hann in Silero v5). */
  private readonly pairs: FramePairs;
  private readonly power = [new Float64Array(BINS), new Float64Array(BINS)] as const;
  private readonly padded = new Float32Array(SILERO_INPUT_SAMPLES + PAD_RIGHT);
  /** The transform's magnitudes, one array of bins per hop. */
  private readonly spectrum = Array.from({ length: HOPS }, () => new Float32Array(BINS));

  private constructor(
    private readonly kernels: RowKernels,
    window: Float32Array,
    private readonly encoder: Conv[],
    /**
     * The LSTM cell's gates: weights [gate][input, hidden] (gates in PyTorch's order: input,
     * forget, cell, output) times its input then its hidden state (`x`).
     */
    private readonly lstm: RowProduct,
    private readonly head: { weight: Float32Array; bias: number },
  ) {
    this.pairs = new FramePairs(window);
  }

  /** From the bytes of `silero_vad_v5.onnx` (its 16 kHz branch), its arithmetic on `kernels`. */
  static fromOnnx(model: Uint8Array, kernels: RowKernels): SileroNetwork {
    const all = onnxConstants(model);
    const basisName = nameEndingWith(all, 'stft.forward_basis_buffer', [2 * BINS, 1, FILTER]);
    const prefix = basisName.slice(0, -'stft.forward_basis_buffer'.length);
    const get = (name: string, dims: number[]): Float32Array => weightsOf(all, prefix + name, dims);
    let length = HOPS;
    const encoder = ENCODER.map((layer, i) => {
      const { inChannels, outChannels, stride } = layer;
      const width = inChannels * KERNEL;
      length = Math.floor((length + 2 - KERNEL) / stride) + 1;
      const weights = rowsBlock(
        kernels,
        get(`encoder.${i}.reparam_conv.weight`, [outChannels, inChannels, KERNEL]),
        width,
      );
      const bias = filled(kernels, get(`encoder.${i}.reparam_conv.bias`, [outChannels]));
      const x = kernels.block(rowWidth(width));
      const steps = Array.from({ length }, () => ({
        weights,
        x,
        bias,
        out: kernels.block(outChannels),
        rows: outChannels,
        width: rowWidth(width),
        relu: true,
      }));
      return { inChannels, stride, steps };
    });
    if (length !== 1) throw new OnnxModelError(`Silero's encoder leaves ${length} steps, not 1`);
    const inputWeights = get('decoder.rnn.weight_ih', [4 * HIDDEN, HIDDEN]);
    const hiddenWeights = get('decoder.rnn.weight_hh', [4 * HIDDEN, HIDDEN]);
    const weights = kernels.block(4 * HIDDEN * 2 * HIDDEN);
    for (let g = 0; g < 4 * HIDDEN; g++) {
      weights.data.set(inputWeights.subarray(g * HIDDEN, (g + 1) * HIDDEN), g * 2 * HIDDEN);
      weights.data.set(hiddenWeights.subarray(g * HIDDEN, (g + 1) * HIDDEN), g * 2 * HIDDEN + HIDDEN);
    }
    const inputBias = get('decoder.rnn.bias_ih', [4 * HIDDEN]);
    const hiddenBias = get('decoder.rnn.bias_hh', [4 * HIDDEN]);
    const lstm = {
      weights,
      x: kernels.block(2 * HIDDEN),
      bias: filled(
        kernels,
        inputBias.map((b, i) => b + (hiddenBias[i] as number)),
      ),
      out: kernels.block(4 * HIDDEN),
      rows: 4 * HIDDEN,
      width: 2 * HIDDEN,
      relu: false,
    };
    return new SileroNetwork(
      kernels,
      windowOf(get('stft.forward_basis_buffer', [2 * BINS, 1, FILTER])),
      encoder,
      lstm,
      {
        weight: get('decoder.decoder.2.weight', [1, HIDDEN, 1]),
        bias: get('decoder.decoder.2.bias', [1])[0] as number,
      },
    );
  }

  /**
   * The speech probability of one window (`SILERO_INPUT_SAMPLES` floats in -1..1), carrying
   * `state` (`SILERO_STATE_SIZE` floats: hidden, then cell) from the window before to this one.
   */
  probability(input: Float32Array, state: Float32Array): number {
    this.transform(input);
    let steps: Float32Array[] = this.spectrum;
    for (const conv of this.encoder) steps = this.convRelu(conv, steps);
    this.step(steps[0] as Float32Array, state);
    let sum = this.head.bias;
    for (let i = 0; i < HIDDEN; i++) {
      const h = state[i] as number;
      if (h > 0) sum += h * (this.head.weight[i] as number);
    }
    return sigmoid(sum);
  }

  /** The magnitudes of the short-time Fourier transform. */
  private transform(input: Float32Array): void {
    const { padded, power } = this;
    padded.set(input);
    const n = SILERO_INPUT_SAMPLES;
    for (let i = 0; i < PAD_RIGHT; i++) padded[n + i] = input[n - 2 - i] as number;
    // An even number of hops: two a transform.
    for (let t = 0; t < HOPS; t += 2) {
      this.pairs.power(padded, t * HOP, (t + 1) * HOP, power[0], power[1]);
      for (let p = 0; p < 2; p++) {
        const from = p === 0 ? power[0] : power[1];
        const to = this.spectrum[t + p] as Float32Array;
        for (let k = 0; k < BINS; k++) to[k] = Math.sqrt(from[k] as number);
      }
    }
  }

  /** A convolution 3 wide, padded by one step on each side, then a ReLU: steps of channels in, steps out. */
  private convRelu(conv: Conv, input: Float32Array[]): Float32Array[] {
    const { inChannels, stride, steps } = conv;
    const out: Float32Array[] = [];
    for (let t = 0; t < steps.length; t++) {
      const product = steps[t] as RowProduct;
      const start = t * stride - 1;
      const column = product.x.data;
      for (let k = 0; k < KERNEL; k++) {
        const step = input[start + k];
        for (let c = 0; c < inChannels; c++) column[c * KERNEL + k] = step ? (step[c] as number) : 0;
      }
      this.kernels.rows(product);
      out.push(product.out.data);
    }
    return out;
  }

  /** One step of the LSTM cell on `x`, updating `state` in place. */
  private step(x: Float32Array, state: Float32Array): void {
    const input = this.lstm.x.data;
    input.set(x.subarray(0, HIDDEN));
    input.set(state.subarray(0, HIDDEN), HIDDEN);
    this.kernels.rows(this.lstm);
    const g = this.lstm.out.data;
    for (let i = 0; i < HIDDEN; i++) {
      const inGate = sigmoid(g[i] as number);
      const forget = sigmoid(g[HIDDEN + i] as number);
      const cell = Math.tanh(g[2 * HIDDEN + i] as number);
      const outGate = sigmoid(g[3 * HIDDEN + i] as number);
      const c = forget * (state[HIDDEN + i] as number) + inGate * cell;
      state[HIDDEN + i] = c;
      state[i] = outGate * Math.tanh(c);
    }
  }
}

/** Silero's basis: the cosines' rows, then the sines'. */
function windowOf(basis: Float32Array): Float32Array {
  return dftWindow(
    basis.subarray(0, BINS * FILTER),
    basis.subarray(BINS * FILTER),
    FILTER,
    BINS,
    "Silero v5's transform",
  );
}
