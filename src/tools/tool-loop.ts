import {
  EMPTY,
  Observable,
  asyncScheduler,
  catchError,
  concat,
  concatWith,
  defer,
  from,
  merge,
  mergeMap,
  of,
  throwError,
  timeout,
  type SchedulerLike,
} from 'rxjs';
import type { ReplyEvent, TokenUsage, ToolCall } from '../contract/reply.js';
import type { Message } from '../dialog/conversation.js';
import { cutText, type ToolActivity, type ToolExchange, type ToolSpec } from '../dialog/tool-calls.js';
import type { Logger } from '../system/logger.js';
import { ToolError, type ToolOutput } from './tool.js';

/** One request to the chat model: the history, the tools offered, and whether it must answer in words now. */
export type ReplyRequest = (
  messages: Message[],
  offer: { tools: ToolSpec[]; noMoreTools: boolean },
) => Observable<ReplyEvent>;

/** The tools as the loop sees them (a ToolRegistry). */
export interface ToolBox {
  list(): ToolSpec[];
  call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput>;
}

export interface ToolLoopOptions {
  /** Rounds of tool calls in one reply; the request after the last offers no more. */
  maxRounds: number;
  callTimeoutMs: number;
  /** Longer results are cut to this for the model (the whole one is logged at debug). */
  maxResultChars: number;
  now: () => number;
  scheduler?: SchedulerLike;
  logger: Logger;
}

export type ToolLoopEvent = ReplyEvent | ToolActivity;

/** Said when the model said nothing itself: a tool did what was asked, or one failed. */
export const DONE_WORDS = 'Done.';
export const SORRY_WORDS = 'Sorry, that did not work.';

class ToolTimeout extends Error {
  override readonly name = 'ToolTimeout';
}

/**
 * A reply model that runs tools: the reply streams as usual; when the model calls tools, hark
 * runs them (side by side, each with a timeout, cancelled by unsubscribing), reports each as it
 * starts and ends, sends the results back, and streams the model's next round, up to
 * `maxRounds` rounds. Text of every round is passed on as it arrives, so what the model says
 * before or between calls is spoken at once. A failing tool is a result the model hears about,
 * never a failed reply; if the model then says nothing, hark says a short apology. One `done`
 * ends the reply, with the usage of all rounds.
 */
export function toolLoop(
  request: ReplyRequest,
  box: ToolBox,
  options: ToolLoopOptions,
): { reply(messages: Message[]): Observable<ToolLoopEvent> } {
  const scheduler = options.scheduler ?? asyncScheduler;
  const runCall = (call: ToolCall, id: string, done: (exchange: ToolExchange) => void): Observable<ToolActivity> =>
    defer(() => {
      const startedAt = options.now();
      const base = { type: 'tool' as const, callId: id, name: call.name, args: call.arguments || '{}' };
      const ms = (): number => Math.round(options.now() - startedAt);
      const outcome = new Observable<ToolOutput>((subscriber) => {
        const controller = new AbortController();
        const input = call.input;
        if (typeof input !== 'object' || input === null || Array.isArray(input)) {
          subscriber.error(new ToolError('the arguments were not a JSON object'));
          return undefined;
        }
        box.call(call.name, input as Record<string, unknown>, controller.signal).then(
          (output) => {
            subscriber.next(output);
            subscriber.complete();
          },
          (error: unknown) => subscriber.error(error),
        );
        return () => controller.abort();
      }).pipe(
        timeout({
          first: options.callTimeoutMs,
          scheduler,
          with: () => throwError(() => new ToolTimeout(`timed out after ${options.callTimeoutMs} ms`)),
        }),
      );
      const finished = outcome.pipe(
        mergeMap((output): Observable<ToolActivity> => {
          options.logger.debug('tool.result', { callId: id, name: call.name, result: output.text });
          const text = cutText(output.text, options.maxResultChars);
          done({ id, name: call.name, arguments: base.args, result: text, isError: output.isError === true });
          return of(
            output.isError
              ? { ...base, phase: 'failed', error: text, ms: ms() }
              : { ...base, phase: 'finished', result: text, ms: ms() },
          );
        }),
      );
      return concat(
        of<ToolActivity>({ ...base, phase: 'started' }),
        finished.pipe(
          catchError((error: unknown) => {
            const message = error instanceof Error ? error.message : String(error);
            done({ id, name: call.name, arguments: base.args, result: message, isError: true });
            return of<ToolActivity>({ ...base, phase: 'failed', error: message, ms: ms() });
          }),
        ),
      );
    });

  return {
    reply: (messages) =>
      defer(() => {
        let usage: TokenUsage | undefined;
        let stopReason: string | undefined;
        let spoke = false;
        let acted = false;
        let failed = false;
        const round = (history: Message[], n: number): Observable<ToolLoopEvent> =>
          defer(() => {
            const offered = box.list();
            const noMoreTools = n >= options.maxRounds;
            const calls: ToolCall[] = [];
            let text = '';
            return request(history, { tools: offered, noMoreTools }).pipe(
              mergeMap((event): Observable<ToolLoopEvent> => {
                if (event.type === 'tool_call') {
                  calls.push(event.call);
                  return EMPTY;
                }
                if (event.type === 'done') {
                  usage = addUsage(usage, event.usage);
                  stopReason = event.stopReason;
                  return EMPTY;
                }
                if (event.type === 'text') {
                  text += event.text;
                  spoke ||= event.text.trim() !== '';
                }
                return of(event);
              }),
              concatWith(
                defer(() => {
                  if (calls.length === 0 || noMoreTools || offered.length === 0) return ending();
                  const exchanges: (ToolExchange | undefined)[] = calls.map(() => undefined);
                  const runs = calls.map((call, i) =>
                    runCall(call, call.id || `call_${n}_${i}`, (exchange) => {
                      exchanges[i] = exchange;
                      acted = true;
                      failed ||= exchange.isError;
                    }),
                  );
                  const next = defer(() =>
                    round(
                      [...history, { role: 'assistant', text, tools: exchanges.filter((e) => e !== undefined) }],
                      n + 1,
                    ),
                  );
                  return concat(merge(...runs), next);
                }),
              ),
            );
          });
        const ending = (): Observable<ToolLoopEvent> => {
          const words: ToolLoopEvent[] =
            spoke || !acted ? [] : [{ type: 'text', text: failed ? SORRY_WORDS : DONE_WORDS }];
          return from<ToolLoopEvent[]>([...words, { type: 'done', stopReason, usage }]);
        };
        return round(messages, 0);
      }),
  };
}

function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a || !b) return b ?? a;
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
