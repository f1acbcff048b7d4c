import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { loadConfig } from '../../../src/config/load.js';
import { maskUrl, shownConfig, unsetPlaceholders } from '../../../src/config/secret-values.js';
import { redact } from '../../../src/system/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-secret-values-'));
const bare = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'none') };

function configWith(servers: string): string {
  const path = join(dir, `config-${Math.random().toString(16).slice(2)}.yaml`);
  writeFileSync(path, `tools:\n  mcpServers:\n${servers}`);
  return path;
}

describe('secrets in URLs', () => {
  it("an MCP server's user name, password and query values are masked where the configuration is shown, and scrubbed", () => {
    const path = configWith(
      [
        '    - name: home',
        '      url: https://hark-owner:open%21sesame-42@mcp.example/api/mcp?key=qs-secret-31337&mode=full',
        '      allow: ["*"]',
      ].join('\n'),
    );
    const loaded = loadConfig({
      configPath: path,
      env: { ...bare, HARK_SERVICE_BASE_URL: 'http://svc:pw-in-base-url@127.0.0.1:9/?sig=base-sig-777' },
    });
    const shown = YAML.stringify(shownConfig(loaded.config));
    expect(shown).toContain('url: https://***:***@mcp.example/api/mcp?key=***&mode=***');
    expect(shown).toContain('baseUrl: http://***:***@127.0.0.1:9/?sig=***');
    expect(shown).not.toMatch(/hark-owner|sesame|qs-secret|pw-in-base|base-sig/);
    // Quoted anywhere else (an error, a log line): scrubbed, as written and decoded.
    expect(redact('GET https://hark-owner:open%21sesame-42@mcp.example/?key=qs-secret-31337 failed')).toBe(
      'GET https://***:***@mcp.example/?key=*** failed',
    );
    expect(redact('password open!sesame-42')).toBe('password ***');
  });

  it('masks nothing in a URL without secrets', () => {
    expect(maskUrl('https://mcp.example/api/mcp')).toBe('https://mcp.example/api/mcp');
    expect(maskUrl('not a url')).toBe('not a url');
  });
});

describe('${NAME} placeholders', () => {
  const server = (fields: string) => configWith(['    - name: home', fields, '      allow: ["*"]'].join('\n'));

  it('are found in the url, args, env and headers, and each one unset is named', () => {
    const path = server(
      [
        '      command: /usr/bin/mcp-home',
        '      args: ["--token=${ARG_TOKEN}", "--verbose"]',
        '      env: { HOME_TOKEN: "${ENV_TOKEN}" }',
        '      headers: { Authorization: "Bearer ${HEADER_TOKEN}" }',
      ].join('\n'),
    );
    const { config } = loadConfig({ configPath: path, env: bare });
    expect(unsetPlaceholders(config, { ENV_TOKEN: 'set-here' })).toEqual([
      "tools.mcpServers[0] (home).args[0]: ${ARG_TOKEN} is not set: give ARG_TOKEN in the environment (or the unit's EnvironmentFile) or as a systemd credential",
      "tools.mcpServers[0] (home).headers.Authorization: ${HEADER_TOKEN} is not set: give HEADER_TOKEN in the environment (or the unit's EnvironmentFile) or as a systemd credential",
    ]);
    const credentials = mkdtempSync(join(dir, 'credentials-'));
    writeFileSync(join(credentials, 'HEADER_TOKEN'), 'from-a-credential\n');
    expect(unsetPlaceholders(config, { ENV_TOKEN: 'x', ARG_TOKEN: 'y', CREDENTIALS_DIRECTORY: credentials })).toEqual(
      [],
    );
  });

  it('in a URL too, where the placeholder itself is no secret (its value is, once filled in)', () => {
    const { config } = loadConfig({
      configPath: server('      url: "https://mcp.example/api?key=${URL_KEY}"'),
      env: bare,
    });
    expect(unsetPlaceholders(config, {})).toEqual([
      "tools.mcpServers[0] (home).url: ${URL_KEY} is not set: give URL_KEY in the environment (or the unit's EnvironmentFile) or as a systemd credential",
    ]);
    expect(redact('the placeholder ${URL_KEY}')).toBe('the placeholder ${URL_KEY}');
  });
});
