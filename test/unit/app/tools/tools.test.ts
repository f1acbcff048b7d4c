import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resultText } from '../../../../src/app/tools/mcp.js';
import { fillPlaceholders } from '../../../../src/config/secret-values.js';
import { stateDirectory } from '../../../../src/app/tools/tools.js';
import { redact } from '../../../../src/system/secrets.js';

describe('MCP settings', () => {
  it('a ${NAME} in a header or env value comes from the environment, else a systemd credential, and is redacted', () => {
    expect(fillPlaceholders('Bearer ${HASS_TOKEN}', { HASS_TOKEN: 'tok-123456789' })).toBe('Bearer tok-123456789');
    expect(redact('sent Bearer tok-123456789')).not.toContain('tok-123456789');
    const credentials = mkdtempSync(join(tmpdir(), 'hark-cred-'));
    writeFileSync(join(credentials, 'HASS_TOKEN'), 'from-credential-987\n');
    expect(fillPlaceholders('${HASS_TOKEN}', { CREDENTIALS_DIRECTORY: credentials })).toBe('from-credential-987');
    expect(() => fillPlaceholders('${MISSING}', {})).toThrow(
      '${MISSING} is not set in the environment or as a credential',
    );
  });

  it("a result's text parts are joined; other content is named, not dumped", () => {
    expect(
      resultText([
        { type: 'text', text: 'Kitchen lights off.' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
      ]),
    ).toBe('Kitchen lights off.\n[image image/png]');
  });
});

describe('the state directory', () => {
  it("is systemd's StateDirectory, else $XDG_STATE_HOME/hark, else ~/.local/state/hark", () => {
    expect(stateDirectory({ STATE_DIRECTORY: '/var/lib/hark', XDG_STATE_HOME: '/x' })).toBe('/var/lib/hark');
    expect(stateDirectory({ XDG_STATE_HOME: '/x' })).toBe('/x/hark');
    expect(stateDirectory({})).toMatch(/\/\.local\/state\/hark$/);
  });
});
