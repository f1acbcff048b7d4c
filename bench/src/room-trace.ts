import { FRAME_MS, type RoomLoop } from './room-loop.js';

/**
 * Prints the per-frame trace of a stretch of a room loop run, with the truth beside it: levels
 * (microphone, after the canceller, the echo it took out, dBFS; then by the truth, hark's echo
 * and the user's side of the room alone at the microphone), whether the canceller was
 * trusted (T), the loudest the echo may be (pred), the loss it was measured to achieve and the
 * sound beyond the echo band by band (bands, see BandPath), the VAD's probability, own voice (O), what
 * hark was doing, whether the user was speaking by the labels, and what hark did on that frame.
 */
export function printTrace(loop: RoomLoop, fromMs: number, toMs: number): void {
  const db = (v: number | null) => (v ?? NaN).toFixed(1).padStart(6);
  for (const f of loop.trace) {
    if (f.atMs < fromMs || f.atMs > toMs) continue;
    const user = loop.user.speechIn(f.atMs, f.atMs + 32).length ? 'USER' : '    ';
    const events = loop.events
      .filter((e) => e.at >= f.atMs + 32 && e.at < f.atMs + 64 && e.event.type !== 'speech')
      .map((e) => (e.event.type === 'interruption' ? e.event.phase : e.event.type))
      .join(',');
    const index = Math.round(f.atMs / FRAME_MS);
    const truth = (power: number | undefined) => db(10 * Math.log10(Math.max(power ?? 0, 1e-12)));
    const state =
      f.delayMs === undefined
        ? ''
        : ` d ${f.delayMs.toFixed(2)} r ${f.realignments} c ${(f.coherence ?? NaN).toFixed(2)}`;
    console.log(
      `${f.atMs.toFixed(0).padStart(7)} mic ${db(f.micDb)} out ${db(f.outDb)} echo ${db(f.echoDb)} | ${truth(loop.echoPower[index])} ${truth(loop.userPower[index])} | ${f.trusted ? 'T' : 'u'} pred ${db(f.predictedDb)} loss ${db(f.lossDb)} bands ${db(f.beyondDb)} p ${f.probability.toFixed(2)} ${f.own ? 'O' : ' '}${state} ${f.state.padEnd(9)} ${user} ${events}`,
    );
  }
}
