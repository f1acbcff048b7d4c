/** Runs `work` after the I/O callbacks the event loop has ready (its check phase); the function returned cancels it. */
export function afterIo(work: () => void): () => void {
  const handle = setImmediate(work);
  return () => clearImmediate(handle);
}
