/*
 * hark's one native function: trim() hands the C heap's free pages back to the system.
 *
 * glibc's free() returns memory to the system only from the top of the main heap; what a turn
 * freed in the middle of a heap, or in one of the heaps of the other threads (the listening
 * thread, onnxruntime's, libuv's), stays resident until malloc_trim(0) releases it.
 */
#include <malloc.h>
#include <node_api.h>

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  if (napi_get_boolean(env, malloc_trim(0) == 1, &released) != napi_ok) return NULL;
  return released;
}

NAPI_MODULE_INIT() {
  napi_value function;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &function) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", function) != napi_ok) return NULL;
  return exports;
}
