import type { ServiceEndpoint } from '../contract/endpoints.js';
import { isKnownModel, type Edition } from '../contract/models.js';
import type { Checker } from '../contract/rules/checker.js';
import type { Exchange } from './exchange.js';
import type { Fault, ReplyScript, SimScript } from './script.js';
import type { VoiceEngine } from './voice.js';

export interface SimTiming {
  /** Delay before the first streamed token (and before a non-streaming answer). */
  ttftMs: number;
  /** Streamed token rate; Infinity sends them all at once. */
  tokensPerSecond: number;
  /** Delay before the first speech byte. */
  ttsFirstByteMs: number;
  /** How much faster than real time speech deltas are pushed (1 = real time). */
  ttsRealtimeFactor: number;
  transcriptionDelayMs: number;
}

export const DEFAULT_TIMING: SimTiming = {
  ttftMs: 150,
  tokensPerSecond: 80,
  ttsFirstByteMs: 120,
  ttsRealtimeFactor: 4,
  transcriptionDelayMs: 80,
};

/** What every handler may consult. */
export interface SimContext {
  edition: Edition;
  script: SimScript;
  timing: SimTiming;
  voiceEngine: VoiceEngine;
  /** Send `data: [DONE]` after the last chat chunk. */
  chatDoneMarker: boolean;
  knowsModel(endpoint: ServiceEndpoint, model: string): boolean;
}

export function knowsModel(edition: Edition, extra: Partial<Record<ServiceEndpoint, string[]>>) {
  return (endpoint: ServiceEndpoint, model: string): boolean =>
    isKnownModel(edition, endpoint, model) || (extra[endpoint]?.includes(model) ?? false);
}

/** Reads and parses a JSON body; answers 400/415 itself and returns undefined when it cannot. */
export async function readJsonBody(ex: Exchange): Promise<Record<string, unknown> | undefined> {
  const contentType = ex.req.headers['content-type'] ?? '';
  const raw = await ex.readBody();
  if (!contentType.toLowerCase().startsWith('application/json')) {
    ex.sendError(415, 'invalid_request_error', 'Content-Type must be application/json');
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    ex.sendError(400, 'invalid_request_error', 'the request body is not valid JSON');
    return undefined;
  }
  ex.record.body = body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    ex.sendError(400, 'invalid_request_error', 'the request body must be a JSON object');
    return undefined;
  }
  return body as Record<string, unknown>;
}

/** Answers with the fault's HTTP status when it has one; true when the request is thereby done. */
export async function applyLeadingFault(ex: Exchange): Promise<boolean> {
  const fault: Fault | undefined = ex.fault;
  if (fault?.delayMs) await ex.sleep(fault.delayMs);
  if (fault?.status === undefined) return false;
  const headers: Record<string, string> =
    fault.retryAfterS === undefined ? {} : { 'retry-after': String(fault.retryAfterS) };
  const type = fault.status === 429 ? 'rate_limit_error' : fault.status === 529 ? 'overloaded_error' : 'api_error';
  ex.sendError(fault.status, type, fault.message ?? `injected fault: HTTP ${fault.status}`, undefined, headers);
  return true;
}

export function intervalMs(reply: ReplyScript | undefined, timing: SimTiming): number {
  const tps = reply?.tokensPerSecond ?? timing.tokensPerSecond;
  return Number.isFinite(tps) && tps > 0 ? 1000 / tps : 0;
}

/**
 * Whether the request may be served: within the limits (else 400 naming the field), for a model
 * the stand-in knows (else 404), and not answered first by an injected fault.
 */
export async function mayServe(
  ex: Exchange,
  ctx: SimContext,
  endpoint: ServiceEndpoint,
  check: Checker,
  model: string,
): Promise<boolean> {
  const problem = check.errors[0];
  if (problem) {
    ex.sendError(400, 'invalid_request_error', problem.message, problem.field);
    return false;
  }
  if (!ctx.knowsModel(endpoint, model)) {
    const type = ex.errorStyle === 'anthropic' ? 'not_found_error' : 'model_not_found';
    ex.sendError(404, type, `The model ${model} does not exist or you do not have access to it.`, 'model');
    return false;
  }
  return !(await applyLeadingFault(ex));
}
