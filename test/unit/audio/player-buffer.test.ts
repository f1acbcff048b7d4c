import { describe, expect, it } from 'vitest';
import { PlayerBuffer, playerSaid, starved } from '../../../src/audio/player-buffer.js';

describe('PlayerBuffer', () => {
  it('doubles for each starved player, up to the most it asks for', () => {
    const buffer = new PlayerBuffer(20, 160);
    expect([buffer.ms, buffer.grow(), buffer.grow(), buffer.grow(), buffer.grow()]).toEqual([20, 40, 80, 160, 160]);
  });

  it('a player that ran dry with hark’s queue all but empty had only reached the end', () => {
    expect([starved(0), starved(60), starved(100), starved(1500)]).toEqual([false, false, true, true]);
  });
});

describe('playerSaid', () => {
  it('finds running dry in aplay’s words as in pacat’s, in order with playing on, and keeps only what is not its chatter', () => {
    expect(playerSaid('underrun!!! (at least 12.345 ms long)\n').news).toEqual(['ran dry']);
    expect(
      playerSaid('Stream underrun.\u001b[K\rTime: 1.0 sec; Latency: 20 usec.  \rStream started.\u001b[K\n'),
    ).toEqual({
      news: ['ran dry', 'plays'],
      rest: '',
    });
    expect(playerSaid('Connection established.\u001b[K\nStream successfully created.\u001b[K\n')).toEqual({
      news: [],
      rest: '',
    });
    expect(playerSaid('Time: 1.000 sec; Latency: 20000 usec.        \rStream error: Connection terminated\n')).toEqual({
      news: [],
      rest: 'Stream error: Connection terminated\n',
    });
  });
});
