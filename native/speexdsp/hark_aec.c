/*
 * hark's entry points into speexdsp's acoustic echo canceller (MDF, mdf.c) and its residual
 * echo suppressor (preprocess.c), for a WebAssembly module that imports nothing.
 * One canceller owns three frame buffers inside the module's memory: the caller writes the
 * microphone and reference frames there, calls hark_aec_process, and reads the output.
 * mdf.c is included (not linked) so that the state can be read for hark's logs.
 */
#include "mdf.c"
#include <speex/speex_preprocess.h>

typedef struct {
  SpeexEchoState *echo;
  SpeexPreprocessState *pre; /* NULL: no residual echo suppression */
  int frame;
  spx_int16_t *mic, *ref, *out;
  spx_int32_t *response; /* scratch for the impulse response */
} HarkAec;

__attribute__((export_name("hark_aec_create")))
HarkAec *hark_aec_create(int frame, int filter, int rate, int suppress_db, int suppress_active_db, int noise_db) {
  HarkAec *h = calloc(1, sizeof(HarkAec));
  if (!h) return NULL;
  h->frame = frame;
  h->echo = speex_echo_state_init(frame, filter);
  h->mic = calloc(frame, sizeof(spx_int16_t));
  h->ref = calloc(frame, sizeof(spx_int16_t));
  h->out = calloc(frame, sizeof(spx_int16_t));
  if (!h->echo || !h->mic || !h->ref || !h->out) return NULL;
  /* The response covers whole frames: M * frame samples, more than `filter` when it is not a multiple. */
  h->response = calloc(h->echo->M * frame, sizeof(spx_int32_t));
  if (!h->response) return NULL;
  speex_echo_ctl(h->echo, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
  if (suppress_db < 0) {
    int off = 0, on = 1;
    h->pre = speex_preprocess_state_init(frame, rate);
    if (!h->pre) return NULL;
    /* The suppressor's gains are applied only with the denoiser on; noise_db 0 keeps the noise as it is. */
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_DENOISE, &on);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise_db);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_AGC, &off);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_VAD, &off);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_DEREVERB, &off);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &suppress_db);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &suppress_active_db);
    speex_preprocess_ctl(h->pre, SPEEX_PREPROCESS_SET_ECHO_STATE, h->echo);
  }
  return h;
}

__attribute__((export_name("hark_aec_mic"))) spx_int16_t *hark_aec_mic(HarkAec *h) { return h->mic; }
__attribute__((export_name("hark_aec_ref"))) spx_int16_t *hark_aec_ref(HarkAec *h) { return h->ref; }
__attribute__((export_name("hark_aec_out"))) spx_int16_t *hark_aec_out(HarkAec *h) { return h->out; }

__attribute__((export_name("hark_aec_process")))
void hark_aec_process(HarkAec *h) {
  speex_echo_cancellation(h->echo, h->mic, h->ref, h->out);
  if (h->pre) speex_preprocess_run(h->pre, h->out);
}

__attribute__((export_name("hark_aec_reset")))
void hark_aec_reset(HarkAec *h) {
  speex_echo_state_reset(h->echo);
}

/* 1 once the adaptive filter has adapted (MDF's own judgement), else 0. */
__attribute__((export_name("hark_aec_adapted")))
int hark_aec_adapted(HarkAec *h) { return h->echo->adapted; }

/* Where the filter's impulse response peaks, in samples from its start; -1 when it is all zero. */
__attribute__((export_name("hark_aec_peak")))
int hark_aec_peak(HarkAec *h) {
  int size = 0, i, best = -1;
  double max = 0;
  speex_echo_ctl(h->echo, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &size);
  speex_echo_ctl(h->echo, SPEEX_ECHO_GET_IMPULSE_RESPONSE, h->response);
  for (i = 0; i < size; i++) {
    double v = h->response[i] < 0 ? -(double)h->response[i] : (double)h->response[i];
    if (v > max) { max = v; best = i; }
  }
  return best;
}

__attribute__((export_name("hark_aec_destroy")))
void hark_aec_destroy(HarkAec *h) {
  if (h->pre) speex_preprocess_state_destroy(h->pre);
  speex_echo_state_destroy(h->echo);
  free(h->mic); free(h->ref); free(h->out); free(h->response);
  free(h);
}
