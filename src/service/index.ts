import type { HarkConfig } from '../config/schema.js';
import type { Logger } from '../system/logger.js';
import { ChatCompletionsClient } from './chat.js';
import { Transport } from './http.js';
import { MessagesClient } from './messages.js';
import { SpeechClient } from './speech.js';
import { TranscriptionClient } from './transcription.js';

export interface Service {
  transport: Transport;
  chat: ChatCompletionsClient;
  messages: MessagesClient;
  speech: SpeechClient;
  transcription: TranscriptionClient;
  close(): Promise<void>;
}

export interface ServiceTarget {
  baseUrl: string;
  apiKey: string;
}

/** The four clients over one transport, as the configuration describes them. */
export function createService(config: HarkConfig, target: ServiceTarget, logger: Logger): Service {
  const transport = new Transport({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    logger,
    timeouts: config.service.timeouts,
    retry: config.service.retry,
  });
  const common = { transport, edition: config.service.edition, logger };
  return {
    transport,
    chat: new ChatCompletionsClient(common),
    messages: new MessagesClient({
      ...common,
      prefix: config.service.messagesPrefix,
      authStyle: config.service.authStyle,
    }),
    speech: new SpeechClient(common),
    transcription: new TranscriptionClient(common),
    close: () => transport.close(),
  };
}
