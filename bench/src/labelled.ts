/**
 * Real speech with hand labels (test/fixtures/speech/*.labels.json): the ground truth that
 * benchmarks measure hark against, never hark's own detections.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, concatSamples, fixture, silence } from './fixtures.js';

export interface Span {
  startMs: number;
  endMs: number;
}

export interface Labelled {
  name: string;
  samples: Int16Array;
  /** Where the words are, from the first to the last sound of them. */
  speech: Span[];
}

export async function labelled(name: string): Promise<Labelled> {
  const labels = JSON.parse(readFileSync(join(FIXTURES, 'speech', `${name}.labels.json`), 'utf8')) as {
    speech: Span[];
  };
  return { name, samples: await fixture(join('speech', `${name}.wav`)), speech: labels.speech };
}

/** A clip placed in a longer input: its labels shifted to where it sits. */
export interface Placed {
  name: string;
  speech: Span[];
}

/** Clips one after another, `gapMs` of silence after each, after a lead of silence. */
export function arrange(clips: Labelled[], leadMs: number, gapMs: number): { samples: Int16Array; placed: Placed[] } {
  const parts: Int16Array[] = [silence(leadMs)];
  const placed: Placed[] = [];
  let atMs = leadMs;
  for (const clip of clips) {
    placed.push({
      name: clip.name,
      speech: clip.speech.map((s) => ({ startMs: s.startMs + atMs, endMs: s.endMs + atMs })),
    });
    parts.push(clip.samples, silence(gapMs));
    atMs += (clip.samples.length / 16000) * 1000 + gapMs;
  }
  return { samples: concatSamples(parts), placed };
}

/**
 * The clip with the pause between its first two labelled stretches of speech made `pauseMs`
 * long, by removing (or repeating) room sound from the middle of the pause: the speech itself
 * is untouched and the labels follow.
 */
export function withPause(clip: Labelled, pauseMs: number): Labelled {
  const [first, second, ...rest] = clip.speech;
  if (!first || !second) throw new Error(`${clip.name} has no pause between two stretches of speech`);
  const at = (ms: number): number => Math.round(ms * 16);
  const middle = at((first.endMs + second.startMs) / 2);
  const shiftMs = pauseMs - (second.startMs - first.endMs);
  const shift = at(shiftMs);
  if (shift > middle - at(first.endMs))
    throw new Error(`${clip.name}: its pause is too short to stretch to ${pauseMs} ms`);
  const samples =
    shift <= 0
      ? concatSamples([clip.samples.subarray(0, middle + shift), clip.samples.subarray(middle)])
      : concatSamples([
          clip.samples.subarray(0, middle),
          clip.samples.subarray(middle - shift, middle),
          clip.samples.subarray(middle),
        ]);
  const moved = (s: Span): Span => ({ startMs: s.startMs + shiftMs, endMs: s.endMs + shiftMs });
  return { name: `${clip.name} (pause ${pauseMs} ms)`, samples, speech: [first, moved(second), ...rest.map(moved)] };
}
