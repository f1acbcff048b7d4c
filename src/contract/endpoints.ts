/** The service's four operations, and the path of each below the base URL. */
export type ServiceEndpoint = 'chat' | 'messages' | 'speech' | 'transcription';

export const CHAT_PATH = '/v1/chat/completions';
export const SPEECH_PATH = '/v1/audio/speech';
export const TRANSCRIPTION_PATH = '/v1/audio/transcriptions';

/** The messages-style path: `/{prefix}/v1/messages`, the prefix being the compatibility family's (`anthropic` publicly). */
export function messagesPath(prefix: string): string {
  const clean = prefix.replace(/^\/+|\/+$/g, '');
  return clean ? `/${clean}/v1/messages` : '/v1/messages';
}
