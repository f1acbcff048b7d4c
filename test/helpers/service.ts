import { ChatCompletionsClient } from '../../src/service/chat.js';
import { Transport, type TransportOptions } from '../../src/service/http.js';
import { MessagesClient } from '../../src/service/messages.js';
import { SpeechClient } from '../../src/service/speech.js';
import { TranscriptionClient } from '../../src/service/transcription.js';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { createMemoryLogger } from '../../src/system/logger.js';

/** Service delays small enough for tests, large enough to keep events apart. */
export const FAST_TIMING = {
  ttftMs: 5,
  tokensPerSecond: 2000,
  ttsFirstByteMs: 5,
  ttsRealtimeFactor: 100,
  transcriptionDelayMs: 1,
};

export interface TestService {
  sim: SimServer;
  transport: Transport;
  chat: ChatCompletionsClient;
  messages: MessagesClient;
  speech: SpeechClient;
  transcription: TranscriptionClient;
  logger: ReturnType<typeof createMemoryLogger>;
  close(): Promise<void>;
}

/** A stand-in service on loopback and clients pointed at it. */
export async function startTestService(
  simOptions: SimOptions = {},
  transportOptions: Partial<TransportOptions> = {},
): Promise<TestService> {
  const sim = await startSim({ ...simOptions, timing: { ...FAST_TIMING, ...simOptions.timing } });
  const logger = createMemoryLogger();
  const transport = new Transport({
    baseUrl: sim.url,
    apiKey: sim.apiKey,
    logger,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...transportOptions,
  });
  const edition = simOptions.edition ?? 'A';
  const common = { transport, edition, logger };
  return {
    sim,
    transport,
    logger,
    chat: new ChatCompletionsClient(common),
    messages: new MessagesClient({ ...common, prefix: simOptions.messagesPrefix ?? 'anthropic' }),
    speech: new SpeechClient(common),
    transcription: new TranscriptionClient(common),
    async close() {
      await transport.close();
      await sim.close();
    },
  };
}

export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}
