import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerSecret } from '../system/secrets.js';
import { PLACEHOLDER } from './tools-schema.js';

/**
 * `${NAME}` → the environment's NAME, else the systemd credential NAME; each filled-in value is
 * registered as a secret. A missing one is an error naming it.
 */
export function fillPlaceholders(value: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(new RegExp(PLACEHOLDER.source, 'g'), (_, name: string) => {
    let secret = env[name];
    if (secret === undefined && env.CREDENTIALS_DIRECTORY) {
      try {
        secret = readFileSync(join(env.CREDENTIALS_DIRECTORY, name), 'utf8').trim();
      } catch {
        secret = undefined;
      }
    }
    if (secret === undefined) throw new Error(`\${${name}} is not set in the environment or as a credential`);
    registerSecret(secret);
    return secret;
  });
}
