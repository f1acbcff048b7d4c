/*
 * hark's entry points into speexdsp's noise suppressor (preprocess.c), for the wake word's
 * input: the same suppressor openWakeWord offers (speexdsp's defaults: denoise on, AGC, VAD
 * and dereverberation off). One denoiser owns one frame buffer inside the module's memory:
 * the caller writes a frame there, calls hark_denoise_process, and reads it back denoised.
 * The output lags the input by one frame (the suppressor's overlap-add).
 */
#include <stdlib.h>
#include <speex/speex_preprocess.h>

typedef struct {
  SpeexPreprocessState *pre;
  spx_int16_t *frame;
} HarkDenoise;

__attribute__((export_name("hark_denoise_create")))
HarkDenoise *hark_denoise_create(int frame, int rate, int noise_db) {
  HarkDenoise *h = calloc(1, sizeof(HarkDenoise));
  int on = 1, off = 0;
  if (!h) return NULL;
  h->pre = speex_preprocess_state_init(frame, rate);
  h->frame = calloc(frame, sizeof(spx_int16_t));
  if (!h->pre || !h->frame) return NULL;
  speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_DENOISE, &on);
  speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise_db);
  speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_AGC, &off);
  speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_VAD, &off);
  speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_DEREVERB, &off);
  return h;
}

__attribute__((export_name("hark_denoise_frame"))) spx_int16_t *hark_denoise_frame(HarkDenoise *h) { return h->frame; }

__attribute__((export_name("hark_denoise_process")))
void hark_denoise_process(HarkDenoise *h) { speex_preprocess_run(h->pre, h->frame); }

__attribute__((export_name("hark_denoise_destroy")))
void hark_denoise_destroy(HarkDenoise *h) {
  speex_preprocess_state_destroy(h->pre);
  free(h->frame);
  free(h);
}
