import { checkMessagesBody } from '../contract/rules/messages.js';
import { LIMITS } from '../contract/limits.js';
import { mayServe, readJsonBody, type SimContext } from './sim-context.js';
import { SseWriter, type Exchange } from './exchange.js';
import { allText, fragments, lastUserText, planReply, textOf, type ReplyPlan } from './plan.js';

const STOP: Record<ReplyPlan['stopReason'], string> = {
  stop: 'end_turn',
  stop_sequence: 'stop_sequence',
  tool_calls: 'tool_use',
  max_tokens: 'max_tokens',
};

/** `POST /{prefix}/v1/messages` with the spec's event sequence (`event:` + `data:` lines, shared `id`). */
export async function handleMessages(ex: Exchange, ctx: SimContext): Promise<void> {
  const body = await readJsonBody(ex);
  if (!body) return;
  const model = String(body.model);
  if (!(await mayServe(ex, ctx, 'messages', checkMessagesBody(body, ctx.edition), model))) return;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const toolChoice = body.tool_choice as { type?: string } | undefined;
  const plan = planReply({
    ctx,
    seq: ex.record.seq,
    lastUserText: lastUserText(body.messages),
    promptText: allText(body.messages, body.system),
    toolsOffered: toolChoice?.type === 'none' ? [] : tools.map((t: { name?: unknown }) => textOf(t?.name)),
    thinkingDisabled: (body.thinking as { type?: unknown } | undefined)?.type === 'disabled',
    stopSequences: Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [],
    maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : LIMITS.defaultMaxTokens,
  });
  const id = `msg_sim_${ex.record.seq}`;
  const usage = { input_tokens: plan.inputTokens, output_tokens: plan.outputTokens };
  const blocks = contentBlocks(plan);
  const noise = ex.fault?.noise === true;
  if (body.stream !== true) {
    await ex.sleep(plan.ttftMs + plan.intervalMs * plan.textTokens.length);
    return ex.sendJson(200, {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: blocks.map((b) => b.final),
      stop_reason: STOP[plan.stopReason],
      stop_sequence: plan.stopSequence,
      usage,
    });
  }

  const streamed = noise ? [UNKNOWN_BLOCK, ...blocks] : blocks;
  const event = (name: string, payload: object): string =>
    `event:${name}\ndata:${JSON.stringify({ type: name, id, ...payload })}\n\n`;
  const out = new SseWriter(ex, () =>
    event('error', { error: { type: 'overloaded_error', message: 'Overloaded (injected fault)' } }),
  );
  ex.startStream('text/event-stream');
  await ex.sleep(plan.ttftMs);
  const start = {
    id,
    content: [],
    model,
    role: 'assistant',
    type: 'message',
    usage: { input_tokens: 0, output_tokens: 0 },
  };
  if (!(await out.frame(event('message_start', { message: start })))) return;
  if (noise && !(await out.frame(event('ping', {})))) return;
  let firstDelta = true;
  for (const [index, block] of streamed.entries()) {
    if (!(await out.frame(event('content_block_start', { index, content_block: block.start })))) return;
    for (const delta of block.deltas) {
      if (!firstDelta) await ex.sleep(plan.intervalMs);
      firstDelta = false;
      if (!(await out.frame(event('content_block_delta', { index, delta })))) return;
      if (noise && !(await out.frame(event('ping', {})))) return;
    }
    if (!(await out.frame(event('content_block_stop', { index })))) return;
  }
  if (noise && !(await out.frame(event('future_event_type', { detail: 'ignore me' })))) return;
  const finalUsage = { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage };
  const stop = { stop_reason: STOP[plan.stopReason], stop_sequence: plan.stopSequence };
  if (!(await out.frame(event('message_delta', { delta: stop, usage: finalUsage })))) return;
  if (!(await out.frame(event('message_stop', {})))) return;
  ex.end();
}

interface PlannedBlock {
  start: object;
  deltas: object[];
  final: object;
}

/** A block type from some future protocol version: clients must skip it. */
const UNKNOWN_BLOCK: PlannedBlock = {
  start: { type: 'future_block_type', payload: {} },
  deltas: [{ type: 'future_delta_type', payload: 'ignore me' }],
  final: {},
};

function contentBlocks(plan: ReplyPlan): PlannedBlock[] {
  const blocks: PlannedBlock[] = [];
  if (plan.reasoningTokens.length) {
    const thinking = plan.reasoningTokens.join('');
    blocks.push({
      start: { type: 'thinking', thinking: '' },
      deltas: [
        ...plan.reasoningTokens.map((t) => ({ type: 'thinking_delta', thinking: t })),
        { type: 'signature_delta', signature: 'sim-signature' },
      ],
      final: { type: 'thinking', thinking, signature: 'sim-signature' },
    });
  }
  if (plan.textTokens.length || !plan.toolCall) {
    blocks.push({
      start: { type: 'text', text: '' },
      deltas: plan.textTokens.map((t) => ({ type: 'text_delta', text: t })),
      final: { type: 'text', text: plan.textTokens.join('') },
    });
  }
  if (plan.toolCall) {
    const call = plan.toolCall;
    blocks.push({
      start: { type: 'tool_use', id: call.id, name: call.name, input: {} },
      deltas: fragments(call.argumentsJson).map((p) => ({ type: 'input_json_delta', partial_json: p })),
      final: { type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.argumentsJson) as object },
    });
  }
  return blocks;
}
