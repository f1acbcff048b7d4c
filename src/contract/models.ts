/**
 * The service's model catalogue for both published editions: which endpoint accepts which
 * model, and which optional parameters take effect for it. The service adds models over time,
 * so an unknown ID is a warning, never a refusal.
 */
import type { ServiceEndpoint } from './endpoints.js';

export type Edition = 'A' | 'B';
export type ChatMediaKind = 'image_url' | 'video_url' | 'audio_url';
export type MessagesMediaKind = 'image';

const TEXT_MODELS_A = [
  'Ling-3.0-flash-VL',
  'Ling-3.0-flash',
  'Ling-3.0-tiny',
  'Ling-2.6-1T',
  'Ring-2.6-1T',
  'Ling-2.6-flash',
  'VendorAngelMed',
] as const;
const TEXT_MODELS_B = [
  'Ling-3.1-flash',
  'Ling-3.0-flash-VL',
  'Ling-3.0-flash',
  'Ling-3.0-tiny',
  'VendorAngelMed',
] as const;

const CATALOGUE: Record<Edition, Record<ServiceEndpoint, readonly string[]>> = {
  A: {
    chat: TEXT_MODELS_A,
    messages: TEXT_MODELS_A,
    speech: ['Ming-3.0-tts'],
    transcription: ['Ming-3.0-asr-tiny'],
  },
  B: {
    chat: [...TEXT_MODELS_B.slice(0, 4), 'Ming-3.0-audio-flash', 'VendorAngelMed'],
    messages: TEXT_MODELS_B,
    speech: ['Ming-3.0-tts'],
    transcription: ['Ming-3.0-asr-tiny'],
  },
};

export const DEFAULT_MODELS: Record<ServiceEndpoint, string> = {
  chat: 'Ling-3.0-flash',
  messages: 'Ling-3.0-flash',
  speech: 'Ming-3.0-tts',
  transcription: 'Ming-3.0-asr-tiny',
};

export function modelsFor(edition: Edition, endpoint: ServiceEndpoint): readonly string[] {
  return CATALOGUE[edition][endpoint];
}

export function isKnownModel(edition: Edition, endpoint: ServiceEndpoint, model: string): boolean {
  return CATALOGUE[edition][endpoint].includes(model);
}

/** `thinking`: edition A only for Ling-3.0-flash; edition B for the 3.0 and 3.1 series. */
export function thinkingEffective(edition: Edition, model: string): boolean {
  return edition === 'A' ? model === 'Ling-3.0-flash' : /-3\.[01]-/.test(model);
}

/** `reasoning.effort` / `output_config.effort`: edition A only, Ring-2.6-1T only. */
export function effortEffective(edition: Edition, model: string): boolean {
  return edition === 'A' && model === 'Ring-2.6-1T';
}

export function chatMediaKinds(edition: Edition, model: string): readonly ChatMediaKind[] {
  if (model === 'Ling-3.0-flash-VL') return ['image_url', 'video_url'];
  if (model === 'Ming-3.0-audio-flash' && edition === 'B') return ['audio_url'];
  return [];
}

export function messagesMediaKinds(model: string): readonly MessagesMediaKind[] {
  return model === 'Ling-3.0-flash-VL' ? ['image'] : [];
}

/** What a user attaches: an image, a video, audio. */
export type MediaKind = 'image' | 'video' | 'audio';

/** The models of an edition that take `kind` on the chat or messages endpoint. */
export function modelsTaking(edition: Edition, endpoint: 'chat' | 'messages', kind: MediaKind): string[] {
  return modelsFor(edition, endpoint).filter((model) =>
    endpoint === 'chat'
      ? chatMediaKinds(edition, model).includes(`${kind}_url`)
      : (messagesMediaKinds(model) as readonly string[]).includes(kind),
  );
}

/** Stream formats each speech model supports; an unknown model is assumed to support both. */
export function speechStreamFormats(model: string): readonly ('sse' | 'audio')[] {
  return model === 'Ming-3.0-tts' ? ['sse'] : ['sse', 'audio'];
}

export const EDITIONS: readonly Edition[] = ['A', 'B'];
