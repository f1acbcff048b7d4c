/**
 * The wire shapes of request and response bodies, as the service interface gives them: what
 * hark sends and the stand-in reads. Types only.
 */
import type { SpeechResponseFormat, SpeechSampleRate } from './limits.js';

/**
 * `tool` (with `tool_call_id`) is the widely used form for tool results; the interface lists
 * only the other three, so hark sends it only with `chat.toolResults: tool-role`.
 */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'video_url'; video_url: { url: string } }
  | { type: 'audio_url'; audio_url: { url: string } };

export interface ChatToolCallItem {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: ChatRole;
  content: string | ChatContentPart[] | null;
  /** An assistant turn that called tools. */
  tool_calls?: ChatToolCallItem[];
  /** A `tool` message: the call it answers. */
  tool_call_id?: string;
}

export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description?: string;
    parameters?: {
      type: 'object';
      properties?: Record<string, { type: string; description?: string; enum?: string[] }>;
      required?: string[];
    };
  };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ChatTool[];
  temperature?: number;
  top_p?: number;
  enable_search?: boolean;
  search_options?: { forced_search?: boolean };
  /** Edition A, Ring-2.6-1T only. */
  reasoning?: { effort: 'high' | 'xhigh' };
  thinking?: { type: 'enabled' | 'disabled' };
}

export type MessagesContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | { type: 'text'; text: string }[];
      is_error?: boolean;
    };

export interface MessagesMessage {
  role: 'user' | 'assistant';
  content: string | MessagesContentBlock[];
}

export interface MessagesTool {
  name: string;
  description?: string;
  input_schema: {
    type: 'object';
    properties?: Record<string, { type: string; description?: string }>;
    required?: string[];
  };
}

export type ToolChoice = { type: 'auto' } | { type: 'any' } | { type: 'none' } | { type: 'tool'; name: string };

export interface MessagesRequest {
  model: string;
  messages: MessagesMessage[];
  /** Defaults to the service's 32000. */
  max_tokens?: number;
  /** A plain string is sent as one `{type: "text"}` item. */
  system?: string | { type: 'text'; text: string }[];
  tools?: MessagesTool[];
  tool_choice?: ToolChoice;
  stop_sequences?: string[];
  temperature?: number;
  top_p?: number;
  /** Edition A, Ring-2.6-1T only. */
  output_config?: { effort: 'high' | 'xhigh' };
  thinking?: { type: 'enabled' | 'disabled' };
}

export interface VoiceReference {
  /** `data:audio/wav;base64,...` */
  audio: string;
  /** Verbatim transcript of the clip. */
  text: string;
}

export interface SpeechRequest {
  input: string;
  model?: string;
  voice?: string;
  references?: VoiceReference[];
  instructions?: string;
  response_format?: SpeechResponseFormat;
  sample_rate?: SpeechSampleRate;
  speed?: number;
  volume?: number;
  pitch?: number;
}

export interface Transcription {
  text: string;
  usage: {
    input_tokens: number;
    output_tokens: number;
    total_tokens: number;
    type?: string;
    input_token_details?: { audio_tokens?: number; text_tokens?: number };
  };
  model: string;
  id: string;
}
