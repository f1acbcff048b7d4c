import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runHark } from '../helpers/cli.js';

describe('hark config check, with ${NAME} placeholders', () => {
  it('fails naming each placeholder whose variable is unset, in url and args too; passes once they are set', async () => {
    const env = cleanEnv();
    const config = join(env.HOME as string, 'config.yaml');
    writeFileSync(
      config,
      [
        'tools:',
        '  mcpServers:',
        '    - name: home',
        '      url: "https://mcp.example/api?key=${HOME_KEY}"',
        '      allow: ["*"]',
        '    - name: files',
        '      command: /usr/bin/mcp-files',
        '      args: ["--token=${FILES_TOKEN}"]',
        '      allow: ["*"]',
      ].join('\n'),
    );
    const unset = await runHark(['-c', config, 'config', 'check'], { env });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('tools.mcpServers[0] (home).url: ${HOME_KEY} is not set');
    expect(unset.stderr).toContain('tools.mcpServers[1] (files).args[0]: ${FILES_TOKEN} is not set');
    expect(unset.stdout).not.toMatch(/configuration OK/);
    const set = await runHark(['-c', config, 'config', 'check'], {
      env: { ...env, HOME_KEY: 'home-key-123456', FILES_TOKEN: 'files-token-123456' },
    });
    expect(set).toMatchObject({ code: 0, stdout: expect.stringMatching(/^configuration OK/) as unknown });
  });
});
