import * as z from 'zod/mini';
import { LIMITS } from '../contract/limits.js';
import { chatMediaKinds } from '../contract/models.js';
import { between, count, flag, languageCode, ms, nullableString, oneOf, section, text } from './schema-parts.js';
import { tools } from './tools-schema.js';

const unit = z.number().check(z.minimum(0), z.maximum(1));
const share = (fallback: number) => z._default(unit, fallback);
const nullable = <T extends z.core.SomeType>(schema: T) => z._default(z.nullable(schema), null);

const service = section({
  baseUrl: z._default(
    z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL, such as https://api.ant-ling.com' }),
    'https://api.ant-ling.com',
  ),
  messagesPrefix: z._default(
    z.string().check(z.regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-" only')),
    'anthropic',
  ),
  authStyle: oneOf(['bearer', 'x-api-key'], 'bearer'),
  edition: oneOf(['A', 'B'], 'A'),
  api: oneOf(['chat', 'messages'], 'chat'),
  timeouts: section({
    requestMs: ms(1000, LIMITS.nonStreamingTimeoutMs, LIMITS.nonStreamingTimeoutMs),
    streamIdleMs: ms(1000, 300_000, 30_000),
    connectMs: ms(500, 60_000, 10_000),
  }),
  retry: section({
    maxRetries: count(0, 10, 3),
    baseDelayMs: ms(10, 60_000, 400),
    maxDelayMs: ms(10, 120_000, 8000),
  }),
});

const chat = section({
  model: text('Ling-3.0-flash'),
  systemPrompt: text(
    'You are hark, a voice assistant. Your replies are spoken aloud, so answer in a few short, plain sentences. ' +
      'Do not use markdown, lists, tables, code blocks, emoji or URLs. Say numbers and units as they are spoken.',
  ),
  thinking: oneOf(['enabled', 'disabled', 'default'], 'disabled'),
  effort: nullable(z.enum(['high', 'xhigh'])),
  temperature: nullable(unit),
  topP: nullable(z.number().check(z.gt(0), z.maximum(1))),
  enableSearch: flag(false),
  forcedSearch: flag(false),
  maxTokens: count(1, LIMITS.defaultMaxTokens, 1024),
  toolResults: oneOf(['tool-role', 'user-text'], 'tool-role'),
});

const history = section({
  maxTurns: count(0, 200, 12),
  maxChars: count(200, 200_000, 12_000),
});

const speech = section({
  model: text('Ming-3.0-tts'),
  voice: nullableString,
  instructions: nullableString,
  sampleRateHz: z._default(z.union(LIMITS.speech.sampleRatesHz.map((r) => z.literal(r))), 24000),
  speed: between(LIMITS.speech.speed.min, LIMITS.speech.speed.max, 1),
  volume: between(LIMITS.speech.volume.min, LIMITS.speech.volume.max, 1),
  pitch: between(LIMITS.speech.pitch.min, LIMITS.speech.pitch.max, 1),
  lookahead: count(1, 4, 2),
  lowWaterMs: ms(0, 2000, 300),
});

const transcription = section({
  model: text('Ming-3.0-asr-tiny'),
  language: languageCode,
});

const voice = section({
  reference: nullableString,
  referenceText: nullableString,
});

const audio = section({
  recorder: oneOf(['sox', 'rec', 'arecord'], 'arecord'),
  captureDevice: nullableString,
  player: oneOf(['auto', 'pw-play', 'pacat', 'aplay', 'speaker', 'command'], 'auto'),
  playerCommand: text('aplay -q -t raw -f S16_LE -c 1 -r {rate}'),
  playbackDevice: nullableString,
  earcons: flag(true),
  micRetryMaxMs: ms(500, 120_000, 30_000),
  echoCancel: oneOf(['auto', 'on', 'off'], 'auto'),
});

const vad = section({
  engine: oneOf(['silero', 'energy'], 'silero'),
  startThreshold: share(0.5),
  stopThreshold: share(0.35),
  speakingStartThreshold: share(0.8),
  energyGateDbfs: between(-100, 0, -55),
  gateMarginDb: between(0, 30, 3),
  minSpeechMs: ms(50, 5000, 250),
  endSilenceMs: ms(100, 5000, 600),
  preRollMs: ms(0, 2000, 300),
  trailingSilenceMs: ms(0, 1000, 200),
});

const echo = section({
  tailMs: ms(64, 500, 200),
  maxDelayMs: ms(50, 1000, 400),
  initialDelayMs: ms(0, 1000, 100),
  leadMs: ms(5, 100, 30),
  delayWindowMs: ms(200, 2000, 500),
  delayHopMs: ms(50, 2000, 250),
  suppressDb: count(-60, 0, -40),
});

const bargeIn = section({
  enabled: flag(true),
  minSpeechMs: ms(50, 3000, 250),
  resumeAfterMs: ms(50, 3000, 300),
  confirmAfterPauseMs: ms(0, 3000, 250),
  ownVoiceBelowDb: between(0, 60, 12),
});

const reply = section({
  input: oneOf(['transcript', 'audio'], 'transcript'),
});

const endpoint = section({
  speculate: flag(true),
  speculateAfterMs: ms(50, 2000, 150),
  completeMs: ms(50, 5000, 300),
  incompleteMs: ms(100, 5000, 1500),
});

const phrases = (fallback: string[]) => z._default(z.array(z.string().check(z.minLength(1))), fallback);

const listen = section({
  wakePhrases: phrases([]),
  followUpMs: ms(0, 120_000, 8000),
  stopPhrases: phrases(['stop', 'cancel', 'be quiet', 'never mind']),
  stopAfterInterruptionMs: ms(0, 60_000, 5000),
});

const wake = section({
  engine: oneOf(['none', 'openwakeword', 'phrase'], 'openwakeword'),
  models: z._default(z.array(z.string().check(z.minLength(1))).check(z.minLength(1)), ['hey_jarvis']),
  threshold: z._default(z.number().check(z.gt(0), z.lt(1)), 0.5),
  refractoryMs: ms(0, 10_000, 2000),
  endWaitMs: ms(0, 1000, 160),
  denoise: flag(true),
  bargeIn: oneOf(['any-speech', 'wake-word'], 'any-speech'),
});

/** `host:port`: a name or IPv4 address, or an IPv6 address in brackets; port 0 takes any free one. */
const LISTEN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

const web = section({
  enabled: flag(true),
  listen: z._default(
    z.string().check(
      z.regex(LISTEN, 'host:port, such as 127.0.0.1:8790, 0.0.0.0:8790 or [::1]:8790'),
      z.refine((value) => Number(LISTEN.exec(value)?.[2] ?? 0) <= 65535, 'the port must be at most 65535'),
    ),
    '127.0.0.1:8790',
  ),
});

const log = section({
  level: oneOf(['debug', 'info', 'warn', 'error'], 'info'),
  format: oneOf(['auto', 'json', 'pretty'], 'auto'),
});

export const configSchema = z
  .strictObject({
    service,
    chat,
    reply,
    history,
    speech,
    transcription,
    voice,
    audio,
    echo,
    vad,
    endpoint,
    bargeIn,
    listen,
    wake,
    tools,
    web,
    log,
  })
  .check(
    z.superRefine((config, ctx) => {
      if (config.reply.input === 'audio' && !takesAudio(config)) {
        ctx.addIssue({
          code: 'custom',
          path: ['reply', 'input'],
          message: `audio needs the chat-completions endpoint (service.api: chat), edition B and a chat model that takes audio (Ming-3.0-audio-flash); got service.api ${config.service.api}, edition ${config.service.edition}, chat.model ${config.chat.model}`,
        });
      }
      if (config.vad.stopThreshold > config.vad.startThreshold) {
        ctx.addIssue({
          code: 'custom',
          path: ['vad', 'stopThreshold'],
          message: 'must not be above vad.startThreshold',
        });
      }
      if (config.echo.leadMs >= config.echo.tailMs) {
        ctx.addIssue({ code: 'custom', path: ['echo', 'leadMs'], message: 'must be below echo.tailMs' });
      }
      if (config.echo.initialDelayMs > config.echo.maxDelayMs) {
        ctx.addIssue({
          code: 'custom',
          path: ['echo', 'initialDelayMs'],
          message: 'must not be above echo.maxDelayMs',
        });
      }
      if (config.voice.reference !== null && config.voice.referenceText === null) {
        ctx.addIssue({
          code: 'custom',
          path: ['voice', 'reference'],
          message: 'needs voice.referenceText, the verbatim transcript of the clip',
        });
      }
      if (config.wake.engine === 'none' && config.listen.wakePhrases.length > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['listen', 'wakePhrases'],
          message: 'are not listened for with wake.engine: none (set wake.engine: phrase to use them)',
        });
      }
      const names = config.tools.mcpServers.map((server) => server.name);
      names.forEach((name, i) => {
        if (names.indexOf(name) !== i) {
          ctx.addIssue({ code: 'custom', path: ['tools', 'mcpServers', i, 'name'], message: `${name} is used twice` });
        }
      });
      if (config.voice.reference === null && config.voice.referenceText !== null) {
        ctx.addIssue({
          code: 'custom',
          path: ['voice', 'referenceText'],
          message: 'is only used with voice.reference, the clip it transcribes',
        });
      }
    }),
  );

export type HarkConfig = z.infer<typeof configSchema>;

/** Whether the chat model can be sent the user's speech as audio. */
function takesAudio(config: Pick<HarkConfig, 'service' | 'chat'>): boolean {
  return (
    config.service.api === 'chat' && chatMediaKinds(config.service.edition, config.chat.model).includes('audio_url')
  );
}

export function defaultConfig(): HarkConfig {
  return configSchema.parse({});
}
