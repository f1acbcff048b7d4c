import { describe, expect, it } from 'vitest';
import { IDLE_END_MS } from '../../../src/audio/command-player.js';
import type { PlaybackError } from '../../../src/audio/playback-error.js';
import { pcm } from '../../helpers/fakes.js';
import { standIn } from '../../helpers/stand-in-player.js';

describe('CommandPlayer running dry', () => {
  it('a player that runs dry with audio still queued is logged, and the next asks for twice the buffer; running dry at the end is no fault', () => {
    const { player, logger, children, at } = standIn('pacat --latency-msec={bufferMs} --verbose');
    player.write(pcm(2000, 16000));
    expect(children[0]?.args).toContain('--latency-msec=20');
    children[0]?.says('Stream started.\u001b[K\n');
    at(500);
    // pacat --verbose: its status line, then the underrun, on one line ended by a carriage return.
    children[0]?.says('Time: 0.500 sec; Latency: 18000 usec.        \rStream underrun.\u001b[K\n');
    children[0]?.says('Stream underrun.\u001b[K\n');
    player.stop();
    player.write(pcm(2000, 16000));
    expect(children[1]?.args).toContain('--latency-msec=40');
    children[1]?.says('Stream started.\u001b[K\n');
    at(2600);
    // The reply played to its end: nothing was queued when it ran dry.
    children[1]?.says('Stream underrun.\u001b[K\n');
    player.write(pcm(500, 16000));
    expect(logger.lines.filter((l) => l.event === 'player.underrun')).toEqual([
      expect.objectContaining({ level: 'warn', command: 'pacat', queuedMs: 1500, bufferMs: 20, nextBufferMs: 40 }),
    ]);
    // Its chatter is no part of why it failed.
    children[1]?.fails('Connection failure: Connection refused');
    expect(logger.lines.find((l) => l.event === 'player.failed')).toMatchObject({
      error: 'pacat exited with 1: Connection failure: Connection refused',
    });
  });

  it('a player that ran dry holds hark’s clock until it plays on, and its listeners hear the rest from then', () => {
    const { player, children, heard, silentFrom, at } = standIn('pacat --verbose');
    const says = (text: string): void => children[0]?.says(text);
    player.write(pcm(2000, 16000));
    says('Stream started.\u001b[K\n');
    at(500);
    says('Stream underrun.\u001b[K\n');
    // Nothing sounded while it started, nor once it ran dry.
    expect(silentFrom).toEqual([0, 500]);
    at(560);
    expect(player.playedSamples()).toBe(8000);
    // Written meanwhile: the player has it at once, its listeners when it plays.
    player.write(pcm(100, 16000));
    expect(children[0]?.written).toEqual([32_000, 1600]);
    // Said in two pieces, as a pipe may hand it over.
    says('Stream star');
    expect(heard).toHaveLength(1);
    says('ted.\u001b[K\n');
    expect(heard).toEqual([
      { startMs: 0, samples: 32_000 },
      { startMs: 560, samples: 25_600 },
    ]);
    at(1560);
    expect(player.queuedMs()).toBe(600);
    // One that never says it plays on is taken to, half a second after it ran dry.
    says('Stream underrun.\u001b[K\n');
    at(1900);
    expect(player.queuedMs()).toBe(600);
    at(2160);
    expect(player.queuedMs()).toBe(500);
  });

  it('a pause while the player has run dry holds it there, and the resume plays on from exactly there', () => {
    const { player, children, heard, at } = standIn('pacat --verbose');
    player.write(pcm(2000, 16000));
    children[0]?.says('Stream started.\n');
    at(500);
    children[0]?.says('Stream underrun.\n');
    at(520);
    player.pause();
    // Past the most a dry player is waited for: paused, nothing plays.
    at(1200);
    expect(player.playedSamples()).toBe(8000);
    player.resume();
    expect(children[1]?.written).toEqual([24_000]);
    expect(heard).toEqual([
      { startMs: 0, samples: 32_000 },
      { startMs: 1200, samples: 24_000 },
    ]);
  });

  it('a player that does not say when it plays on (aplay) is not waited for, though its buffer grows', () => {
    const { player, logger, children, at } = standIn('aplay --buffer-time={bufferMs}000');
    player.write(pcm(2000, 16000));
    at(500);
    children[0]?.says('underrun!!! (at least 41.234 ms long)\n');
    at(700);
    expect(player.playedSamples()).toBe(11_200);
    player.stop();
    player.write(pcm(100, 16000));
    expect(children.map(({ args }) => args)).toEqual([['--buffer-time=20000'], ['--buffer-time=40000']]);
    expect(logger.lines.filter((l) => l.event === 'player.underrun')).toHaveLength(1);
  });
});

describe('CommandPlayer between replies', () => {
  it('a new process of a player that says when it plays is waited for: its listeners hear the reply from then', () => {
    const { player, children, heard, at } = standIn('pacat --verbose');
    player.write(pcm(1000, 16000));
    at(40);
    expect(player.playedSamples()).toBe(0);
    children[0]?.says('Stream successfully created.\nStream started.\n');
    at(340);
    // Talked over: the next reply starts a new process, which takes a while to connect.
    player.stop();
    at(2000);
    player.write(pcm(1000, 16000));
    expect(children[1]?.written).toEqual([16_000]);
    at(2060);
    expect(player.playedSamples()).toBe(4800);
    children[1]?.says('Stream started.\n');
    at(2560);
    expect(player.playedSamples()).toBe(4800 + 8000);
    expect(heard).toEqual([
      { startMs: 40, samples: 16_000 },
      { startMs: 2060, samples: 16_000 },
    ]);
  });

  it('a player command not known to say when it plays is waited for once one of its processes has said so', () => {
    const { player, children, heard, at } = standIn('my-pacat-wrapper');
    player.write(pcm(1000, 16000));
    children[0]?.says('Stream started.\n');
    at(300);
    player.stop();
    player.write(pcm(1000, 16000));
    at(350);
    children[1]?.says('Stream started.\n');
    expect(heard.map(({ startMs }) => startMs)).toEqual([0, 350]);
  });

  it('a process left with nothing to play is ended, not before; the next reply starts another', () => {
    const { player, children, at } = standIn('pacat --verbose');
    player.write(pcm(1000, 16000));
    children[0]?.says('Stream started.\n');
    const followUp = 1000 + IDLE_END_MS - 1;
    at(followUp);
    expect(children[0]?.ended).toBe(false);
    // A follow-up within the wait finds it ready, and the wait starts again from its end.
    player.write(pcm(500, 16000));
    expect(children).toHaveLength(1);
    at(followUp + 500 + IDLE_END_MS - 1);
    expect(children[0]?.ended).toBe(false);
    at(followUp + 500 + IDLE_END_MS);
    expect(children[0]?.ended).toBe(true);
    player.write(pcm(500, 16000));
    expect(children).toHaveLength(2);
    expect(children[1]?.written).toEqual([8000]);
  });

  it('a process ended for being idle that exits with an error fails nothing that plays after it', () => {
    const { player, logger, children, at } = standIn('pacat --verbose');
    const lost: PlaybackError[] = [];
    player.failures.subscribe((failure) => lost.push(failure));
    player.write(pcm(500, 16000));
    children[0]?.says('Stream started.\n');
    at(500 + IDLE_END_MS);
    expect(children[0]?.ended).toBe(true);
    player.write(pcm(1000, 16000));
    children[1]?.says('Stream started.\n');
    children[0]?.fails('Failed to drain stream: Connection terminated');
    at(500 + IDLE_END_MS + 400);
    expect(lost).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(player.playedSamples()).toBe(8000 + 6400);
  });

  it('a new process that fails before it plays is not waited for: what it had is reported lost, never told', () => {
    const { player, children, heard, at } = standIn('pacat --verbose');
    const lost: PlaybackError[] = [];
    player.failures.subscribe((failure) => lost.push(failure));
    player.write(pcm(1000, 16000));
    at(20);
    children[0]?.fails('Connection failure: Connection refused');
    expect(lost).toEqual([expect.objectContaining({ fromSample: 0, toSample: 16_000 })]);
    // Counted out from the failure on, as a failed player's audio is, not after the longest wait.
    at(400);
    expect(player.queuedMs()).toBe(620);
    at(2000);
    expect(heard).toEqual([]);
    expect(player.queuedMs()).toBe(0);
  });

  it('closing a player that is waited for tells its listeners nothing more', async () => {
    const { player, heard, at } = standIn('pacat --verbose');
    player.write(pcm(1000, 16000));
    const closed = player.close();
    // Past the most it would have been waited for, and past the drain's end: it is killed then.
    at(2000);
    await closed;
    expect(heard).toEqual([]);
  });

  it('a player that keeps quiet while it lives (aplay) is kept between replies', () => {
    const { player, children, at } = standIn('aplay -q');
    player.write(pcm(1000, 16000));
    at(3 * IDLE_END_MS);
    player.write(pcm(500, 16000));
    expect(children).toHaveLength(1);
    expect(children[0]?.ended).toBe(false);
  });

  it('a paused reply keeps its player however long the pause', () => {
    const { player, children, at } = standIn('pacat --verbose');
    player.write(pcm(1000, 16000));
    children[0]?.says('Stream started.\n');
    at(500);
    player.pause();
    at(3 * IDLE_END_MS);
    // The one started for the resume is still there, and is given the rest.
    expect(children.map((child) => child.ended)).toEqual([false, false]);
    player.resume();
    expect(children[1]?.written).toEqual([8000]);
  });
});
