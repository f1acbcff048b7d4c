/** A request that breaks one of the service's published limits: refused before it is sent. */
export class RequestValidationError extends Error {
  override readonly name = 'RequestValidationError';
  constructor(
    readonly field: string,
    readonly limit: string,
    readonly actual?: string,
  ) {
    super(`${field}: ${limit}${actual === undefined ? '' : ` (got ${actual})`}`);
  }
}
