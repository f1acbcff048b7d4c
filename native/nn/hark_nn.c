/*
 * hark's neural-network kernels, built to WebAssembly with 128-bit SIMD by build.sh: the
 * products of weights and inputs that the listening models spend their time in. No libc; the
 * memory is laid out once by hark_nn_alloc and never freed (a model's weights live as long as
 * its instance).
 */
#include <wasm_simd128.h>

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
      s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(row + i), wasm_v128_load(x + i)));
      s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(row + i + 4), wasm_v128_load(x + i + 4)));
      s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(wasm_v128_load(row + i + 8), wasm_v128_load(x + i + 8)));
      s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(wasm_v128_load(row + i + 12), wasm_v128_load(x + i + 12)));
    }
    for (; i < width; i += 4) s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(row + i), wasm_v128_load(x + i)));
    v128_t s = wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3));
    float sum = bias[r] + wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
                wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
    out[r] = relu && sum < 0.f ? 0.f : sum;
  }
}
