/**
 * hark in the home (MQTT): against Debian's mosquitto on a free loopback port and the stand-in,
 * with `hark run --input FILE` (silence, read in real time as from a microphone):
 *
 * - announcements: each published (mosquitto_pub, QoS 1) once the last was said; from its
 *   arrival in hark (the MQTT message handed to hark) to its speech requested, its first audio
 *   from the service, and its first sample played (hark's player clock, as for turns; a real
 *   sound card adds its own buffer). hark's own part is the first sample played less the
 *   service's speech latency (first audio less the request): target ≤ 50 ms. With the announce
 *   earcon (the default) the words follow the chime: measured too, not held to the target.
 * - CPU while idle: two daemons at once on the same silence, one connected to the broker and
 *   one with MQTT off, their CPU time read from /proc over each 10 s: what MQTT costs (target ~0).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pcmToWav } from '../../dist/audio/wav-header.js';
import { startSim } from '../../dist/sim/server.js';
import { silence } from './fixtures.js';
import { TICKS_PER_S, cpuTicks, median, percentile, round, table, writeResult } from './stats.js';

const HARK = fileURLToPath(new URL('../../dist/bin/hark.js', import.meta.url));
const TARGET_OVERHEAD_MS = 50;
const SEGMENT_MS = 10_000;
const WARM_UP = 3;

type Line = Record<string, unknown>;

/** A daemon's JSON log, line by line, and a way to wait for one. */
class Daemon {
  readonly lines: Line[] = [];
  private readonly waiting: (() => void)[] = [];
  readonly child: ChildProcess;

  constructor(env: NodeJS.ProcessEnv, input: string, dir: string) {
    this.child = spawn(
      process.execPath,
      [HARK, '--log-format', 'json', 'run', '--input', input, '-o', join(dir, 'out.wav')],
      {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let rest = '';
    this.child.stdout?.on('data', (d: Buffer) => {
      rest += d.toString();
      for (let at = rest.indexOf('\n'); at >= 0; at = rest.indexOf('\n')) {
        const text = rest.slice(0, at);
        rest = rest.slice(at + 1);
        if (text.startsWith('{')) this.lines.push(JSON.parse(text) as Line);
      }
      for (const tell of this.waiting.splice(0)) tell();
    });
  }

  async line(matches: (line: Line) => boolean, timeoutMs = 60_000): Promise<Line> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find(matches);
      if (found) return found;
      if (Date.now() > deadline || this.child.exitCode !== null) {
        const why =
          this.child.exitCode === null ? `not within ${timeoutMs} ms` : `hark exited (${this.child.exitCode})`;
        throw new Error(
          `hark never logged what was waited for: ${why}; its last lines: ${JSON.stringify(this.lines.slice(-3))}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.waiting.push(resolve);
        setTimeout(resolve, 1000);
      });
    }
  }

  async stop(): Promise<void> {
    this.child.kill('SIGINT');
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve));
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** mosquitto on a free loopback port, ready once it takes a connection. */
async function startBroker(dir: string): Promise<{ port: number; child: ChildProcess }> {
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = server.address() as { port: number };
      server.close(() => resolve(free));
    });
  });
  const config = join(dir, 'mosquitto.conf');
  writeFileSync(
    config,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\nuser ${userInfo().username}\n`,
  );
  const child = spawn('mosquitto', ['-c', config], { stdio: 'ignore' });
  for (let tries = 0; ; tries++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port, '127.0.0.1', () => socket.end(() => resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return { port, child };
    if (tries > 50) throw new Error('mosquitto did not start');
    await pause(100);
  }
}

function installed(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;
}

interface Said {
  speechRequest: number;
  firstAudioByte: number;
  firstSamplePlayed: number;
}

/** `count` announcements, one after another, each from its arrival in hark to its first sample played. */
async function announce(env: NodeJS.ProcessEnv, port: number, input: string, count: number): Promise<Said[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hark-bench-home-'));
  const daemon = new Daemon({ ...env, HOME: dir }, input, dir);
  const said: Said[] = [];
  try {
    await daemon.line((l) => l.event === 'mqtt.connected');
    for (let i = 1; i <= count; i++) {
      const text = `Announcement number ${i}: the washing machine is done.`;
      spawnSync('mosquitto_pub', [
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-q',
        '1',
        '-t',
        'bench/home/announce',
        '-m',
        text,
      ]);
      const spoken = await daemon.line((l) => l.event === 'notice.spoken' && l.id === `n${i}`);
      said.push(spoken.latencyMs as Said);
    }
  } finally {
    await daemon.stop();
  }
  return said.slice(WARM_UP);
}

/** Two daemons on the same silence at once, MQTT on and off: each one's CPU, % of a core, per 10 s. */
async function idleCpu(
  env: NodeJS.ProcessEnv,
  input: string,
  segments: number,
): Promise<Record<'on' | 'off', number[]>> {
  const dirs = {
    on: mkdtempSync(join(tmpdir(), 'hark-bench-home-')),
    off: mkdtempSync(join(tmpdir(), 'hark-bench-home-')),
  };
  const on = new Daemon({ ...env, HOME: dirs.on }, input, dirs.on);
  const off = new Daemon({ ...env, HOME: dirs.off, HARK_MQTT_URL: '' }, input, dirs.off);
  const percent: Record<'on' | 'off', number[]> = { on: [], off: [] };
  try {
    await Promise.all([on.line((l) => l.event === 'mqtt.connected'), off.line((l) => l.event === 'hark.listening')]);
    const pids = { on: on.child.pid as number, off: off.child.pid as number };
    // The first segment is left out: the daemons are still warming up (JIT, models loading).
    for (let segment = -1; segment < segments; segment++) {
      const ticks = { on: cpuTicks(pids.on), off: cpuTicks(pids.off) };
      const started = performance.now();
      await pause(SEGMENT_MS);
      const seconds = (performance.now() - started) / 1000;
      if (segment < 0) continue;
      for (const which of ['on', 'off'] as const)
        percent[which].push(((cpuTicks(pids[which]) - ticks[which]) / TICKS_PER_S / seconds) * 100);
    }
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
  return percent;
}

export async function benchHome(options: { announcements?: number; segments?: number } = {}) {
  const count = (options.announcements ?? 20) + WARM_UP;
  const segments = options.segments ?? 6;
  if (!installed('mosquitto') || !installed('mosquitto_pub')) {
    console.log("\nhome: skipped (needs Debian's mosquitto and mosquitto-clients)");
    return { skipped: true };
  }
  const dir = mkdtempSync(join(tmpdir(), 'hark-bench-home-'));
  const broker = await startBroker(dir);
  const sim = await startSim({});
  try {
    const input = join(dir, 'silence.wav');
    // Long enough for every announcement on a busy machine (hark stops when its input ends).
    writeFileSync(input, pcmToWav(silence(count * 15_000 + 60_000), 16000));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
      HARK_WAKE_ENGINE: 'none',
      HARK_WEB_ENABLED: 'false',
      HARK_MQTT_URL: `mqtt://127.0.0.1:${broker.port}`,
      HARK_MQTT_BASE_TOPIC: 'bench/home',
    };
    const words = await announce({ ...env, HARK_AUDIO_EARCONS: 'false' }, broker.port, input, count);
    const chimed = await announce(env, broker.port, input, count);
    const idleInput = join(dir, 'idle.wav');
    writeFileSync(idleInput, pcmToWav(silence((segments + 3) * SEGMENT_MS), 16000));
    const cpu = await idleCpu(env, idleInput, segments);

    const summary = (said: Said[]) => {
      const service = said.map((s) => s.firstAudioByte - s.speechRequest);
      const played = said.map((s) => s.firstSamplePlayed);
      const own = said.map((s) => s.firstSamplePlayed - (s.firstAudioByte - s.speechRequest));
      return {
        announcements: said.length,
        firstSamplePlayedMs: { median: round(median(played), 1), p90: round(percentile(played, 90), 1) },
        serviceSpeechLatencyMs: { median: round(median(service), 1), p90: round(percentile(service, 90), 1) },
        harkOwnMs: { median: round(median(own), 1), p90: round(percentile(own, 90), 1) },
      };
    };
    const cpuOf = (values: number[]) => ({
      medianPercent: round(median(values), 2),
      values: values.map((v) => round(v, 2)),
    });
    const result = {
      targetHarkOwnMs: TARGET_OVERHEAD_MS,
      withoutEarcon: summary(words),
      withEarcon: summary(chimed),
      idleCpu: {
        mqttOn: cpuOf(cpu.on),
        mqttOff: cpuOf(cpu.off),
        differencePercent: round(median(cpu.on) - median(cpu.off), 2),
      },
    };
    const row = (name: string, s: ReturnType<typeof summary>, target: string) => [
      name,
      s.announcements,
      `${s.firstSamplePlayedMs.median} / ${s.firstSamplePlayedMs.p90}`,
      `${s.serviceSpeechLatencyMs.median} / ${s.serviceSpeechLatencyMs.p90}`,
      `${s.harkOwnMs.median} / ${s.harkOwnMs.p90}`,
      target,
    ];
    console.log('\nAn announcement, from its arrival in hark to its first sample played (median / p90, ms)\n');
    console.log(
      table([
        ['run', 'n', 'first sample played', 'service speech latency', "hark's own", 'target'],
        row('words first (audio.earcons: false)', result.withoutEarcon, `own <= ${TARGET_OVERHEAD_MS}`),
        row('announce earcon first (default)', result.withEarcon, 'words after the chime'),
      ]),
    );
    console.log(`\nCPU while idle (% of one core, median of ${segments} x 10 s, two daemons at once)\n`);
    console.log(
      table([
        ['MQTT', 'median %', 'per 10 s', 'target'],
        ['connected', result.idleCpu.mqttOn.medianPercent, result.idleCpu.mqttOn.values.join(' '), ''],
        ['off', result.idleCpu.mqttOff.medianPercent, result.idleCpu.mqttOff.values.join(' '), ''],
        ['difference', result.idleCpu.differencePercent, '', '~0'],
      ]),
    );
    console.log(`\nwritten to ${writeResult('home', result)}`);
    return result;
  } finally {
    await sim.close();
    broker.child.kill('SIGTERM');
  }
}
