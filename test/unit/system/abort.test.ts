import { firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { whenAborted } from '../../../src/system/abort.js';

describe('whenAborted', () => {
  it('emits at once for a signal aborted before anyone listened (a Ctrl-C while the command got ready)', async () => {
    const early = new AbortController();
    early.abort('stop');
    await expect(firstValueFrom(whenAborted(early.signal))).resolves.toBe('stop');
  });

  it('emits when the signal is aborted later, and not before', async () => {
    const later = new AbortController();
    let heard = false;
    const heardAt = firstValueFrom(whenAborted(later.signal)).then(() => (heard = true));
    await Promise.resolve();
    expect(heard).toBe(false);
    later.abort();
    await heardAt;
    expect(heard).toBe(true);
  });
});
