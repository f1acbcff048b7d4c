import { LIMITS } from '../limits.js';
import { thinkingEffective, type Edition } from '../models.js';
import { isObject, type Checker } from './checker.js';

const EFFORTS = ['high', 'xhigh'] as const;
const THINKING_TYPES = ['enabled', 'disabled'] as const;

/** Sampling parameters, shared by both generation endpoints. */
export function checkSampling(check: Checker, body: Record<string, unknown>): void {
  check.range('temperature', body.temperature, LIMITS.temperature);
  check.range('top_p', body.top_p, LIMITS.topP);
  check.optionalBoolean('stream', body.stream);
}

/**
 * `thinking`, and a warning when it is turned on for a model that does not think. Turning it
 * off for such a model is no mistake: hark's default turns it off for whichever model it asks.
 */
export function checkThinking(check: Checker, thinking: unknown, model: unknown, edition: Edition): void {
  if (thinking !== undefined && check.optionalObject('thinking', thinking) && thinking) {
    check.oneOf('thinking.type', thinking.type, THINKING_TYPES);
    if (thinking.type === 'enabled' && typeof model === 'string' && !thinkingEffective(edition, model)) {
      check.warn(`thinking has no effect on ${model} in edition ${edition}`);
    }
  }
}

export function checkEffort(check: Checker, field: string, holder: unknown): void {
  if (holder !== undefined && check.optionalObject(field, holder) && holder) {
    check.oneOf(`${field}.effort`, holder.effort, EFFORTS);
  }
}

export function checkMessageList(
  check: Checker,
  messages: unknown,
  roles: readonly string[],
  checkContent: (field: string, content: unknown) => void,
): void {
  if (!Array.isArray(messages) || messages.length === 0) {
    check.fail('messages', 'must be a non-empty array of message items', messages);
    return;
  }
  messages.forEach((message: unknown, i) => {
    // Text content is valid in both protocols: most of a conversation needs no more than this.
    if (isObject(message) && typeof message.content === 'string' && roles.includes(message.role as string)) return;
    const field = `messages[${i}]`;
    if (!check.optionalObject(field, message) || !message) return;
    if (message.role === undefined) check.fail(`${field}.role`, `is required: one of ${roles.join(', ')}`);
    else check.oneOf(`${field}.role`, message.role, roles);
    checkContent(`${field}.content`, message.content);
  });
}
