/** What was thrown, as an Error: itself when it is one, else one with its text. */
export function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(String(thrown));
}
