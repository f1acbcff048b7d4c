import { audioDurationMs } from '../contract/rules/transcription.js';
import { describeAudio } from './transcription-handler.js';
import { defaultReply, estimateTokens, tokenize, type ReplyScript } from './script.js';
import { intervalMs, type SimContext } from './sim-context.js';

/** A reply decided on before streaming: what to send, how fast, and how it stops. */
export interface ReplyPlan {
  reasoningTokens: string[];
  textTokens: string[];
  toolCall: { id: string; name: string; argumentsJson: string } | undefined;
  ttftMs: number;
  intervalMs: number;
  stopReason: 'stop' | 'tool_calls' | 'stop_sequence' | 'max_tokens';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
}

export interface PlanInput {
  ctx: SimContext;
  seq: number;
  lastUserText: string;
  promptText: string;
  toolsOffered: string[];
  thinkingDisabled: boolean;
  stopSequences?: string[];
  maxTokens?: number;
}

export function planReply(input: PlanInput): ReplyPlan {
  const { ctx } = input;
  const script: ReplyScript | undefined = ctx.script.takeReply();
  let text = script?.text ?? (script?.toolCall ? '' : defaultReply(input.lastUserText));
  let stopReason: ReplyPlan['stopReason'] = 'stop';
  let stopSequence: string | null = null;
  for (const stop of input.stopSequences ?? []) {
    const at = text.indexOf(stop);
    if (at !== -1) {
      text = text.slice(0, at);
      stopReason = 'stop_sequence';
      stopSequence = stop;
    }
  }
  let textTokens = tokenize(text);
  if (input.maxTokens !== undefined && textTokens.length > input.maxTokens) {
    textTokens = textTokens.slice(0, input.maxTokens);
    stopReason = 'max_tokens';
  }
  const tool = script?.toolCall && input.toolsOffered.includes(script.toolCall.name) ? script.toolCall : undefined;
  if (tool) stopReason = 'tool_calls';
  const reasoningTokens = script?.reasoning && !input.thinkingDisabled ? tokenize(script.reasoning) : [];
  return {
    reasoningTokens,
    textTokens,
    toolCall: tool
      ? { id: `call_sim_${input.seq}`, name: tool.name, argumentsJson: JSON.stringify(tool.arguments) }
      : undefined,
    ttftMs: script?.ttftMs ?? ctx.timing.ttftMs,
    intervalMs: intervalMs(script, ctx.timing),
    stopReason,
    stopSequence,
    inputTokens: estimateTokens(input.promptText),
    outputTokens: reasoningTokens.length + textTokens.length + (tool ? 8 : 0),
  };
}

/** Splits a JSON text into the small fragments a model streams tool arguments in. */
export function fragments(text: string, size = 8): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** A field that should be text, as text ('' when it is not). */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Text of a message's content: a string, or the text parts/blocks of an array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part !== 'object' || part === null) return '';
      const {
        type,
        text,
        audio_url: audio,
      } = part as { type?: unknown; text?: unknown; audio_url?: { url?: unknown } };
      if (type === 'text') return textOf(text);
      // The stand-in cannot understand speech either: it says what it was given.
      if (type === 'audio_url') return describeRecording(textOf(audio?.url));
      return '';
    })
    .filter(Boolean)
    .join(' ');
}

/** A recording sent as a data URL, as the stand-in can honestly describe it. */
function describeRecording(url: string): string {
  const match = /^data:[^;,]+;base64,(.*)$/s.exec(url);
  if (!match) return '(a recording)';
  const bytes = Buffer.from(match[1] ?? '', 'base64');
  return describeAudio(bytes, audioDurationMs('.wav', bytes) ?? 0);
}

export function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as { role?: unknown; content?: unknown };
    if (message?.role === 'user') {
      const text = contentText(message.content);
      if (text) return text;
    }
  }
  return '';
}

export function allText(messages: unknown, system?: unknown): string {
  const parts = [contentText(system)];
  if (Array.isArray(messages)) for (const m of messages) parts.push(contentText((m as { content?: unknown })?.content));
  return parts.join('\n');
}
