/**
 * Runs `work` once the event loop has been through its I/O and its check phase: what the ready
 * I/O callbacks queued for that phase goes first. undici writes a request on a kept-alive
 * connection in the check phase after it was asked for (having first read what the server may
 * have sent on the idle socket); a single `setImmediate` queued before that request was
 * dispatched would run ahead of the write. The function returned cancels it.
 */
export function afterIo(work: () => void): () => void {
  let handle = setImmediate(() => {
    handle = setImmediate(work);
  });
  return () => clearImmediate(handle);
}
