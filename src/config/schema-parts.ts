import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod/mini is a twentieth of full zod's code (which hark's start-up spent ~70 ms loading) but
// speaks no language of its own: its messages that reach the user ("Invalid URL") are English.
z.config(en());

/** Words that may not be empty, or none (the default). */
export const nullableString = z._default(z.nullable(z.string().check(z.minLength(1))), null);
/** A number from `min` to `max`, with a default. */
export const between = (min: number, max: number, fallback: number) =>
  z._default(z.number().check(z.minimum(min), z.maximum(max)), fallback);
/** A whole number from `min` to `max`, with a default. */
export const count = (min: number, max: number, fallback: number) =>
  z._default(z.int().check(z.minimum(min), z.maximum(max)), fallback);
/** Whole milliseconds from `min` to `max`, with a default. */
export const ms = count;
/** One of `values`, with a default. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z._default(z.enum(values), fallback);
/** Words that may not be empty, with a default. */
export const text = (fallback: string) => z._default(z.string().check(z.minLength(1)), fallback);
/** On or off, with a default. */
export const flag = (fallback: boolean) => z._default(z.boolean(), fallback);
/** A section of the file: only its known options, each with its default when the section is left out. */
export const section = <T extends z.core.$ZodLooseShape>(shape: T) => {
  const object = z.strictObject(shape);
  // Each option of a section has a default, which TypeScript cannot see of any shape T.
  return z.prefault(object, {} as z.input<typeof object>);
};

// Made on first use: ICU's language names keep 3.6 MiB of Node's own pages resident, and a
// configuration with no language set never looks one up.
let languages: Intl.DisplayNames | undefined;

/** Why `code` is no language code (ISO 639, with a region or script if wanted: en, zh, pt-BR), if it is none. */
export function languageProblem(code: string): string | undefined {
  let name: string | undefined;
  try {
    languages ??= new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
    name = languages.of(code);
  } catch {
    name = undefined;
  }
  return name === undefined ? `"${code}" is not a language code (ISO 639, such as en, zh or de)` : undefined;
}

/** A spoken language's code, or none (the default). */
export const languageCode = z._default(
  z.nullable(
    z.string().check(
      z.refine((code) => languageProblem(code) === undefined, {
        error: (issue) => languageProblem(String(issue.input)) ?? 'is not a language code',
      }),
    ),
  ),
  null,
);
