import { checkChatBody } from '../contract/rules/chat.js';
import { mayServe, readJsonBody, type SimContext } from './sim-context.js';
import { SseWriter, type Exchange } from './exchange.js';
import { allText, fragments, lastUserText, planReply, textOf, type ReplyPlan } from './plan.js';

const FINISH: Record<ReplyPlan['stopReason'], string> = {
  stop: 'stop',
  stop_sequence: 'stop',
  tool_calls: 'tool_calls',
  max_tokens: 'length',
};

/** `POST /v1/chat/completions` as the spec's Chat stream describes it. */
export async function handleChat(ex: Exchange, ctx: SimContext): Promise<void> {
  const body = await readJsonBody(ex);
  if (!body) return;
  const model = String(body.model);
  if (!(await mayServe(ex, ctx, 'chat', checkChatBody(body, ctx.edition), model))) return;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const plan = planReply({
    ctx,
    seq: ex.record.seq,
    lastUserText: lastUserText(body.messages),
    promptText: allText(body.messages),
    toolsOffered: tools.map((t: { function?: { name?: unknown } }) => textOf(t?.function?.name)),
    thinkingDisabled: (body.thinking as { type?: unknown } | undefined)?.type === 'disabled',
  });
  const id = `chatcmpl-sim-${ex.record.seq}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = {
    completion_tokens: plan.outputTokens,
    prompt_tokens: plan.inputTokens,
    total_tokens: plan.inputTokens + plan.outputTokens,
  };
  if (body.stream !== true) {
    await ex.sleep(plan.ttftMs + plan.intervalMs * plan.textTokens.length);
    const toolCalls = plan.toolCall
      ? [
          {
            id: plan.toolCall.id,
            type: 'function',
            function: { name: plan.toolCall.name, arguments: plan.toolCall.argumentsJson },
          },
        ]
      : undefined;
    return ex.sendJson(200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: plan.textTokens.join(''),
            ...(plan.reasoningTokens.length ? { reasoning_content: plan.reasoningTokens.join('') } : {}),
            ...(toolCalls ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: FINISH[plan.stopReason],
        },
      ],
      usage,
    });
  }

  const frame = (choices: unknown[], chunkUsage: unknown = null, extra: object = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, usage: chunkUsage, ...extra })}\n\n`;
  const delta = (d: object, finish: string | null = null): string =>
    frame([{ index: 0, delta: { role: 'assistant', ...d }, finish_reason: finish }]);

  ex.startStream('text/event-stream');
  const out = new SseWriter(ex);
  await ex.sleep(plan.ttftMs);
  if (!(await out.frame(delta({ content: '' })))) return;
  const paced = async (text: string, first: boolean): Promise<boolean> => {
    if (!first) await ex.sleep(plan.intervalMs);
    return out.frame(text);
  };
  let first = true;
  for (const token of plan.reasoningTokens) {
    if (!(await paced(delta({ content: '', reasoning_content: token }), first))) return;
    first = false;
  }
  for (const token of plan.textTokens) {
    if (!(await paced(delta({ content: token }), first))) return;
    first = false;
  }
  if (plan.toolCall) {
    const call = plan.toolCall;
    const opening = { index: 0, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
    if (!(await paced(delta({ content: '', tool_calls: [opening] }), first))) return;
    for (const piece of fragments(call.argumentsJson)) {
      if (!(await paced(delta({ content: '', tool_calls: [{ index: 0, function: { arguments: piece } }] }), false)))
        return;
    }
  }
  const zero = { completion_tokens: 0, prompt_tokens: 0, total_tokens: 0 };
  if (!(await out.frame(frame([{ index: 0, delta: { content: '' }, finish_reason: FINISH[plan.stopReason] }], zero))))
    return;
  if (!(await out.frame(frame([], usage, { metadata: {} })))) return;
  if (ctx.chatDoneMarker && !(await out.frame('data: [DONE]\n\n'))) return;
  ex.end();
}
