import * as z from 'zod/mini';
import { count, flag, ms, nullableString, section } from './schema-parts.js';

/** `${NAME}` in a header or an environment value: filled in from the environment or a systemd credential. */
export const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** Names whose values are secrets: they must be placeholders, never written in the file. */
const SECRET_NAME = /authorization|token|secret|password|api[-_]?key|cookie/i;

const mcpServer = z
  .strictObject({
    name: z.string().check(z.regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, "_" or "-", at most 32')),
    command: z.optional(z.string().check(z.minLength(1))),
    args: z._default(z.array(z.string()), []),
    env: z._default(z.record(z.string(), z.string()), {}),
    url: z.optional(z.url({ protocol: /^https?$/ })),
    headers: z._default(z.record(z.string(), z.string()), {}),
    allow: z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
  })
  .check(
    z.superRefine((server, ctx) => {
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
    }),
  );

/** The `tools` section: built-in tools and MCP servers. */
export const tools = section({
  enabled: flag(true),
  maxRounds: count(1, 10, 4),
  callTimeoutMs: ms(100, 120_000, 10_000),
  maxResultChars: count(100, 100_000, 2000),
  time: section({ enabled: flag(true), timeZone: nullableString }),
  timers: section({
    enabled: flag(true),
    ringMaxMs: ms(1000, 3_600_000, 120_000),
    repeatPauseMs: ms(0, 60_000, 2000),
    snoozeMs: ms(10_000, 3_600_000, 300_000),
  }),
  volume: section({ enabled: flag(true), stepPercent: count(1, 50, 10) }),
  mcpServers: z._default(z.array(mcpServer), []),
});
