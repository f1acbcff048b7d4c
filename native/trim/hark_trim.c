/*
 * hark's one native function: trim() hands the C heap's free pages back to the system, on one of
 * libuv's threads, and resolves to whether any were. The thread that asks goes on meanwhile.
 *
 * glibc's free() returns memory to the system only from the top of the main heap; what a turn
 * freed in the middle of a heap, or in one of the heaps of the other threads (the listening
 * thread, onnxruntime's, libuv's), stays resident until malloc_trim(0) releases it.
 */
#include <malloc.h>
#include <stdlib.h>
#include <node_api.h>

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  int released;
} Trim;

static void run(napi_env env, void *data) {
  (void)env;
  ((Trim *)data)->released = malloc_trim(0);
}

static void settle(napi_env env, napi_status status, void *data) {
  Trim *trim = data;
  napi_value released = NULL;
  if (napi_get_boolean(env, status == napi_ok && trim->released == 1, &released) != napi_ok)
    napi_get_undefined(env, &released);
  napi_resolve_deferred(env, trim->deferred, released);
  napi_delete_async_work(env, trim->work);
  free(trim);
}

static napi_value start(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value promise, name, message, error = NULL;
  Trim *trim = calloc(1, sizeof *trim);
  if (trim == NULL) {
    napi_throw_error(env, NULL, "hark-trim: out of memory");
    return NULL;
  }
  if (napi_create_promise(env, &trim->deferred, &promise) != napi_ok) {
    free(trim);
    napi_throw_error(env, NULL, "hark-trim: could not make a promise");
    return NULL;
  }
  if (napi_create_string_utf8(env, "hark-trim", NAPI_AUTO_LENGTH, &name) == napi_ok &&
      napi_create_async_work(env, NULL, name, run, settle, trim, &trim->work) == napi_ok) {
    if (napi_queue_async_work(env, trim->work) == napi_ok) return promise;
    napi_delete_async_work(env, trim->work);
  }
  /* Not queued: the promise is settled now, so that nothing waits on it for ever. */
  if (napi_create_string_utf8(env, "hark-trim: could not queue the trim", NAPI_AUTO_LENGTH, &message) != napi_ok ||
      napi_create_error(env, NULL, message, &error) != napi_ok)
    napi_get_undefined(env, &error);
  napi_reject_deferred(env, trim->deferred, error);
  free(trim);
  return promise;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, start, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", function) != napi_ok) return NULL;
  return exports;
}
