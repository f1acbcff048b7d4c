import { Subject, defer, finalize, merge, tap, type Observable, type OperatorFunction } from 'rxjs';
import type { ReplyEvent } from '../contract/reply.js';
import { cutText, type ToolActivity } from '../dialog/tool-calls.js';
import type { ToolEvent } from './events.js';

const SUMMARY_CHARS = 120;

/**
 * A turn's reply → what `speak` makes of it, with the tools the model called reported beside it
 * as events of the turn (short summaries). A call still running when the turn is cut (the user
 * talked over it) was cancelled with it, and is reported failed.
 */
export function reportTools<T>(
  turnId: number,
  now: () => number,
  speak: (reply: Observable<ReplyEvent | ToolActivity>) => Observable<T>,
): OperatorFunction<ReplyEvent | ToolActivity, T | ToolEvent> {
  return (reply) =>
    defer(() => {
      const tools = new Subject<ToolEvent>();
      const running = new Map<string, { name: string; args: string | undefined; at: number }>();
      const report = (activity: ToolActivity): void => {
        const { type: _type, ...rest } = activity;
        tools.next({
          type: 'tool',
          turnId,
          ...rest,
          ...(rest.args === undefined ? {} : { args: cutText(rest.args, SUMMARY_CHARS) }),
          ...(rest.result === undefined ? {} : { result: cutText(rest.result, SUMMARY_CHARS) }),
          ...(rest.error === undefined ? {} : { error: cutText(rest.error, SUMMARY_CHARS) }),
        });
      };
      const watched = reply.pipe(
        tap((event) => {
          if (event.type !== 'tool') return;
          if (event.phase === 'started') running.set(event.callId, { name: event.name, args: event.args, at: now() });
          else running.delete(event.callId);
          report(event);
        }),
        finalize(() => {
          for (const [callId, call] of running) {
            report({
              type: 'tool',
              callId,
              name: call.name,
              phase: 'failed',
              args: call.args,
              error: 'cancelled',
              ms: Math.round(now() - call.at),
            });
          }
          running.clear();
        }),
      );
      return merge(tools, speak(watched).pipe(finalize(() => tools.complete())));
    });
}
