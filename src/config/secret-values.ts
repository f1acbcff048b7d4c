import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSecret } from '../system/secrets.js';
import { PLACEHOLDER } from './tools-schema.js';
import type { HarkConfig } from './schema.js';

/**
 * Secrets that configuration values carry: in a URL (`https://user:password@host/?key=...`),
 * and as `${NAME}` placeholders filled from the environment or a systemd credential. Both are
 * registered for scrubbing, and masked wherever configuration is shown.
 */

/** What a URL carries that may be secret: its user name, password and query values, as written (percent-encoded) and decoded. */
export function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const written = [
    parsed.username,
    parsed.password,
    ...parsed.search
      .slice(1)
      .split('&')
      .map((pair) => pair.slice(pair.indexOf('=') + 1)),
  ].filter(Boolean);
  return [...written, ...written.map(decoded), ...[...parsed.searchParams.values()]];
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** A URL fit to print: user name, password and every query value masked (`?key=***`). */
export function maskUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  // Written back by hand: URLSearchParams would encode the mask.
  const query = parsed.search
    .slice(1)
    .split('&')
    .filter(Boolean)
    .map((pair) => (pair.includes('=') ? `${pair.slice(0, pair.indexOf('='))}=***` : pair));
  parsed.search = '';
  return `${parsed.href.replace(/#.*$/, '')}${query.length ? `?${query.join('&')}` : ''}${parsed.hash}`;
}

/**
 * Registers what the configuration's URLs carry (the service's, each MCP server's) as secrets; a
 * `${NAME}` is no secret itself, and its value is registered when it is filled in.
 */
export function registerUrlSecrets(urls: readonly unknown[]): void {
  for (const url of urls) {
    if (typeof url !== 'string') continue;
    for (const value of urlSecrets(url)) if (!decoded(value).includes('${')) registerSecret(value);
  }
}

/** The configuration as shown (`config show`, the page's `/api/config`): every URL masked. */
export function shownConfig(config: HarkConfig): HarkConfig {
  return {
    ...config,
    service: { ...config.service, baseUrl: maskUrl(config.service.baseUrl) },
    tools: {
      ...config.tools,
      mcpServers: config.tools.mcpServers.map((server) => ({
        ...server,
        ...(server.url === undefined ? {} : { url: maskUrl(server.url) }),
      })),
    },
  };
}

/** The value of `${NAME}`: the environment's NAME, else the systemd credential NAME; undefined when neither is there. */
function placeholderValue(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const value = env[name];
  if (value !== undefined || !env.CREDENTIALS_DIRECTORY) return value;
  try {
    return readFileSync(join(env.CREDENTIALS_DIRECTORY, name), 'utf8').trim();
  } catch {
    return undefined;
  }
}

const placeholders = (): RegExp => new RegExp(PLACEHOLDER.source, 'g');

/** `${NAME}` → its value (registered as a secret); a missing one is an error naming it. */
export function fillPlaceholders(value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(placeholders(), (_, name: string) => {
    const secret = placeholderValue(name, env);
    if (secret === undefined) throw new Error(`\${${name}} is not set in the environment or as a credential`);
    registerSecret(secret);
    return secret;
  });
}

/**
 * Every `${NAME}` of an MCP server (in its url, args, env or headers) whose NAME is set neither
 * in the environment nor as a credential, as `config check` states it.
 */
export function unsetPlaceholders(config: HarkConfig, env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  config.tools.mcpServers.forEach((server, index) => {
    const fields: [string, string | undefined][] = [
      ['url', server.url],
      ...server.args.map((arg, at): [string, string] => [`args[${at}]`, arg]),
      ...Object.entries(server.env).map(([name, value]): [string, string] => [`env.${name}`, value]),
      ...Object.entries(server.headers).map(([name, value]): [string, string] => [`headers.${name}`, value]),
    ];
    for (const [field, value] of fields) {
      for (const [, name] of (value ?? '').matchAll(placeholders())) {
        if (placeholderValue(name as string, env) !== undefined) continue;
        problems.push(
          `tools.mcpServers[${index}] (${server.name}).${field}: \${${name}} is not set: give ${name} in the environment (or the unit's EnvironmentFile) or as a systemd credential`,
        );
      }
    }
  });
  return problems;
}
