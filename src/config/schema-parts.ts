import { z } from 'zod';

/** Whole milliseconds within a range, with a default. */
export const ms = (min: number, max: number, fallback: number) => z.number().int().min(min).max(max).default(fallback);
export const nullableString = z.string().min(1).nullable().default(null);
