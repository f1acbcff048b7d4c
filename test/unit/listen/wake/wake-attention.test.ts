import { describe, expect, it } from 'vitest';
import { WakeAttention, type Attention } from '../../../../src/listen/wake/wake-attention.js';
import { roomNoise, tone } from '../../../helpers/audio.js';

const STEP = 640;
const options = { capDbfs: -50, marginDb: 10, holdMs: 2000 };

/** What the attention says for each 40 ms step of `samples`. */
function attend(attention: WakeAttention, samples: Int16Array): Attention[] {
  const out: Attention[] = [];
  for (let at = 0; at + STEP <= samples.length; at += STEP) out.push(attention.next(samples.subarray(at, at + STEP)));
  return out;
}

describe('WakeAttention: when the wake-word detector must work', () => {
  it('stays idle through a quiet room from the first step', () => {
    expect(new Set(attend(new WakeAttention(options), roomNoise(20_000, -60)))).toEqual(new Set(['idle']));
  });

  it('begins at a sound, stays busy while it lasts and for the hold after it, then rests', () => {
    const attention = new WakeAttention(options);
    attend(attention, roomNoise(5000, -60));
    const voice = tone(400, 16000, 220, 0.05);
    const seen = attend(attention, Int16Array.from([...voice, ...roomNoise(3000, -60, 2)]));
    expect(seen[0]).toBe('begin');
    const busy = seen.filter((a) => a === 'busy').length;
    // 400 ms of sound, then 2 s of hold: 60 steps in all, the first of which begins.
    expect(busy).toBe(59);
    expect(seen.slice(60)).toEqual(Array(seen.length - 60).fill('idle'));
  });

  it('takes a quiet voice over a quiet room for sound, and a steady fan, once the floor has risen to it, for quiet', () => {
    const attention = new WakeAttention(options);
    attend(attention, roomNoise(3000, -66));
    // A quiet talker (-54 dBFS, under the cap) 12 dB over the room.
    expect(attend(attention, tone(200, 16000, 220, 10 ** (-54 / 20) * Math.SQRT2))[0]).toBe('begin');
    // A fan switched on 10 dB over the room: sound at first, quiet once the floor has followed it (8 s at 1.25 dB/s).
    const fan = attend(attention, roomNoise(20_000, -56, 3));
    expect(fan.slice(0, 10)).not.toContain('idle');
    expect(fan.slice(-50)).toEqual(Array(50).fill('idle'));
  });

  it('takes anything at the cap or louder for sound, whatever the floor', () => {
    const attention = new WakeAttention(options);
    attend(attention, roomNoise(30_000, -48));
    expect(attend(attention, roomNoise(1000, -48, 4))).not.toContain('idle');
  });

  it('after a rest, the next sound begins afresh', () => {
    const attention = new WakeAttention(options);
    const voice = tone(400, 16000, 220, 0.05);
    expect(attend(attention, voice)[0]).toBe('begin');
    attention.rest();
    expect(attend(attention, voice)[0]).toBe('begin');
  });
});
