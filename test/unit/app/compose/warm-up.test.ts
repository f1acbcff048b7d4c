import { describe, expect, it } from 'vitest';
import { warmUp } from '../../../../src/app/compose/warm-up.js';
import { defaultConfig } from '../../../../src/config/schema.js';

describe('warmUp', () => {
  it('runs a make-believe turn to its end, for either reply interface, and leaves nothing running', async () => {
    for (const api of ['chat', 'messages'] as const) {
      const config = defaultConfig();
      config.service.api = api;
      await expect(warmUp(config)).resolves.toBeUndefined();
    }
  });

  it('does not refuse a configuration the service would refuse: that is reported when the request is made', async () => {
    const config = defaultConfig();
    config.chat.temperature = 99;
    await expect(warmUp(config)).resolves.toBeUndefined();
  });
});
