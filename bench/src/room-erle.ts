/**
 * Echo return loss enhancement in the room loop, from the truth: the room says how loud hark's
 * echo alone was at the microphone in every chunk, so only chunks where the echo stands well above
 * the room's noise and no user spoke (by the labels) count. ERLE is the microphone's power over
 * what the canceller left, pooled over those chunks.
 */
import { FRAME_MS, type RoomLoop } from './room-loop.js';

export interface Erle {
  /** Pooled over every echo chunk once the canceller had heard 2 s of echo in the run, dB. */
  after2sDb: number;
  /** Per reply (a stretch of echo), pooled over its chunks after its own first 2 s: median and lowest, dB. */
  perReplyMedianDb: number;
  perReplyMinDb: number;
  replies: number;
  /** Echo time scored, s. */
  scoredS: number;
}

const CONVERGE_MS = 2000;
/** Echo counts where it is this far above the room's noise. */
const ABOVE_NOISE_DB = 20;
/** A gap in the echo this long ends a reply. */
const REPLY_GAP_MS = 500;

export function erleOf(loop: RoomLoop, noiseDbfs: number): Erle {
  const floor = 10 ** ((noiseDbfs + ABOVE_NOISE_DB) / 10);
  const power = (db: number) => 10 ** (db / 10);
  let heardMs = 0;
  let mic = 0;
  let out = 0;
  const replies: { mic: number; out: number; ms: number }[] = [];
  let reply = { mic: 0, out: 0, ms: 0, sinceMs: 0, lastAt: -Infinity };
  const close = () => {
    if (reply.ms >= 1000) replies.push(reply);
  };
  for (const f of loop.trace) {
    const echo = loop.echoPower[Math.round(f.atMs / FRAME_MS)] ?? 0;
    if (echo < floor || loop.user.speechIn(f.atMs, f.atMs + FRAME_MS).length > 0) continue;
    if (f.atMs - reply.lastAt > REPLY_GAP_MS) {
      close();
      reply = { mic: 0, out: 0, ms: 0, sinceMs: 0, lastAt: f.atMs };
    }
    reply.lastAt = f.atMs;
    reply.sinceMs += FRAME_MS;
    heardMs += FRAME_MS;
    if (heardMs > CONVERGE_MS) {
      mic += power(f.micDb);
      out += power(f.outDb);
    }
    if (reply.sinceMs > CONVERGE_MS) {
      reply.mic += power(f.micDb);
      reply.out += power(f.outDb);
      reply.ms += FRAME_MS;
    }
  }
  close();
  const perReply = replies.map((r) => 10 * Math.log10(r.mic / r.out)).sort((a, b) => a - b);
  return {
    after2sDb: 10 * Math.log10(mic / out),
    perReplyMedianDb: perReply[perReply.length >> 1] ?? NaN,
    perReplyMinDb: perReply[0] ?? NaN,
    replies: perReply.length,
    scoredS: (heardMs - Math.min(heardMs, CONVERGE_MS)) / 1000,
  };
}
