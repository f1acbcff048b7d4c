import type { Observable } from 'rxjs';
import type { Turn } from '../dialog/reply-request.js';
import type { ReplyEvent } from '../service/reply.js';

/**
 * The outside capabilities the voice loop uses; the pipeline sees only these. Each call is
 * an Observable: subscribing starts the request, unsubscribing aborts it.
 */

export interface TranscribeResult {
  text: string;
  tokens?: number;
}

export interface Transcriber {
  transcribe(wav: Buffer, prompt: string | undefined): Observable<TranscribeResult>;
}

export interface ReplyModel {
  reply(history: Turn[]): Observable<ReplyEvent>;
}

export interface Synthesizer {
  readonly sampleRateHz: number;
  /** 16-bit mono PCM at `sampleRateHz`, chunk by chunk as it arrives. */
  synthesize(text: string): Observable<Buffer>;
}
