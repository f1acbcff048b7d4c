import { describe, expect, it } from 'vitest';
import { runHark } from '../helpers/cli.js';

describe('log format', () => {
  it('--log-format pretty: readable lines; piped output stays JSON lines by default', async () => {
    const pretty = await runHark(['--sim', '--log-format', 'pretty', '--log-level', 'debug', 'chat', 'hello']);
    expect(pretty.code).toBe(0);
    expect(pretty.stderr).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: sim\.started \{"url":"http:\/\/127\.0\.0\.1:\d+"\}$/m,
    );
    expect(pretty.stderr).not.toMatch(/^\{/m);
    const piped = await runHark(['--sim', '--log-level', 'debug', 'chat', 'hello']);
    expect(
      piped.stderr
        .split('\n')
        .filter(Boolean)
        .every((line) => line.startsWith('{"level":')),
    ).toBe(true);
  });
});
