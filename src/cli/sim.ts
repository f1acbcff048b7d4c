import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import type { Fault, ReplyScript } from '../sim/script.js';
import { commandLogger, parseNumber, UsageError, type GlobalOptions } from './command-context.js';
import { readableFile } from './files.js';

interface SimCliOptions {
  host: string;
  port: number;
  edition: 'A' | 'B';
  prefix: string;
  ttftMs?: number;
  tokensPerSecond?: number;
  ttsFirstByteMs?: number;
  voice: 'auto' | 'espeak' | 'synthetic';
  script?: string;
  key?: string;
}

interface ScriptFile {
  replies?: (ReplyScript | string)[];
  transcripts?: string[];
  faults?: Fault[];
}

export function registerSim(program: Command, globals: () => GlobalOptions): void {
  program
    .command('sim')
    .description('run the stand-in service on loopback (prints its URL and key)')
    .option('--host <addr>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port (0 picks a free one)', parseNumber('--port', 0, 65535), 8787)
    .option('--edition <A|B>', 'model lists of this edition', 'A')
    .option('--prefix <segment>', 'messages-style path prefix', 'anthropic')
    .option('--ttft-ms <ms>', 'delay before the first token', parseNumber('--ttft-ms', 0, 60_000))
    .option('--tokens-per-second <n>', 'streamed token rate', parseNumber('--tokens-per-second', 1, 100_000))
    .option(
      '--tts-first-byte-ms <ms>',
      'delay before the first speech byte',
      parseNumber('--tts-first-byte-ms', 0, 60_000),
    )
    .option('--voice <engine>', 'auto, espeak or synthetic', 'auto')
    .option('--script <file>', 'YAML/JSON with replies, transcripts and faults to play in order')
    .option('--key <key>', 'the key clients must send (default: a new random one, printed)')
    .action(async (options: SimCliOptions) => {
      if (options.edition !== 'A' && options.edition !== 'B') throw new UsageError('--edition must be A or B');
      if (!['auto', 'espeak', 'synthetic'].includes(options.voice)) {
        throw new UsageError(`--voice ${options.voice}: use auto, espeak or synthetic`);
      }
      // Read before the server starts: a bad script is a mistake told at once, not a server left running.
      const script = options.script ? await readScript(options.script) : undefined;
      const logger = commandLogger(globals(), undefined, 'stderr');
      const { startSim } = await import('../sim/server.js');
      const sim = await startSim({
        host: options.host,
        port: options.port,
        edition: options.edition,
        messagesPrefix: options.prefix,
        voice: options.voice,
        // Never the user's HARK_API_KEY: the stand-in makes its own key, or takes the one given.
        ...(options.key ? { apiKey: options.key } : {}),
        timing: {
          ...(options.ttftMs === undefined ? {} : { ttftMs: options.ttftMs }),
          ...(options.tokensPerSecond === undefined ? {} : { tokensPerSecond: options.tokensPerSecond }),
          ...(options.ttsFirstByteMs === undefined ? {} : { ttsFirstByteMs: options.ttsFirstByteMs }),
        },
        logger,
      }).catch((error: unknown) => {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') {
          throw new UsageError(
            `--port ${options.port}: another program listens there; pick another, or 0 for any free one`,
          );
        }
        if (code === 'EADDRNOTAVAIL') throw new UsageError(`--host ${options.host}: no such address on this machine`);
        throw error;
      });
      if (script) {
        sim.script
          .reply(...(script.replies ?? []))
          .transcript(...(script.transcripts ?? []))
          .fault(...(script.faults ?? []));
      }
      // A key it did not make is never printed: it may be one the user uses elsewhere.
      const key = options.key ? '(the one given with --key)' : sim.apiKey;
      process.stdout.write(
        `hark stand-in service listening on ${sim.url} (edition ${options.edition}, voice ${sim.voiceEngine})\n` +
          `  key: ${key}\n` +
          `  try: HARK_SERVICE_BASE_URL=${sim.url} HARK_API_KEY=<key above> hark chat "hello"\n`,
      );
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sim.close();
    });
}

/** The script file, or a usage mistake naming it: unreadable, not YAML or JSON, or not a script. */
async function readScript(path: string): Promise<ScriptFile> {
  await readableFile(path, 'a script');
  let parsed: unknown;
  try {
    parsed = YAML.parse(await readFile(path, 'utf8'));
  } catch {
    throw new UsageError(`--script ${path}: not YAML or JSON`);
  }
  const known = ['replies', 'transcripts', 'faults'];
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.keys(parsed).length) {
    throw new UsageError(`--script ${path}: expected a mapping with ${known.join(', ')}`);
  }
  for (const [key, value] of Object.entries(parsed)) {
    if (!known.includes(key)) throw new UsageError(`--script ${path}: unknown ${key} (known: ${known.join(', ')})`);
    if (!Array.isArray(value)) throw new UsageError(`--script ${path}: ${key} must be a list`);
  }
  return parsed;
}
