import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { ServiceEndpoint } from '../contract/endpoints.js';
import type { Edition } from '../contract/models.js';
import { silentLogger, type Logger } from '../system/logger.js';
import { checkBearer, checkMessagesAuth } from './auth.js';
import { handleChat } from './chat-handler.js';
import { DEFAULT_TIMING, knowsModel, type SimContext, type SimTiming } from './sim-context.js';
import { Exchange, monotonicMs, type SimRequest } from './exchange.js';
import { handleMessages } from './messages-handler.js';
import { SimScript } from './script.js';
import { handleSpeech } from './speech-handler.js';
import { handleTranscription } from './transcription-handler.js';
import { pickEngine, type VoiceEngine } from './voice.js';

export interface SimOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  apiKey?: string;
  edition?: Edition;
  messagesPrefix?: string;
  timing?: Partial<SimTiming>;
  voice?: 'auto' | VoiceEngine;
  chatDoneMarker?: boolean;
  /** Models to accept beyond the edition's catalogue (e.g. a speech model that streams raw audio). */
  extraModels?: Partial<Record<ServiceEndpoint, string[]>>;
  logger?: Logger;
}

type Handler = (ex: Exchange, ctx: SimContext) => Promise<void>;

const HANDLERS: Record<ServiceEndpoint, Handler> = {
  chat: handleChat,
  messages: handleMessages,
  speech: handleSpeech,
  transcription: handleTranscription,
};

/**
 * hark's stand-in for the Model Inference Service: a real HTTP server on loopback with the
 * four endpoints, their auth rules and limits, scripted replies and injectable faults.
 */
export class SimServer extends EventEmitter<{ request: [SimRequest] }> {
  readonly script = new SimScript();
  readonly requests: SimRequest[] = [];
  readonly apiKey: string;
  readonly messagesPrefix: string;
  readonly timing: SimTiming;
  private readonly server: Server;
  private readonly ctx: SimContext;
  private readonly logger: Logger;
  private readonly host: string;
  private readonly port: number;
  private seq = 0;

  constructor(options: SimOptions = {}) {
    super();
    this.apiKey = options.apiKey ?? `sim-${randomBytes(12).toString('hex')}`;
    this.messagesPrefix = (options.messagesPrefix ?? 'anthropic').replace(/^\/+|\/+$/g, '');
    this.timing = { ...DEFAULT_TIMING, ...options.timing };
    this.host = options.host ?? '127.0.0.1';
    this.port = options.port ?? 0;
    this.logger = options.logger ?? silentLogger;
    const edition = options.edition ?? 'A';
    this.ctx = {
      edition,
      script: this.script,
      timing: this.timing,
      voiceEngine: pickEngine(options.voice ?? 'auto'),
      chatDoneMarker: options.chatDoneMarker ?? true,
      knowsModel: knowsModel(edition, options.extraModels ?? {}),
    };
    this.server = createServer((req, res) => void this.route(req, res));
    this.server.keepAliveTimeout = 60_000;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.port, this.host, () => resolve());
    });
    return this;
  }

  get url(): string {
    const address = this.server.address() as AddressInfo;
    return `http://${address.address}:${address.port}`;
  }

  get voiceEngine(): VoiceEngine {
    return this.ctx.voiceEngine;
  }

  /** What it speaks with from the next request on. */
  set voiceEngine(engine: VoiceEngine) {
    this.ctx.voiceEngine = engine;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  requestsTo(endpoint: ServiceEndpoint): SimRequest[] {
    return this.requests.filter((r) => r.endpoint === endpoint);
  }

  /** Resolves once `count` requests have reached `endpoint`. */
  waitForRequests(endpoint: ServiceEndpoint, count: number, timeoutMs = 10_000): Promise<SimRequest[]> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const matching = this.requestsTo(endpoint);
        if (matching.length < count) return false;
        clearTimeout(timer);
        this.off('request', onRequest);
        resolve(matching);
        return true;
      };
      const onRequest = (): void => void check();
      const timer = setTimeout(() => {
        this.off('request', onRequest);
        reject(new Error(`stand-in saw ${this.requestsTo(endpoint).length} of ${count} ${endpoint} requests`));
      }, timeoutMs);
      this.on('request', onRequest);
      check();
    });
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const endpoint = this.endpointFor(path);
    const record: SimRequest = {
      seq: ++this.seq,
      endpoint: endpoint ?? 'unknown',
      path,
      headers: maskedHeaders(req),
      body: undefined,
      status: 0,
      receivedAtMs: monotonicMs(),
      firstBodyByteAtMs: undefined,
      events: 0,
      outcome: 'pending',
      ended: Promise.resolve('pending'),
    };
    const fault = endpoint ? this.script.takeFault(endpoint) : undefined;
    const ex = new Exchange(req, res, record, fault, endpoint === 'messages' ? 'anthropic' : 'openai');
    this.requests.push(record);
    this.emit('request', record);
    void this.serve(ex, endpoint).catch((error: unknown) => {
      this.logger.error('sim.handler_failed', { path, error });
      if (!res.headersSent) ex.sendError(500, 'api_error', 'the stand-in service failed');
      else res.destroy();
    });
  }

  private async serve(ex: Exchange, endpoint: ServiceEndpoint | undefined): Promise<void> {
    if (!endpoint) return ex.sendError(404, 'not_found', `no endpoint at ${ex.req.method} ${ex.record.path}`);
    if (ex.req.method !== 'POST') return ex.sendError(405, 'invalid_request_error', 'use POST');
    const verdict =
      endpoint === 'messages'
        ? checkMessagesAuth(ex.req.headers, this.apiKey)
        : checkBearer(ex.req.headers, this.apiKey);
    if (!verdict.ok) {
      await ex.readBody();
      const type = verdict.status === 401 ? 'authentication_error' : 'invalid_request_error';
      return ex.sendError(verdict.status, type, verdict.message);
    }
    await HANDLERS[endpoint](ex, this.ctx);
  }

  private endpointFor(path: string): ServiceEndpoint | undefined {
    if (path === '/v1/chat/completions') return 'chat';
    if (path === '/v1/audio/speech') return 'speech';
    if (path === '/v1/audio/transcriptions') return 'transcription';
    if (path === `/${this.messagesPrefix}/v1/messages`) return 'messages';
    return undefined;
  }
}

function maskedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name] = name === 'authorization' || name === 'x-api-key' ? '(present)' : String(value);
  }
  return out;
}

export async function startSim(options: SimOptions = {}): Promise<SimServer> {
  return new SimServer(options).start();
}
