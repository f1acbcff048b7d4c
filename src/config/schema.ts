import { z } from 'zod';
import { LIMITS } from '../contract/limits.js';
import { chatMediaKinds } from '../contract/models.js';
import { ms, nullableString } from './schema-parts.js';
import { tools } from './tools-schema.js';

const unit = z.number().min(0).max(1);

const service = z
  .object({
    baseUrl: z.url({ protocol: /^https?$/ }).default('https://api.ant-ling.com'),
    messagesPrefix: z
      .string()
      .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, ".", "_" or "-" only')
      .default('anthropic'),
    authStyle: z.enum(['bearer', 'x-api-key']).default('bearer'),
    edition: z.enum(['A', 'B']).default('A'),
    api: z.enum(['chat', 'messages']).default('chat'),
    timeouts: z
      .object({
        requestMs: ms(1000, LIMITS.nonStreamingTimeoutMs, LIMITS.nonStreamingTimeoutMs),
        streamIdleMs: ms(1000, 300_000, 30_000),
        connectMs: ms(500, 60_000, 10_000),
      })
      .strict()
      .prefault({}),
    retry: z
      .object({
        maxRetries: z.number().int().min(0).max(10).default(3),
        baseDelayMs: ms(10, 60_000, 400),
        maxDelayMs: ms(10, 120_000, 8000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .prefault({});

const chat = z
  .object({
    model: z.string().min(1).default('Ling-3.0-flash'),
    systemPrompt: z
      .string()
      .min(1)
      .default(
        'You are hark, a voice assistant. Your replies are spoken aloud, so answer in a few short, plain sentences. ' +
          'Do not use markdown, lists, tables, code blocks, emoji or URLs. Say numbers and units as they are spoken.',
      ),
    thinking: z.enum(['enabled', 'disabled', 'default']).default('disabled'),
    effort: z.enum(['high', 'xhigh']).nullable().default(null),
    temperature: unit.nullable().default(null),
    topP: z.number().gt(0).max(1).nullable().default(null),
    enableSearch: z.boolean().default(false),
    forcedSearch: z.boolean().default(false),
    maxTokens: z.number().int().min(1).max(LIMITS.defaultMaxTokens).default(1024),
    toolResults: z.enum(['tool-role', 'user-text']).default('tool-role'),
  })
  .strict()
  .prefault({});

const history = z
  .object({
    maxTurns: z.number().int().min(0).max(200).default(12),
    maxChars: z.number().int().min(200).max(200_000).default(12_000),
  })
  .strict()
  .prefault({});

const speech = z
  .object({
    model: z.string().min(1).default('Ming-3.0-tts'),
    voice: nullableString,
    instructions: nullableString,
    sampleRateHz: z.union(LIMITS.speech.sampleRatesHz.map((r) => z.literal(r))).default(24000),
    speed: z.number().min(LIMITS.speech.speed.min).max(LIMITS.speech.speed.max).default(1),
    volume: z.number().min(LIMITS.speech.volume.min).max(LIMITS.speech.volume.max).default(1),
    pitch: z.number().min(LIMITS.speech.pitch.min).max(LIMITS.speech.pitch.max).default(1),
    lookahead: z.number().int().min(1).max(4).default(2),
    lowWaterMs: ms(0, 2000, 300),
  })
  .strict()
  .prefault({});

const transcription = z
  .object({
    model: z.string().min(1).default('Ming-3.0-asr-tiny'),
    language: nullableString,
  })
  .strict()
  .prefault({});

const voice = z
  .object({
    reference: nullableString,
    referenceText: nullableString,
  })
  .strict()
  .prefault({});

const audio = z
  .object({
    recorder: z.enum(['sox', 'rec', 'arecord']).default('arecord'),
    captureDevice: nullableString,
    player: z.enum(['auto', 'pw-play', 'pacat', 'aplay', 'speaker', 'command']).default('auto'),
    playerCommand: z.string().min(1).default('aplay -q -t raw -f S16_LE -c 1 -r {rate}'),
    playbackDevice: nullableString,
    earcons: z.boolean().default(true),
    micRetryMaxMs: ms(500, 120_000, 30_000),
    echoCancel: z.enum(['auto', 'on', 'off']).default('auto'),
  })
  .strict()
  .prefault({});

const vad = z
  .object({
    engine: z.enum(['silero', 'energy']).default('silero'),
    startThreshold: unit.default(0.5),
    stopThreshold: unit.default(0.35),
    speakingStartThreshold: unit.default(0.8),
    energyGateDbfs: z.number().min(-100).max(0).default(-55),
    gateMarginDb: z.number().min(0).max(30).default(3),
    minSpeechMs: ms(50, 5000, 250),
    endSilenceMs: ms(100, 5000, 600),
    preRollMs: ms(0, 2000, 300),
    trailingSilenceMs: ms(0, 1000, 200),
  })
  .strict()
  .prefault({});

const echo = z
  .object({
    tailMs: ms(64, 500, 200),
    maxDelayMs: ms(50, 1000, 400),
    initialDelayMs: ms(0, 1000, 100),
    leadMs: ms(5, 100, 30),
    delayWindowMs: ms(200, 2000, 500),
    delayHopMs: ms(50, 2000, 250),
    suppressDb: z.number().int().min(-60).max(0).default(-40),
  })
  .strict()
  .prefault({});

const bargeIn = z
  .object({
    enabled: z.boolean().default(true),
    minSpeechMs: ms(50, 3000, 300),
    resumeAfterMs: ms(50, 3000, 300),
    confirmAfterPauseMs: ms(0, 3000, 250),
    ownVoiceBelowDb: z.number().min(0).max(60).default(12),
  })
  .strict()
  .prefault({});

const reply = z
  .object({
    input: z.enum(['transcript', 'audio']).default('transcript'),
  })
  .strict()
  .prefault({});

const endpoint = z
  .object({
    speculate: z.boolean().default(true),
    speculateAfterMs: ms(50, 2000, 150),
    completeMs: ms(50, 5000, 300),
    incompleteMs: ms(100, 5000, 1500),
  })
  .strict()
  .prefault({});

const listen = z
  .object({
    wakePhrases: z.array(z.string().min(1)).default([]),
    followUpMs: ms(0, 120_000, 8000),
    stopPhrases: z.array(z.string().min(1)).default(['stop', 'cancel', 'be quiet', 'never mind']),
    stopAfterInterruptionMs: ms(0, 60_000, 5000),
  })
  .strict()
  .prefault({});

const wake = z
  .object({
    engine: z.enum(['none', 'openwakeword', 'phrase']).default('openwakeword'),
    models: z.array(z.string().min(1)).min(1).default(['hey_jarvis']),
    threshold: z.number().gt(0).lt(1).default(0.5),
    refractoryMs: ms(0, 10_000, 2000),
    endWaitMs: ms(0, 1000, 160),
    denoise: z.boolean().default(true),
    bargeIn: z.enum(['any-speech', 'wake-word']).default('any-speech'),
  })
  .strict()
  .prefault({});

/** `host:port`: a name or IPv4 address, or an IPv6 address in brackets; port 0 takes any free one. */
const LISTEN = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

const web = z
  .object({
    enabled: z.boolean().default(true),
    listen: z
      .string()
      .regex(LISTEN, 'host:port, such as 127.0.0.1:8790, 0.0.0.0:8790 or [::1]:8790')
      .refine((value) => Number(LISTEN.exec(value)?.[2]) <= 65535, 'the port must be at most 65535')
      .default('127.0.0.1:8790'),
  })
  .strict()
  .prefault({});

const log = z
  .object({
    level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  })
  .strict()
  .prefault({});

export const configSchema = z
  .object({
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
  .strict()
  .superRefine((config, ctx) => {
    if (config.reply.input === 'audio' && !takesAudio(config)) {
      ctx.addIssue({
        code: 'custom',
        path: ['reply', 'input'],
        message: `audio needs the chat-completions endpoint (service.api: chat), edition B and a chat model that takes audio (Ming-3.0-audio-flash); got service.api ${config.service.api}, edition ${config.service.edition}, chat.model ${config.chat.model}`,
      });
    }
    if (config.vad.stopThreshold > config.vad.startThreshold) {
      ctx.addIssue({ code: 'custom', path: ['vad', 'stopThreshold'], message: 'must not be above vad.startThreshold' });
    }
    if (config.echo.leadMs >= config.echo.tailMs) {
      ctx.addIssue({ code: 'custom', path: ['echo', 'leadMs'], message: 'must be below echo.tailMs' });
    }
    if (config.echo.initialDelayMs > config.echo.maxDelayMs) {
      ctx.addIssue({ code: 'custom', path: ['echo', 'initialDelayMs'], message: 'must not be above echo.maxDelayMs' });
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
  });

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
