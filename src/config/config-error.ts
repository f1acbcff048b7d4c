import type * as z from 'zod/mini';

/** A configuration that cannot be used: every problem, each naming where it came from and what is allowed. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

type Path = readonly PropertyKey[];

export function formatPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

export function valueAt(root: unknown, path: Path): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Words a person can act on, for the zod issue kinds a config file runs into. */
export function describeIssue(issue: z.core.$ZodIssue, raw: unknown, defaults: unknown): string {
  const got = valueAt(raw, issue.path);
  const shown = got === undefined ? '' : ` (got ${JSON.stringify(got)})`;
  switch (issue.code) {
    case 'too_big':
      return `must be at most ${String(issue.maximum)}${issue.inclusive === false ? ' (exclusive)' : ''}${shown}`;
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array'
        ? `must not be empty${shown}`
        : `must be at least ${String(issue.minimum)}${issue.inclusive === false ? ' (exclusive)' : ''}${shown}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}${shown}`;
    case 'invalid_union':
      return `${unionAllowed(issue)}${shown}`;
    case 'invalid_type':
      return `must be ${issue.expected === 'int' ? 'a whole number' : `${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`}${shown}`;
    case 'unrecognized_keys': {
      const known = valueAt(defaults, issue.path);
      const options = typeof known === 'object' && known !== null ? Object.keys(known).join(', ') : '';
      return `unknown option ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}${options ? ` (known here: ${options})` : ''}`;
    }
    default:
      return issue.message;
  }
}

function unionAllowed(issue: z.core.$ZodIssueInvalidUnion): string {
  const values = issue.errors.flat().flatMap((inner) => (inner.code === 'invalid_value' ? inner.values : []));
  return values.length ? `must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}` : issue.message;
}
