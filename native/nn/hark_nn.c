/*
 * hark's neural-network kernels, built to WebAssembly with 128-bit SIMD by build.sh: the
 * products of weights and inputs that the listening models spend their time in. No libc; the
 * memory is laid out once by hark_nn_alloc and never freed (a model's weights live as long as
 * its instance).
 */
#include <wasm_simd128.h>

/* acc + a × b: one fused multiply-add with -mrelaxed-simd (HARK_RELAXED), else a multiply then an add. */
#ifdef HARK_RELAXED
#define MADD(a, b, acc) wasm_f32x4_relaxed_madd(a, b, acc)
#else
#define MADD(a, b, acc) wasm_f32x4_add(acc, wasm_f32x4_mul(a, b))
#endif

#define EXPORT(name) __attribute__((export_name(name)))

extern unsigned char __heap_base;
static unsigned long top;

/* `bytes` of memory, 16-byte aligned and zeroed; 0 when the memory cannot grow. */
EXPORT("hark_nn_alloc") void *hark_nn_alloc(unsigned long bytes) {
  if (!top) top = ((unsigned long)&__heap_base + 15) & ~15ul;
  unsigned long at = top;
  unsigned long end = (at + bytes + 15) & ~15ul;
  unsigned long pages = (end + 65535) / 65536;
  unsigned long have = __builtin_wasm_memory_size(0);
  if (pages > have && __builtin_wasm_memory_grow(0, pages - have) == (unsigned long)-1) return 0;
  top = end;
  return (void *)at;
}

/*
 * out[r] = bias[r] + the dot product of row r of `weights` (rows × width, row after row) with
 * `x`, for each row; then max(0, ·) when `relu`. `width` is a multiple of 4 and every pointer
 * 16-byte aligned (hark pads its rows so).
 */
EXPORT("hark_nn_rows")
void hark_nn_rows(const float *weights, const float *x, const float *bias, float *out, int rows, int width, int relu) {
  for (int r = 0; r < rows; r++) {
    const float *row = weights + (long)r * width;
    v128_t s0 = wasm_f32x4_splat(0.f), s1 = s0, s2 = s0, s3 = s0;
    int i = 0;
    for (; i + 16 <= width; i += 16) {
      s0 = MADD(wasm_v128_load(row + i), wasm_v128_load(x + i), s0);
      s1 = MADD(wasm_v128_load(row + i + 4), wasm_v128_load(x + i + 4), s1);
      s2 = MADD(wasm_v128_load(row + i + 8), wasm_v128_load(x + i + 8), s2);
      s3 = MADD(wasm_v128_load(row + i + 12), wasm_v128_load(x + i + 12), s3);
    }
    for (; i < width; i += 4) s0 = MADD(wasm_v128_load(row + i), wasm_v128_load(x + i), s0);
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3));
    float sum = bias[r] + wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
                wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
    out[r] = relu && sum < 0.f ? 0.f : sum;
  }
}

/*
 * out[r * positions + p] = bias[r] + row r of `weights` · column p of `columns` (positions ×
 * width, each position's inputs as one row), four rows and four positions at a time.
 */
EXPORT("hark_nn_gemm")
void hark_nn_gemm(const float *weights, const float *columns, const float *bias, float *out, int rows, int width, int positions) {
  int r = 0;
  for (; r + 4 <= rows; r += 4) {
    const float *w0 = weights + (long)r * width, *w1 = w0 + width, *w2 = w1 + width, *w3 = w2 + width;
    int p = 0;
    for (; p + 2 <= positions; p += 2) {
      const float *c0 = columns + (long)p * width, *c1 = c0 + width;
      v128_t s00 = wasm_f32x4_splat(0.f), s01 = s00, s10 = s00, s11 = s00, s20 = s00, s21 = s00, s30 = s00, s31 = s00;
      for (int i = 0; i < width; i += 4) {
        v128_t a = wasm_v128_load(c0 + i), b = wasm_v128_load(c1 + i);
        v128_t x0 = wasm_v128_load(w0 + i), x1 = wasm_v128_load(w1 + i), x2 = wasm_v128_load(w2 + i), x3 = wasm_v128_load(w3 + i);
        s00 = MADD(x0, a, s00); s01 = MADD(x0, b, s01);
        s10 = MADD(x1, a, s10); s11 = MADD(x1, b, s11);
        s20 = MADD(x2, a, s20); s21 = MADD(x2, b, s21);
        s30 = MADD(x3, a, s30); s31 = MADD(x3, b, s31);
      }
#define SUM(v) (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3))
      out[(long)r * positions + p] = bias[r] + SUM(s00); out[(long)r * positions + p + 1] = bias[r] + SUM(s01);
      out[(long)(r + 1) * positions + p] = bias[r + 1] + SUM(s10); out[(long)(r + 1) * positions + p + 1] = bias[r + 1] + SUM(s11);
      out[(long)(r + 2) * positions + p] = bias[r + 2] + SUM(s20); out[(long)(r + 2) * positions + p + 1] = bias[r + 2] + SUM(s21);
      out[(long)(r + 3) * positions + p] = bias[r + 3] + SUM(s30); out[(long)(r + 3) * positions + p + 1] = bias[r + 3] + SUM(s31);
    }
    for (; p < positions; p++) {
      const float *c0 = columns + (long)p * width;
      for (int k = 0; k < 4; k++) {
        const float *w = weights + (long)(r + k) * width;
        v128_t s = wasm_f32x4_splat(0.f);
        for (int i = 0; i < width; i += 4) s = MADD(wasm_v128_load(w + i), wasm_v128_load(c0 + i), s);
        out[(long)(r + k) * positions + p] = bias[r + k] + SUM(s);
      }
    }
  }
  for (; r < rows; r++) {
    const float *w = weights + (long)r * width;
    for (int p = 0; p < positions; p++) {
      const float *c0 = columns + (long)p * width;
      v128_t s = wasm_f32x4_splat(0.f);
      for (int i = 0; i < width; i += 4) s = MADD(wasm_v128_load(w + i), wasm_v128_load(c0 + i), s);
      out[(long)r * positions + p] = bias[r] + SUM(s);
    }
  }
}

/*
 * The columns of a convolution with stride 1 over `input` (channels × rows × width), padded by
 * `left` and `right` zeros along the width only: one row of `span` floats (channels × kh × kw,
 * then zeros to a multiple of 4) per output position, positions row after row.
 */
EXPORT("hark_nn_im2col")
void hark_nn_im2col(const float *input, int channels, int rows, int width, int kh, int kw, int left, int right, float *columns, int span) {
  int outRows = rows - kh + 1, outWidth = width + left + right - kw + 1;
  for (int y = 0; y < outRows; y++) {
    for (int x = 0; x < outWidth; x++) {
      float *col = columns + (long)(y * outWidth + x) * span;
      int at = 0;
      for (int c = 0; c < channels; c++) {
        for (int ky = 0; ky < kh; ky++) {
          const float *row = input + ((long)c * rows + y + ky) * width;
          for (int kx = 0; kx < kw; kx++) {
            int from = x + kx - left;
            col[at++] = from >= 0 && from < width ? row[from] : 0.f;
          }
        }
      }
      for (; at < span; at++) col[at] = 0.f;
    }
  }
}

/* out = max(floor, x < 0 ? alpha x : x), in place over n floats (alpha 1 and floor -inf: nothing). */
EXPORT("hark_nn_leaky_floor")
void hark_nn_leaky_floor(float *x, int n, float alpha, float floor) {
  for (int i = 0; i < n; i++) {
    float v = x[i] < 0.f ? x[i] * alpha : x[i];
    x[i] = v < floor ? floor : v;
  }
}

/* Max pool, no padding: input channels × rows × width, window kh × kw, strides sh × sw. */
EXPORT("hark_nn_max_pool")
void hark_nn_max_pool(const float *input, int channels, int rows, int width, int kh, int kw, int sh, int sw, float *out) {
  int outRows = (rows - kh) / sh + 1, outWidth = (width - kw) / sw + 1;
  for (int c = 0; c < channels; c++)
    for (int y = 0; y < outRows; y++)
      for (int x = 0; x < outWidth; x++) {
        float most = -__builtin_inff();
        for (int ky = 0; ky < kh; ky++)
          for (int kx = 0; kx < kw; kx++) {
            float v = input[((long)c * rows + y * sh + ky) * width + x * sw + kx];
            most = v > most ? v : most;
          }
        out[((long)c * outRows + y) * outWidth + x] = most;
      }
}

static inline __attribute__((always_inline)) void conv_c2v4(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0, a0_1 = b0, a0_2 = b0, a0_3 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  v128_t b1 = wasm_f32x4_splat(bias[o + 1]);
  v128_t a1_0 = b1, a1_1 = b1, a1_2 = b1, a1_3 = b1;
  const float *w1 = weights + (long)(o + 1) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t x1 = wasm_v128_load(s + 4);
        v128_t x2 = wasm_v128_load(s + 8);
        v128_t x3 = wasm_v128_load(s + 12);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
        a0_1 = MADD(k0, x1, a0_1);
        a0_2 = MADD(k0, x2, a0_2);
        a0_3 = MADD(k0, x3, a0_3);
        v128_t k1 = wasm_f32x4_splat(*w1++);
        a1_0 = MADD(k1, x0, a1_0);
        a1_1 = MADD(k1, x1, a1_1);
        a1_2 = MADD(k1, x2, a1_2);
        a1_3 = MADD(k1, x3, a1_3);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 4, a0_1);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 8, a0_2);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 12, a0_3);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 0, a1_0);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 4, a1_1);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 8, a1_2);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 12, a1_3);
}

static inline __attribute__((always_inline)) void conv_c4v2(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0, a0_1 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  v128_t b1 = wasm_f32x4_splat(bias[o + 1]);
  v128_t a1_0 = b1, a1_1 = b1;
  const float *w1 = weights + (long)(o + 1) * perOutput;
  v128_t b2 = wasm_f32x4_splat(bias[o + 2]);
  v128_t a2_0 = b2, a2_1 = b2;
  const float *w2 = weights + (long)(o + 2) * perOutput;
  v128_t b3 = wasm_f32x4_splat(bias[o + 3]);
  v128_t a3_0 = b3, a3_1 = b3;
  const float *w3 = weights + (long)(o + 3) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t x1 = wasm_v128_load(s + 4);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
        a0_1 = MADD(k0, x1, a0_1);
        v128_t k1 = wasm_f32x4_splat(*w1++);
        a1_0 = MADD(k1, x0, a1_0);
        a1_1 = MADD(k1, x1, a1_1);
        v128_t k2 = wasm_f32x4_splat(*w2++);
        a2_0 = MADD(k2, x0, a2_0);
        a2_1 = MADD(k2, x1, a2_1);
        v128_t k3 = wasm_f32x4_splat(*w3++);
        a3_0 = MADD(k3, x0, a3_0);
        a3_1 = MADD(k3, x1, a3_1);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 4, a0_1);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 0, a1_0);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 4, a1_1);
  wasm_v128_store(out + ((long)(o + 2) * outRows + y) * outWidth + x0 + 0, a2_0);
  wasm_v128_store(out + ((long)(o + 2) * outRows + y) * outWidth + x0 + 4, a2_1);
  wasm_v128_store(out + ((long)(o + 3) * outRows + y) * outWidth + x0 + 0, a3_0);
  wasm_v128_store(out + ((long)(o + 3) * outRows + y) * outWidth + x0 + 4, a3_1);
}

static inline __attribute__((always_inline)) void conv_c4v1(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  v128_t b1 = wasm_f32x4_splat(bias[o + 1]);
  v128_t a1_0 = b1;
  const float *w1 = weights + (long)(o + 1) * perOutput;
  v128_t b2 = wasm_f32x4_splat(bias[o + 2]);
  v128_t a2_0 = b2;
  const float *w2 = weights + (long)(o + 2) * perOutput;
  v128_t b3 = wasm_f32x4_splat(bias[o + 3]);
  v128_t a3_0 = b3;
  const float *w3 = weights + (long)(o + 3) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
        v128_t k1 = wasm_f32x4_splat(*w1++);
        a1_0 = MADD(k1, x0, a1_0);
        v128_t k2 = wasm_f32x4_splat(*w2++);
        a2_0 = MADD(k2, x0, a2_0);
        v128_t k3 = wasm_f32x4_splat(*w3++);
        a3_0 = MADD(k3, x0, a3_0);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
  wasm_v128_store(out + ((long)(o + 1) * outRows + y) * outWidth + x0 + 0, a1_0);
  wasm_v128_store(out + ((long)(o + 2) * outRows + y) * outWidth + x0 + 0, a2_0);
  wasm_v128_store(out + ((long)(o + 3) * outRows + y) * outWidth + x0 + 0, a3_0);
}

static inline __attribute__((always_inline)) void conv_c1v4(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0, a0_1 = b0, a0_2 = b0, a0_3 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t x1 = wasm_v128_load(s + 4);
        v128_t x2 = wasm_v128_load(s + 8);
        v128_t x3 = wasm_v128_load(s + 12);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
        a0_1 = MADD(k0, x1, a0_1);
        a0_2 = MADD(k0, x2, a0_2);
        a0_3 = MADD(k0, x3, a0_3);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 4, a0_1);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 8, a0_2);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 12, a0_3);
}

static inline __attribute__((always_inline)) void conv_c1v2(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0, a0_1 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t x1 = wasm_v128_load(s + 4);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
        a0_1 = MADD(k0, x1, a0_1);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 4, a0_1);
}

static inline __attribute__((always_inline)) void conv_c1v1(const float *padded, int channels, int rows, int paddedWidth, const float *weights, int perOutput,
                         const float *bias, int o, int y, int x0, float *out, int outRows, int outWidth, int kh, int kw) {
  v128_t b0 = wasm_f32x4_splat(bias[o + 0]);
  v128_t a0_0 = b0;
  const float *w0 = weights + (long)(o + 0) * perOutput;
  for (int c = 0; c < channels; c++)
    for (int ky = 0; ky < kh; ky++) {
      const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x0;
      for (int kx = 0; kx < kw; kx++) {
        const float *s = src + kx;
        v128_t x0 = wasm_v128_load(s + 0);
        v128_t k0 = wasm_f32x4_splat(*w0++);
        a0_0 = MADD(k0, x0, a0_0);
      }
    }
  wasm_v128_store(out + ((long)(o + 0) * outRows + y) * outWidth + x0 + 0, a0_0);
}

/*
 * A convolution with stride 1 computed directly, four output positions per vector and several
 * output channels at a time: `padded` is the input (channels × rows × paddedWidth, zeros already
 * at both ends of each row), weights outChannels × channels × kh × kw; out is outChannels ×
 * (rows - kh + 1) × outWidth, with outWidth = paddedWidth - kw + 1. Then max(floor, leaky ReLU
 * with alpha).
 */
static inline __attribute__((always_inline)) void conv_shaped(const float *padded, int channels, int rows, int paddedWidth, const float *weights, const float *bias,
                  int outChannels, int kh, int kw, float *out, float alpha, float floor) {
  int outRows = rows - kh + 1, outWidth = paddedWidth - kw + 1;
  int whole = outWidth / 4 * 4;
  int per = channels * kh * kw;
  for (int y = 0; y < outRows; y++) {
    int x0 = 0;
    for (; x0 + 16 <= whole; x0 += 16) {
      int o = 0;
      for (; o + 2 <= outChannels; o += 2) conv_c2v4(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
      for (; o < outChannels; o++) conv_c1v4(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
    }
    for (; x0 + 8 <= whole; x0 += 8) {
      int o = 0;
      for (; o + 4 <= outChannels; o += 4) conv_c4v2(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
      for (; o < outChannels; o++) conv_c1v2(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
    }
    for (; x0 + 4 <= whole; x0 += 4) {
      int o = 0;
      for (; o + 4 <= outChannels; o += 4) conv_c4v1(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
      for (; o < outChannels; o++) conv_c1v1(padded, channels, rows, paddedWidth, weights, per, bias, o, y, x0, out, outRows, outWidth, kh, kw);
    }
    for (int o = 0; o < outChannels; o++) {
      float *dst = out + ((long)o * outRows + y) * outWidth;
      for (int x = whole; x < outWidth; x++) {
        float sum = bias[o];
        const float *w = weights + (long)o * per;
        for (int c = 0; c < channels; c++)
          for (int ky = 0; ky < kh; ky++) {
            const float *src = padded + ((long)c * rows + y + ky) * paddedWidth + x;
            for (int kx = 0; kx < kw; kx++, w++) sum += *w * src[kx];
          }
        dst[x] = sum;
      }
      for (int x = 0; x < outWidth; x++) {
        float v = dst[x] < 0.f ? dst[x] * alpha : dst[x];
        dst[x] = v < floor ? floor : v;
      }
    }
  }
}

/* The kernel shapes openWakeWord's embedding uses get their own copies, with kh and kw known to the compiler. */
EXPORT("hark_nn_conv")
void hark_nn_conv(const float *padded, int channels, int rows, int paddedWidth, const float *weights, const float *bias,
                  int outChannels, int kh, int kw, float *out, float alpha, float floor) {
  if (kh == 1 && kw == 3) conv_shaped(padded, channels, rows, paddedWidth, weights, bias, outChannels, 1, 3, out, alpha, floor);
  else if (kh == 3 && kw == 1) conv_shaped(padded, channels, rows, paddedWidth, weights, bias, outChannels, 3, 1, out, alpha, floor);
  else if (kh == 3 && kw == 3) conv_shaped(padded, channels, rows, paddedWidth, weights, bias, outChannels, 3, 3, out, alpha, floor);
  else conv_shaped(padded, channels, rows, paddedWidth, weights, bias, outChannels, kh, kw, out, alpha, floor);
}

/* `input` (channels × rows × width) into `padded` with `left` and `right` zeros on each row. */
EXPORT("hark_nn_pad_width")
void hark_nn_pad_width(const float *input, int channels, int rows, int width, int left, int right, float *padded) {
  int w2 = width + left + right;
  for (long r = 0; r < (long)channels * rows; r++) {
    float *dst = padded + r * w2;
    for (int i = 0; i < left; i++) dst[i] = 0.f;
    for (int i = 0; i < width; i++) dst[left + i] = input[r * width + i];
    for (int i = 0; i < right; i++) dst[left + width + i] = 0.f;
  }
}
