import { z } from 'zod';
import { ms, nullableString } from './schema-parts.js';

/** `${NAME}` in a header or an environment value: filled in from the environment or a systemd credential. */
export const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Names whose values are secrets: they must be placeholders, never written in the file. */
const SECRET_NAME = /authorization|token|secret|password|api[-_]?key|cookie/i;

const mcpServer = z
  .object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, "_" or "-", at most 32'),
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    url: z.url({ protocol: /^https?$/ }).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    allow: z.array(z.string().min(1)).min(1),
  })
  .strict()
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'needs exactly one of command (stdio) or url (streamable HTTP)',
      });
    }
    for (const [field, values] of [
      ['headers', server.headers],
      ['env', server.env],
    ] as const) {
      for (const [name, value] of Object.entries(values)) {
        if (SECRET_NAME.test(name) && !new RegExp(PLACEHOLDER.source).test(value)) {
          ctx.addIssue({
            code: 'custom',
            path: [field, name],
            message:
              'a secret is never written in a config file: write ${SOME_NAME} and give SOME_NAME in the environment or as a systemd credential',
          });
        }
      }
    }
  });

/** The `tools` section: built-in tools and MCP servers. */
export const tools = z
  .object({
    enabled: z.boolean().default(true),
    maxRounds: z.number().int().min(1).max(10).default(4),
    callTimeoutMs: ms(100, 120_000, 10_000),
    maxResultChars: z.number().int().min(100).max(100_000).default(2000),
    time: z
      .object({ enabled: z.boolean().default(true), timeZone: nullableString })
      .strict()
      .prefault({}),
    timers: z
      .object({
        enabled: z.boolean().default(true),
        ringMaxMs: ms(1000, 3_600_000, 120_000),
        repeatPauseMs: ms(0, 60_000, 2000),
        snoozeMs: ms(10_000, 3_600_000, 300_000),
      })
      .strict()
      .prefault({}),
    volume: z
      .object({ enabled: z.boolean().default(true), stepPercent: z.number().int().min(1).max(50).default(10) })
      .strict()
      .prefault({}),
    mcpServers: z.array(mcpServer).default([]),
  })
  .strict()
  .prefault({});
