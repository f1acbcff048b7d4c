import { describe, expect, it } from 'vitest';
import { StreamRedactor, excerpt, redact, registerSecret } from '../../../src/system/secrets.js';

const KEY = 'sk-secrets-test-4f2a9c7e1b';
registerSecret(KEY);

describe('secrets', () => {
  it('excerpt scrubs before it cuts, so no part of a secret survives the cut', () => {
    const text = `${'x'.repeat(70)}${KEY} and more`;
    expect(excerpt(text, 80)).toBe(`${'x'.repeat(70)}*** and mo`);
  });

  it('a secret split across streamed pieces is still scrubbed, however it is split', () => {
    const text = `Your key is ${KEY}, and again ${KEY}.`;
    for (let cut = 1; cut < text.length; cut++) {
      for (const step of [1, 3, 7]) {
        const redactor = new StreamRedactor();
        let out = redactor.push(text.slice(0, cut));
        for (let at = cut; at < text.length; at += step) out += redactor.push(text.slice(at, at + step));
        out += redactor.end();
        expect(out).toBe('Your key is ***, and again ***.');
      }
    }
  });

  it('holds back only what could be the start of a secret: other text passes at once', () => {
    const redactor = new StreamRedactor();
    expect(redactor.push('Hello there, ')).toBe('Hello there, ');
    expect(redactor.push('the key is sk-sec')).toBe('the key is ');
    expect(redactor.push('ond thoughts.')).toBe('sk-second thoughts.');
    expect(redactor.end()).toBe('');
  });
});

describe('a secret holding `"` or `\\`', () => {
  const QUOTED = 'sk-"quoted"\\back\\slash-77e1';
  registerSecret(QUOTED);

  it('is scrubbed as written, and from text already serialised as JSON, where those characters are escaped', () => {
    expect(redact(`key ${QUOTED} end`)).toBe('key *** end');
    const json = JSON.stringify({ error: `bad key ${QUOTED}` });
    expect(json).not.toContain(QUOTED);
    expect(redact(json)).toBe('{"error":"bad key ***"}');
    // A log line kept for the page and sent again as JSON: escaped twice, scrubbed at the first.
    expect(redact(JSON.stringify({ lines: [redact(json)] }))).not.toMatch(/quoted|back/);
  });
});
