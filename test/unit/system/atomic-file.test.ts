import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAtomically } from '../../../src/system/atomic-file.js';

describe('writeAtomically', () => {
  it('replaces the file only once it is written, and leaves nothing beside it when writing fails', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-whole-'));
    const path = join(dir, 'reply.wav');
    writeFileSync(path, 'the earlier take');
    await expect(
      writeAtomically(path, async (partial) => {
        await writeFile(partial, 'half a take');
        throw new Error('the stream broke off');
      }),
    ).rejects.toThrow('the stream broke off');
    expect(readFileSync(path, 'utf8')).toBe('the earlier take');
    expect(readdirSync(dir)).toEqual(['reply.wav']);
    await writeAtomically(path, (partial) => writeFile(partial, 'the new take'));
    expect(readFileSync(path, 'utf8')).toBe('the new take');
    expect(readdirSync(dir)).toEqual(['reply.wav']);
  });

  it('says what went wrong of the file asked for, never of the hidden one it writes first', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hark-whole-')), 'gone', 'reply.wav');
    const failure = writeAtomically(path, (partial) => writeFile(partial, 'a take'));
    await expect(failure).rejects.toThrow(`cannot write ${path}: files cannot be made there`);
    await expect(failure).rejects.not.toThrow(/partial/);
  });

  it('writes through a symbolic link: the file it names is replaced, the link stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-whole-'));
    const target = join(dir, 'takes', 'latest.wav');
    const link = join(dir, 'reply.wav');
    mkdirSync(join(dir, 'takes'));
    writeFileSync(target, 'the earlier take');
    symlinkSync(target, link);
    await writeAtomically(link, (partial) => writeFile(partial, 'the new take'));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('the new take');
  });

  it('makes the file a link names when it is not there yet, and keeps the mode of a file it replaces', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-whole-'));
    const link = join(dir, 'reply.wav');
    symlinkSync(join(dir, 'first.wav'), link);
    await writeAtomically(link, (partial) => writeFile(partial, 'the first take'));
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'first.wav'), 'utf8')).toBe('the first take');
    const privateTake = join(dir, 'private.wav');
    writeFileSync(privateTake, 'mine alone', { mode: 0o600 });
    await writeAtomically(privateTake, (partial) => writeFile(partial, 'still mine alone'));
    expect(statSync(privateTake).mode & 0o777).toBe(0o600);
  });
});
