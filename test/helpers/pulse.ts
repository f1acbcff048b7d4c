import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MIX_RATE, type SoundServer } from '../../bench/src/sound-server.js';

// The sound server is the benchmarks' too (bench/src/board.ts): one copy, kept there, as
// bench/src imports nothing from test/.
export {
  MIX_RATE,
  envelope,
  feedBack,
  play,
  readMix,
  recordMix,
  startSoundServer,
  type SoundServer,
} from '../../bench/src/sound-server.js';

/**
 * `parec` of one sink's monitor, mono, with when the recording began on the test's clock (its
 * first sample, within the tens of ms it takes parec to start: what is measured against it
 * must not depend on that).
 */
export async function recordSink(
  server: SoundServer,
  sink: string,
  now: () => number,
): Promise<{ read(): Int16Array; startedAt(): number; stop(): Promise<void> }> {
  const path = join(server.dir, `${sink}-${Date.now()}.raw`);
  const recorder = spawn(
    'parec',
    [
      `--device=${sink}.monitor`,
      '--format=s16le',
      `--rate=${MIX_RATE}`,
      '--channels=1',
      '--latency-msec=10',
      '--raw',
      path,
    ],
    { env: server.env, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => recorder.once('exit', () => resolve()));
  // The recording's start, from its length as it grows: the earliest it can have begun.
  let startedAt = Infinity;
  const watch = setInterval(() => {
    const samples = existsSync(path) ? statSync(path).size / 2 : 0;
    if (samples > 0) startedAt = Math.min(startedAt, now() - (samples / MIX_RATE) * 1000);
  }, 20);
  for (let i = 0; i < 100 && !(existsSync(path) && statSync(path).size > MIX_RATE); i++)
    await new Promise((r) => setTimeout(r, 50));
  return {
    read() {
      const bytes = readFileSync(path);
      return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2));
    },
    startedAt: () => startedAt,
    async stop() {
      clearInterval(watch);
      recorder.kill('SIGTERM');
      await exited;
    },
  };
}
