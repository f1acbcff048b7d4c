import { PassThrough } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { MicError, micSource, type Recording } from '../../../src/audio/mic-source.js';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { watchedLogger } from '../../helpers/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

describe('micSource', () => {
  it('reopens a failing microphone with growing delays, and keeps going', () => {
    const scheduler = testScheduler();
    const logger = createMemoryLogger();
    const opened: number[] = [];
    const environments: unknown[] = [];
    let errored = false;
    scheduler.run(() => {
      // Each recording delivers one chunk, then its recorder exits 10 ms after it opened.
      const record = (options: Record<string, unknown>): Recording => {
        opened.push(scheduler.now());
        environments.push(options.env);
        const stream = new PassThrough();
        scheduler.schedule(() => stream.emit('data', Buffer.alloc(640)), 5);
        scheduler.schedule(() => stream.emit('end'), 10);
        const process = Object.assign(new EventEmitter(), { exitCode: 0 }) as unknown as ChildProcess;
        return { stream: () => stream, stop: () => undefined, process };
      };
      const time = { now: () => scheduler.now(), scheduler };
      const mic = micSource({
        recorder: 'arecord',
        device: null,
        sampleRateHz: 16000,
        retryMaxMs: 500,
        logger,
        time,
        record,
      });
      const subscription = mic.subscribe({ error: () => (errored = true) });
      scheduler.schedule(() => subscription.unsubscribe(), 1300);
    });
    // A recording that delivered audio resets the backoff: every reopen waits the first delay.
    expect(opened).toEqual([0, 260, 520, 780, 1040]);
    expect(logger.lines.filter((l) => l.event === 'mic.failed').map((l) => l.reopenInMs)).toEqual([
      250, 250, 250, 250, 250,
    ]);
    expect(errored).toBe(false);
    // The recorder (spawned inside node-record-lpcm16) gets hark's allow-listed environment.
    expect(environments[0]).toMatchObject({ PATH: process.env.PATH });
    expect(environments[0]).not.toHaveProperty('HARK_API_KEY');
  });

  it('backs off from 250 ms to the maximum while the microphone stays dead', () => {
    const scheduler = testScheduler();
    const logger = createMemoryLogger();
    scheduler.run(() => {
      const record = (): Recording => {
        const stream = new PassThrough();
        scheduler.schedule(() => stream.emit('end'), 1);
        const process = Object.assign(new EventEmitter(), { exitCode: 1 }) as unknown as ChildProcess;
        return { stream: () => stream, stop: () => undefined, process };
      };
      const time = { now: () => scheduler.now(), scheduler };
      const mic = micSource({
        recorder: 'arecord',
        device: null,
        sampleRateHz: 16000,
        retryMaxMs: 900,
        logger,
        time,
        record,
      });
      const subscription = mic.subscribe();
      scheduler.schedule(() => subscription.unsubscribe(), 3000);
    });
    expect(logger.lines.filter((l) => l.event === 'mic.failed').map((l) => l.reopenInMs)).toEqual([
      250, 500, 900, 900, 900,
    ]);
  });

  it('survives a recorder binary that is not installed (the library would let that crash the process)', async () => {
    const logger = watchedLogger();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const subscription = micSource({
        recorder: 'sox',
        device: null,
        sampleRateHz: 16000,
        retryMaxMs: 300,
        logger,
      }).subscribe();
      const failed = await logger.line('mic.failed');
      subscription.unsubscribe();
      expect(failed.error).toMatch(/ENOENT/);
    } finally {
      process.env.PATH = path;
    }
  });

  describe('a recorder that cannot open the device', () => {
    // A stand-in for arecord that says what the real one says when another program holds the card.
    const bin = mkdtempSync(join(tmpdir(), 'hark-fake-arecord-'));
    writeFileSync(
      join(bin, 'arecord'),
      '#!/bin/sh\necho "arecord: main:850: audio open error: Device or resource busy" >&2\nexit 1\n',
    );
    chmodSync(join(bin, 'arecord'), 0o755);
    const withFakeRecorder = async <T>(run: () => Promise<T>): Promise<T> => {
      const path = process.env.PATH;
      process.env.PATH = `${bin}:${path ?? ''}`;
      try {
        return await run();
      } finally {
        process.env.PATH = path;
      }
    };

    it('the mic.failed line keeps its own words, not just "stopped delivering audio"', async () => {
      const logger = watchedLogger();
      const failed = await withFakeRecorder(async () => {
        const subscription = micSource({
          recorder: 'arecord',
          device: null,
          sampleRateHz: 16000,
          retryMaxMs: 300,
          logger,
        }).subscribe();
        const line = await logger.line('mic.failed');
        subscription.unsubscribe();
        return line;
      });
      expect(failed.recorderSaid).toBe('arecord: main:850: audio open error: Device or resource busy');
      expect(failed.error).toMatch(/: arecord: main:850: audio open error: Device or resource busy$/);
    });

    it('the Error raised (without reopening, as a one-off check does) carries them too', async () => {
      const logger = createMemoryLogger();
      const error = await withFakeRecorder(() =>
        firstValueFrom(
          micSource({ recorder: 'arecord', device: null, sampleRateHz: 16000, retryMaxMs: 300, logger, reopen: false }),
        ).catch((e: unknown) => e),
      );
      expect(error).toBeInstanceOf(MicError);
      expect((error as MicError).recorderSaid).toMatch(/Device or resource busy/);
      expect((error as Error).message).toMatch(/Device or resource busy/);
    });
  });
});
