import { RequestValidationError } from '../validation-error.js';

export interface Range {
  min?: number;
  minExclusive?: number;
  max: number;
}

/**
 * Collects what is wrong with a request body (errors: the service would refuse it) and what
 * is merely doubtful (warnings: e.g. a parameter that has no effect on the chosen model).
 * Works on the wire JSON, so the client and the stand-in service judge alike.
 */
export class Checker {
  readonly errors: RequestValidationError[] = [];
  readonly warnings: string[] = [];

  fail(field: string, limit: string, actual?: unknown): void {
    this.errors.push(new RequestValidationError(field, limit, actual === undefined ? undefined : show(actual)));
  }

  warn(message: string): void {
    this.warnings.push(message);
  }

  requiredString(field: string, value: unknown): value is string {
    if (typeof value === 'string' && value.length > 0) return true;
    this.fail(field, 'is required and must be a non-empty string', value);
    return false;
  }

  optionalString(field: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'string') this.fail(field, 'must be a string', value);
  }

  optionalBoolean(field: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail(field, 'must be true or false', value);
  }

  optionalObject(field: string, value: unknown): value is Record<string, unknown> | undefined {
    if (value === undefined) return true;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return true;
    this.fail(field, 'must be an object', value);
    return false;
  }

  range(field: string, value: unknown, range: Range): void {
    if (value === undefined) return;
    const low =
      range.minExclusive !== undefined ? `(${range.minExclusive}` : `[${range.min ?? Number.NEGATIVE_INFINITY}`;
    const limit = `must be a number in ${low}, ${range.max}]`;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      this.fail(field, limit, value);
      return;
    }
    const tooLow = range.minExclusive !== undefined ? value <= range.minExclusive : value < (range.min ?? -Infinity);
    if (tooLow || value > range.max) this.fail(field, limit, value);
  }

  oneOf<T extends string | number>(field: string, value: unknown, allowed: readonly T[]): value is T | undefined {
    if (value === undefined) return true;
    if (allowed.includes(value as T)) return true;
    this.fail(field, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, value);
    return false;
  }

  positiveInteger(field: string, value: unknown): void {
    if (value === undefined) return;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      this.fail(field, 'must be a positive integer', value);
    }
  }

  /** The request body as an object, or undefined (and a failure) when it is not one. */
  objectBody(body: unknown): Record<string, unknown> | undefined {
    if (isObject(body)) return body;
    this.fail('body', 'must be a JSON object');
    return undefined;
  }

  /** Throws the first error (naming the field and the limit); returns the warnings. */
  enforce(): string[] {
    const first = this.errors[0];
    if (first) throw first;
    return this.warnings;
  }
}

/** A description of the offending value worked out by the rule (e.g. "30.1 s"), shown unquoted. */
export class Measured {
  constructor(readonly text: string) {}
}

export function measured(text: string): Measured {
  return new Measured(text);
}

function show(value: unknown): string {
  if (value instanceof Measured) return value.text;
  if (typeof value === 'string')
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value === 'object' ? 'an object' : typeof value;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
