import YAML from 'yaml';
import * as z from 'zod/mini';
import { configSchema, defaultConfig } from './schema.js';

/** HARK_* variables that are not config options: secrets, the config file, ffmpeg, and the tests' and benchmarks' own. */
const RESERVED = new Set(['HARK_API_KEY', 'HARK_WEB_TOKEN', 'HARK_CONFIG', 'HARK_FFMPEG']);
const RESERVED_PREFIXES = ['HARK_TEST_', 'HARK_BENCH_'];

/** `chat.systemPrompt` → `HARK_CHAT_SYSTEM_PROMPT`. */
export function envName(path: readonly string[]): string {
  return `HARK_${path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_')}`;
}

function leaves(node: unknown, path: string[], out: Map<string, { path: string[]; sample: unknown }>): void {
  if (typeof node === 'object' && node !== null && !Array.isArray(node)) {
    for (const [key, value] of Object.entries(node)) leaves(value, [...path, key], out);
  } else {
    out.set(envName(path), { path, sample: node });
  }
}

let table: Map<string, { path: string[]; sample: unknown }> | undefined;

/** Every option's environment variable, derived from the schema so the two cannot drift apart. */
export function envTable(): Map<string, { path: string[]; sample: unknown }> {
  if (!table) {
    table = new Map();
    leaves(defaultConfig(), [], table);
  }
  return table;
}

/** The overrides the environment asks for, as a nested object, plus any HARK_* name that is no option. */
export function envOverrides(env: NodeJS.ProcessEnv): { values: Record<string, unknown>; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('HARK_') || RESERVED.has(name) || raw === undefined) continue;
    if (RESERVED_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const entry = envTable().get(name);
    if (!entry) {
      problems.push(
        `environment: ${name}: no such option (each option's variable is listed by 'hark config show --env')`,
      );
      continue;
    }
    let node = values;
    for (const key of entry.path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
    node[entry.path.at(-1) as string] = parseValue(raw, entry);
  }
  return { values, problems };
}

/**
 * Strings stay strings; numbers, booleans, null and lists are read as YAML (`[hey hark, ok hark]`).
 * An option with no default that takes text keeps the text as written (`Warm: like a radio
 * host` is no YAML mapping, `# narrator` no comment); `null`, `~` or nothing there means none.
 */
function parseValue(raw: string, entry: { path: string[]; sample: unknown }): unknown {
  if (typeof entry.sample === 'string') return raw;
  if (entry.sample === null) {
    if (/^\s*(null|~)?\s*$/.test(raw)) return null;
    if (takesText(entry.path)) return raw;
  }
  try {
    return YAML.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Whether the option accepts a line of text, as its own schema answers (rules across options apart). */
function takesText(path: readonly string[]): boolean {
  let node: unknown = configSchema;
  for (const key of path) node = objectIn(node)?.shape[key];
  return node instanceof z.ZodMiniType && node.safeParse('some text').success;
}

/** The object schema inside a section's wrappers (default, prefault, optional, nullable). */
function objectIn(schema: unknown): z.ZodMiniObject | undefined {
  let node = schema;
  while (node instanceof z.ZodMiniType && !(node instanceof z.ZodMiniObject)) {
    node = (node.def as { innerType?: unknown }).innerType;
  }
  return node instanceof z.ZodMiniObject ? node : undefined;
}
