import { describe, expect, it } from 'vitest';
import { INTERRUPTED_MARK } from '../../../src/dialog/conversation.js';
import { turnLatencies, type Turn } from '../../../src/dialog/turn.js';
import { PlaybackError } from '../../../src/audio/playback-error.js';
import { ScriptedWakeWord } from '../../helpers/wake-word.js';
import { config, firstTurnAt, run, statesOf, type Run } from '../../helpers/voice-loop-run.js';

describe('the assistant, microphone to speaker', () => {
  it('a plain turn: speech becomes a query, and the reply is spoken sentence by sentence', () => {
    // Speech at 0-2, its end at 4; transcript at 5; the reply's tokens at 6, 8, 10; each sentence
    // plays 10 ms from when its audio arrives (10-20, 20-30, 30-40).
    const r = run('sssqq------------------------------------------|', {
      transcripts: ['Tell me three things.'],
      replies: ['-a-b-(cd|)'],
    });
    expect(r.asked).toEqual([[{ role: 'user', text: 'Tell me three things.' }]]);
    expect(statesOf(r)).toEqual(['5:thinking', '10:speaking', '40:listening']);
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]).toMatchObject({
      reply: 'First sentence is here. Second sentence is here. Third one ends it.',
      heard: 'First sentence is here. Second sentence is here. Third one ends it.',
      interrupted: false,
      failed: undefined,
      usage: { inputTokens: 9, outputTokens: 12, totalTokens: 21 },
      sentences: 3,
      timings: { chatRequest: 5, firstToken: 6, firstSentence: 8, ttsRequest: 8, firstAudioByte: 10, firstWrite: 10 },
    });
    expect(r.earcons.played).toEqual(['listening', 'thinking']);
    expect(r.player.stops).toBe(0);
  });

  it('barge-in: the reply pauses at the first word, and once confirmed is cut; history keeps what was heard', () => {
    // hark speaks from 10 (first sentence 10-20, second 20-30). The user talks over it at 24-26:
    // playback pauses at 24, 4 samples into "Second sentence is here."; at 26 (3 frames) the
    // interruption is confirmed and the turn cut.
    const r = run('sssqq-------------------sssqq-----------------------------|', {
      transcripts: ['Tell me three things.', 'What about four?'],
      replies: ['-a-b-c----------------(d|)', '(d|)'],
    });
    const [first, second] = r.turns;
    const phases = r.events.flatMap(({ at, event }) => (event.type === 'interruption' ? [`${at}:${event.phase}`] : []));
    expect(phases).toEqual(['24:paused', '26:confirmed']);
    expect(first).toMatchObject({ interrupted: 'speech', heard: 'First sentence is here. Second' });
    expect(first?.audioMs.played).toBe(14);
    expect(r.replies[0]?.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame])).toEqual([[5, 26]]);
    expect(r.player.stops).toBe(1);
    expect(r.asked[1]).toEqual([
      { role: 'user', text: 'Tell me three things.' },
      { role: 'assistant', text: `First sentence is here. Second${INTERRUPTED_MARK}` },
      { role: 'user', text: 'What about four?' },
    ]);
    expect(second?.interrupted).toBe(false);
    expect(r.events.find(({ event }) => event.type === 'barge-in')?.at).toBe(26);
  });

  it('what the model says before a tool call is spoken while the tool runs, and the call is reported', () => {
    // "First sentence is here." (no break after it) streams at 6; the tool starts at 8 and lets it out.
    const r = run('sssqq-----------------------------------------------|', {
      transcripts: ['Set a timer for three seconds.'],
      replies: ['-a-t--------f-c-(d|)'],
    });
    const tools = r.events.flatMap(({ at, event }) => (event.type === 'tool' ? [`${at}:${event.phase}`] : []));
    expect(tools).toEqual(['8:started', '17:finished']);
    expect(r.synth.get('First sentence is here.')?.subscriptions[0]?.subscribedFrame).toBe(8);
    expect(r.turns[0]).toMatchObject({
      interrupted: false,
      heard: 'First sentence is here. Third one ends it.',
      tools: [{ id: 'c1', name: 'set_timer', result: 'Timer set.', isError: false }],
    });
  });

  it('talking over hark while a tool runs cancels the call, reported failed as cancelled', () => {
    const r = run('sssqq-----------------sssqq------------------------------|', {
      transcripts: ['Set a timer.', 'Never mind.'],
      replies: ['-a-t------------------------------f-(d|)', '(d|)'],
    });
    const tools = r.events.flatMap(({ event }) =>
      event.type === 'tool' ? [`${event.phase}:${event.error ?? ''}`] : [],
    );
    expect(tools).toEqual(['started:', 'failed:cancelled']);
    expect(r.turns[0]?.interrupted).toBe('speech');
    expect(r.replies[0]?.subscriptions[0]?.unsubscribedFrame).toBe(24);
  });

  it('a timer due while idle rings (earcon and announcement, repeated) until "stop"', () => {
    // Due at 3; the announcement (10 samples) plays 5-15, then 5 quiet, again 20-30, ... "Stop." at 39-40, heard at 43.
    const c = config((c) => {
      c.tools.timers.repeatPauseMs = 5;
      c.tools.timers.ringMaxMs = 1000;
    });
    const r = run(
      '---------------------------------------ssqq-----------------|',
      { transcripts: ['Stop.'], replies: [] },
      { config: c, announcements: '---p' },
    );
    const rings = r.events.flatMap(({ at, event }) =>
      event.type === 'ring' ? [`${at}:${event.phase}:${event.phase === 'stopped' ? event.by : event.text}`] : [],
    );
    expect(rings).toEqual(['3:started:Your pasta timer is done.', '43:stopped:stop']);
    expect(r.earcons.played.filter((e) => e === 'alarm').length).toBeGreaterThanOrEqual(2);
    expect(r.synth.get('Your pasta timer is done.')?.subscriptions).toHaveLength(1);
    expect(r.asked).toHaveLength(0);
    expect(r.player.stops).toBe(1);
  });

  it('talking over a ring stops it at once, and what was said is a query', () => {
    const c = config((c) => {
      c.tools.timers.repeatPauseMs = 5;
      c.tools.timers.ringMaxMs = 1000;
    });
    const r = run(
      '--------------------ssssssqq-------------------------------|',
      { transcripts: ['What was that timer?'], replies: ['(cd|)'] },
      { config: c, announcements: '---p' },
    );
    const rings = r.events.flatMap(({ at, event }) =>
      event.type === 'ring' ? [`${at}:${event.phase}${event.phase === 'stopped' ? `:${event.by}` : ''}`] : [],
    );
    expect(rings).toEqual(['3:started', '22:stopped:speech']);
    expect(r.asked.at(-1)?.at(-1)).toEqual({ role: 'user', text: 'What was that timer?' });
  });

  it('a timer due during a turn waits for it; two due together are said together; nobody stopping it ends it', () => {
    const c = config((c) => {
      c.tools.timers.repeatPauseMs = 5;
      c.tools.timers.ringMaxMs = 50;
    });
    const r = run(
      'sssqq-----------------------------------------------------------------------------------------------|',
      { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
      { config: c, announcements: '--------pe' },
    );
    const rings = r.events.flatMap(({ at, event }) =>
      event.type === 'ring' ? [`${at}:${event.phase}:${event.phase === 'stopped' ? event.by : event.text}`] : [],
    );
    expect(rings).toEqual(['40:started:Your pasta timer is done. Your egg timer is done.', '90:stopped:timeout']);
    expect(r.turns[0]?.interrupted).toBe(false);
  });

  it('a cough over hark pauses the reply, which plays on from where it stopped: nothing lost, no barge-in', () => {
    // One frame of speech at 15 (5 samples into the first sentence), then silence: a blip, resumed at 17.
    const r = run('sssqq----------sqqqqqqqqqqqqqqq-----------------------------------|', {
      transcripts: ['Tell me three things.'],
      replies: ['-a-b-(cd|)'],
    });
    const phases = r.events.flatMap(({ at, event }) => (event.type === 'interruption' ? [`${at}:${event.phase}`] : []));
    expect(phases).toEqual(['15:paused', '17:resumed']);
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]).toMatchObject({
      interrupted: false,
      heard: 'First sentence is here. Second sentence is here. Third one ends it.',
      audioMs: { written: 30, played: 30 },
    });
    expect(r.events.some(({ event }) => event.type === 'barge-in')).toBe(false);
    expect(r.player.stops).toBe(0);
    expect(r.player.pauses).toBe(1);
  });

  it("hark's own voice heard back while it speaks is never taken for a query", () => {
    // Two frames over hark's reply (15-16): the reply pauses, plays on, and the "utterance"
    // transcribes to hark's own words: ignored.
    const r = run('sssqq----------ssqq------------------------------------------|', {
      transcripts: ['Tell me three things.', 'first sentence is here'],
      replies: ['-a-b-(cd|)'],
    });
    expect(r.asked).toHaveLength(1);
    expect(r.turns.map((t) => t.interrupted)).toEqual([false]);
    const verdict = r.events.find(({ event }) => event.type === 'ignored');
    expect(verdict?.event).toMatchObject({ type: 'ignored', reason: 'own voice' });
  });

  it('speech over hark too short to interrupt is no query, whatever transcription made of it', () => {
    // Two frames over hark's reply (15-16), as hark's own voice let through by the canceller:
    // the reply pauses and plays on; transcription hears words hark never said (as the
    // stand-in does), and they neither cut the reply nor become a turn.
    const r = run('sssqq----------ssqq------------------------------------------|', {
      transcripts: ['Tell me three things.', 'What about the keepers?'],
      replies: ['-a-b-(cd|)'],
    });
    expect(r.asked).toHaveLength(1);
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]).toMatchObject({
      interrupted: false,
      heard: 'First sentence is here. Second sentence is here. Third one ends it.',
    });
    const verdict = r.events.find(({ event }) => event.type === 'ignored');
    expect(verdict?.event).toMatchObject({ type: 'ignored', reason: 'not an interruption' });
    expect(r.events.some(({ event }) => event.type === 'barge-in')).toBe(false);
  });

  it('a query cut before hark said anything is carried into the next one', () => {
    // The reply has not started when the user goes on talking (7-9): nothing was heard.
    const r = run('sssqq--sssqq----------------------------------------|', {
      transcripts: ['Add eggs', 'and milk to the list.'],
      replies: ['-------(cd|)', '(cd|)'],
    });
    expect(r.turns.map((t) => t.interrupted)).toEqual(['speech', false]);
    expect(r.asked[1]).toEqual([{ role: 'user', text: 'Add eggs and milk to the list.' }]);
  });

  it('a stop phrase ends the reply without a new query and carries nothing', () => {
    // "Stop." (22-23) is too short to barge in, but the stop phrase itself ends the reply at 26.
    const r = run('sssqq-----------------ssqq----------sssqq----------------------------|', {
      transcripts: ['Tell me three things.', 'Stop.', 'Hello.'],
      replies: ['-a-b-----------------(cd|)', '(cd|)'],
    });
    expect(r.turns[0]?.interrupted).toBe('stop');
    expect(r.turns[0]?.stoppedAt).toBe(26);
    expect(r.asked).toHaveLength(2);
    expect(r.asked[1]?.at(-1)).toEqual({ role: 'user', text: 'Hello.' });
  });

  it('with --fast, queries queue and nothing cuts a turn', () => {
    const r = run(
      'sssqq-sssqq----------------------------------------------------------------------------|',
      { transcripts: ['One?', 'Two?'], replies: ['-a-b-(cd|)', '-a-b-(cd|)'] },
      { queue: true },
    );
    expect(r.turns.map((t) => [t.query.text, t.interrupted, t.heard.length > 0])).toEqual([
      ['One?', false, true],
      ['Two?', false, true],
    ]);
    expect(r.asked[1]?.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(r.player.stops).toBe(0);
  });

  it('with --fast, speech while hark speaks is queued, never dropped', () => {
    // Three questions; the second and third come while the first reply plays (10-40).
    const r = run(
      'sssqq---------sssqq--sssqq---------------------------------------------------------------------------------|',
      { transcripts: ['One?', 'Two?', 'Three?'], replies: ['-a-b-(cd|)', '(cd|)', '(cd|)'] },
      { queue: true },
    );
    expect(r.turns.map((t) => t.query.text)).toEqual(['One?', 'Two?', 'Three?']);
    expect(r.turns.every((t) => !t.interrupted)).toBe(true);
  });

  it('a failed synthesis ends the turn with the error earcon and the reason; the next turn works', () => {
    const r = run('sssqq------------------------------sssqq------------------------------|', {
      transcripts: ['First?', 'Second?'],
      replies: ['-a-b-(cd|)', '-(cd|)'],
      synth: (sentence) => (sentence.startsWith('Second') ? '-#' : '--x|'),
    });
    expect(r.turns[0]?.failed?.message).toBe('tts failed');
    expect(r.turns[0]?.interrupted).toBe(false);
    expect(r.earcons.played).toEqual(['listening', 'thinking', 'error', 'thinking']);
    expect(r.turns[1]).toMatchObject({ failed: undefined, heard: 'Third one ends it.' });
  });

  describe('a player that fails', () => {
    it('one that cannot play at all fails the turn at once, with its words: no first sound, nothing heard, the error earcon', () => {
      const r = run(
        'sssqq------------------------------|',
        { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
        { playerFails: 'x' },
      );
      const [turn] = r.turns as [Turn];
      expect(turn.failed).toBeInstanceOf(PlaybackError);
      expect(turn.failed?.message).toBe('aplay exited with 1: audio open error: No such device');
      expect(turn).toMatchObject({ interrupted: false, heard: '', audioMs: { played: 0 } });
      expect(turnLatencies(turn)).not.toHaveProperty('firstSamplePlayed');
      // It ends where its first audio was lost (10), not when that audio would have played out.
      expect(statesOf(r)).toEqual(['5:thinking', '10:listening']);
      expect(r.earcons.played).toEqual(['listening', 'thinking', 'error']);
    });

    it('one that dies mid-reply fails the turn: what had played before is what was heard', () => {
      // The sentences play 10-20, 20-30, 30-40; the player dies at 25, half-way through the second.
      const r = run(
        'sssqq------------------------------|',
        { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
        { playerFails: '-------------------------d' },
      );
      const [turn] = r.turns as [Turn];
      expect(turn.failed).toBeInstanceOf(PlaybackError);
      expect(turn).toMatchObject({ heard: 'First sentence is here. Second', audioMs: { played: 15 } });
      // Its first sound, at 10, did sound: 8 frames after the speech ended.
      expect(turnLatencies(turn).firstSamplePlayed).toBe(8);
      expect(statesOf(r)).toEqual(['5:thinking', '10:speaking', '25:listening']);
    });

    it('audio lost before the reply is not the turn’s: a player back by then plays all of it', () => {
      // Down from 2 to 7 (an earcon lost, say), and a failure at 7 with nothing queued.
      const r = run(
        'sssqq------------------------------|',
        { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
        { playerFails: '--x----(od)' },
      );
      expect(r.turns[0]).toMatchObject({ failed: undefined, heard: r.turns[0]?.reply });
    });
  });

  it('shutdown mid-reply: the turn is cut and recorded, and the loop ends though the microphone would go on', () => {
    const r = run(
      'sssqq----------------------------------------------------',
      { transcripts: ['Tell me three things.'], replies: ['-a-b-c----------------(d|)'] },
      { shutdown: '---------------------x' },
    );
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]).toMatchObject({ interrupted: 'shutdown', stoppedAt: 21 });
    expect(r.replies[0]?.subscriptions.map((s) => s.unsubscribedFrame)).toEqual([21]);
    expect(r.completedAt).toBe(21);
  });

  it('the stop button cuts the reply like a stop phrase: no barge-in, nothing carried, and hark listens on', () => {
    const r = run(
      'sssqq----------------------------------sssqq-------------------------------------|',
      { transcripts: ['Tell me three things.', 'Hello.'], replies: ['-a-b-c----------------(d|)', '(cd|)'] },
      { stops: '--------------------x' },
    );
    expect(r.turns.map((t) => t.interrupted)).toEqual(['control', false]);
    expect(r.turns[0]?.stoppedAt).toBe(20);
    expect(r.replies[0]?.subscriptions.map((s) => s.unsubscribedFrame)).toEqual([20]);
    expect(r.events.some(({ event }) => event.type === 'barge-in')).toBe(false);
    expect(r.asked[1]?.at(-1)).toEqual({ role: 'user', text: 'Hello.' });
  });

  it('meters come only while someone looks at them, and do not keep the loop alive', () => {
    // 66 ms between meters: one frame here is 1 ms. Looked at from 0 to 150, not after.
    const input = `sss${'q'.repeat(300)}|`;
    const r = run(input, { transcripts: [''], replies: [] }, { metering: 't' + '-'.repeat(149) + 'f' });
    const meters = r.events.filter(({ event }) => event.type === 'meter');
    expect(meters.map(({ at }) => at)).toEqual([66, 132]);
    expect(meters[0]?.event).toMatchObject({ type: 'meter', vad: 0.9 });
    expect(meters[1]?.event).toMatchObject({ type: 'meter', vad: 0.1 });
    expect(r.completedAt).toBe(303);
    const unseen = run(input, { transcripts: [''], replies: [] });
    expect(unseen.events.some(({ event }) => event.type === 'meter')).toBe(false);
  });

  describe('answering sooner: a guess at the first pause', () => {
    // A frame's pause starts the guess; a complete question ends the turn after 2 frames of
    // silence, an unfinished one waits 5; without a guess the usual 3.
    const speculating = config((c) => {
      c.vad.endSilenceMs = 96;
      c.endpoint = { speculate: true, speculateAfterMs: 32, completeMs: 64, incompleteMs: 160 };
    });
    const firstWritten = (r: Run): number | undefined => r.turns[0]?.timings.firstWrite;

    it('a complete question: the reply is under way before the turn ends, and sounds only once it has', () => {
      const r = run(
        'sssqqqq------------------------------------------|',
        { transcripts: ['Tell me three things?'], replies: ['-a-b-(cd|)'] },
        { config: speculating },
      );
      expect(r.transcriptions).toBe(1);
      // Guessed at 3 (transcript at 4); the reply was asked for at 4; the pause ended the turn at 5.
      expect(r.replies[0]?.subscriptions[0]?.subscribedFrame).toBe(4);
      expect(statesOf(r)[0]).toBe('5:thinking');
      expect(firstWritten(r)).toBeGreaterThanOrEqual(5);
      expect(r.turns[0]).toMatchObject({
        query: { text: 'Tell me three things?' },
        heard: 'First sentence is here. Second sentence is here. Third one ends it.',
        extraRequests: { transcriptions: 0, replies: 0 },
      });
    });

    it('an unfinished clause at the pause: the wait grows, no reply is started on it, and the whole is answered', () => {
      // Pause at 3 (guessed at 4: "Add eggs and", unfinished, so the wait grows), speech again at 6.
      const r = run(
        'sssqqqsssqqqqqqq-----------------------------------------|',
        { transcripts: ['Add eggs and', 'Add eggs and milk.'], replies: ['-a-b-(cd|)'] },
        { config: speculating },
      );
      expect(r.transcriptions).toBe(2);
      expect(r.asked).toHaveLength(1);
      expect(r.turns).toHaveLength(1);
      expect(r.turns[0]).toMatchObject({
        query: { text: 'Add eggs and milk.' },
        heard: 'First sentence is here. Second sentence is here. Third one ends it.',
        extraRequests: { transcriptions: 1, replies: 0 },
      });
      expect(r.earcons.played.filter((e) => e === 'thinking')).toHaveLength(1);
    });

    it('the user goes on after a pause that sounded finished: the guess and its reply are dropped unheard, and counted', () => {
      // Pause at 3 (guessed at 4: "Add eggs", which could be the end; the reply asked for at
      // once), speech again at 5, before the usual three frames of pause had passed.
      const r = run(
        'sssqqsssqqqqqqq-----------------------------------------|',
        { transcripts: ['Add eggs', 'Add eggs and milk.'], replies: ['-a-b-(cd|)', '-(cd|)'] },
        { config: speculating },
      );
      expect(r.transcriptions).toBe(2);
      expect(r.asked).toHaveLength(2);
      expect(r.replies[0]?.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame])).toEqual([[4, 5]]);
      expect(r.turns).toHaveLength(1);
      expect(r.turns[0]).toMatchObject({
        query: { text: 'Add eggs and milk.' },
        heard: 'Third one ends it.',
        extraRequests: { transcriptions: 1, replies: 1 },
      });
      expect(r.earcons.played.filter((e) => e === 'thinking')).toHaveLength(1);
      // Nothing of the dropped reply reached the player.
      expect(r.player.writes.reduce((n, w) => n + w.length, 0)).toBe(20);
    });

    it('a turn whose stages are built after the guess was confirmed still sounds, all of it', () => {
      // The reply asked for at 4, the turn confirmed at 5, its stages built at 7.
      const r = run(
        'sssqqqq------------------------------------------|',
        { transcripts: ['Tell me three things?'], replies: ['-a-b-(cd|)'] },
        { config: speculating, stagesLateBy: 3 },
      );
      expect(r.replies[0]?.subscriptions[0]?.subscribedFrame).toBe(4);
      expect(statesOf(r)[0]).toBe('7:thinking');
      expect(r.turns[0]).toMatchObject({
        heard: 'First sentence is here. Second sentence is here. Third one ends it.',
        extraRequests: { transcriptions: 0, replies: 0 },
      });
    });

    it("the user going on before the guess's stages are built: its reply is dropped as they are, unheard", () => {
      const r = run(
        'sssqqsssqqqqqqq-----------------------------------------|',
        { transcripts: ['Add eggs', 'Add eggs and milk.'], replies: ['-a-b-(cd|)', '-(cd|)'] },
        { config: speculating, stagesLateBy: 3 },
      );
      // Asked for at 4, the user went on at 5, the stages built (and the cut heard) at 7.
      expect(r.replies[0]?.subscriptions.map((s) => [s.subscribedFrame, s.unsubscribedFrame])).toEqual([[4, 7]]);
      expect(r.turns).toHaveLength(1);
      expect(r.turns[0]).toMatchObject({ heard: 'Third one ends it.', extraRequests: { replies: 1 } });
      // 20 bytes: the one sentence of the reply that was heard, nothing of the dropped one.
      expect(r.player.writes.reduce((n, w) => n + w.length, 0)).toBe(20);
    });
  });

  it('a model that hears gets the recording the moment the user stops; the slower transcript only names the turn', () => {
    const hearing = config((c) => {
      c.reply.input = 'audio';
    });
    const r = run(
      'sssqq--------------------------------------------------------|',
      { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'], transcription: '----------------------(r|)' },
      { config: hearing },
    );
    // Asked at the end of the utterance (4), with the recording; the transcript came at 26.
    expect(r.replies[0]?.subscriptions[0]?.subscribedFrame).toBe(4);
    expect(r.asked[0]).toEqual([
      { role: 'user', text: '', audio: expect.stringMatching(/^data:audio\/wav;base64,UklGR/) },
    ]);
    expect(r.transcriptions).toBe(1);
    expect(statesOf(r)[0]).toBe('4:thinking');
    // The reply played out (4-39) while the transcript came (26): the turn is recorded with its words at the end.
    expect(firstTurnAt(r)).toBe(39);
    expect(r.turns).toHaveLength(1);
    expect(r.turns[0]?.query.text).toBe('Tell me three things.');
    expect(r.turns[0]?.heard).toBe('First sentence is here. Second sentence is here. Third one ends it.');
  });

  describe('with the wake word heard on the device', () => {
    // Frame n of the input ends at (n + 1) * 32 ms of stream time.
    const waking = config((c) => {
      c.wake.engine = 'openwakeword';
    });

    it('sends nothing anywhere before the wake word', () => {
      const r = run(
        'sssqq------sssqq------|',
        { transcripts: ['Unrelated.'], replies: [] },
        { config: waking, wake: new ScriptedWakeWord([]) },
      );
      expect(r.transcriptions).toBe(0);
      expect(r.asked).toHaveLength(0);
      expect(r.events.filter(({ event }) => event.type === 'no-wake-word')).toHaveLength(2);
    });

    it('a command in the same breath is sent without the wake word: only the audio after it', () => {
      // Speech 0-256 ms; the wake word ended at 96 ms (heard at 128): the command is the 160 ms after it.
      const wake = new ScriptedWakeWord([{ atMs: 128, endMs: 96 }]);
      const r = run(
        'ssssssssqq---------------------------------------|',
        { transcripts: ['What time is it?'], replies: ['-(cd|)'] },
        { config: waking, wake },
      );
      expect(r.transcribedSamples).toEqual([2560]);
      expect(r.asked[0]).toEqual([{ role: 'user', text: 'What time is it?' }]);
      expect(r.earcons.played).toContain('listening');
      expect(r.events.find(({ event }) => event.type === 'wake')?.event).toMatchObject({
        type: 'wake',
        phrase: 'hey_jarvis',
      });
    });

    it('the wake word alone opens the window: the command that follows needs none', () => {
      // "hey jarvis" (0-96 ms, heard at 100), a pause, then the command (frames 10-12).
      const wake = new ScriptedWakeWord([{ atMs: 100, endMs: 96 }]);
      const r = run(
        'sssqq-----sssqq---------------------------------|',
        { transcripts: ['Set a timer.'], replies: ['-(cd|)'] },
        { config: waking, wake },
      );
      expect(r.transcriptions).toBe(1);
      expect(r.asked[0]).toEqual([{ role: 'user', text: 'Set a timer.' }]);
    });

    it('when its models did not load, every utterance is transcribed and the wake phrase in it starts a turn', () => {
      const phrased = config((c) => {
        c.wake.engine = 'openwakeword';
        c.listen.wakePhrases = ['hey jarvis'];
      });
      const unloaded = Object.assign(new ScriptedWakeWord([]), { failedToLoad: true });
      const r = run(
        'sssqq----------sssqq----------------------------|',
        { transcripts: ['Unrelated talk.', 'Hey Jarvis, set a timer.'], replies: ['-(cd|)'] },
        { config: phrased, wake: unloaded },
      );
      expect(r.transcriptions).toBe(2);
      expect(r.asked).toEqual([[{ role: 'user', text: 'set a timer.' }]]);
      expect(r.events.filter(({ event }) => event.type === 'no-wake-word')).toHaveLength(0);
    });

    it('a wake word heard on the device opens the gate alone: the transcript need not repeat a wake phrase', () => {
      const phrased = config((c) => {
        c.wake.engine = 'openwakeword';
        c.listen.wakePhrases = ['hey jarvis'];
      });
      const wake = new ScriptedWakeWord([{ atMs: 128, endMs: 96 }]);
      const r = run(
        'ssssssssqq---------------------------------------|',
        { transcripts: ['What time is it?'], replies: ['-(cd|)'] },
        { config: phrased, wake },
      );
      expect(r.asked[0]).toEqual([{ role: 'user', text: 'What time is it?' }]);
    });

    it('when talking over hark needs the wake word, other speech neither pauses nor stops it', () => {
      const strict = config((c) => {
        c.wake.engine = 'openwakeword';
        c.wake.bargeIn = 'wake-word';
      });
      // The command (wake word then speech, 0-256 ms); speech over the reply at 22-26 without the wake word.
      const wake = new ScriptedWakeWord([{ atMs: 128, endMs: 96 }]);
      const r = run(
        'ssssssssqq------------sssssqq-------------------------------|',
        { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
        { config: strict, wake },
      );
      expect(r.turns).toHaveLength(1);
      expect(r.turns[0]?.interrupted).toBe(false);
      expect(r.player.pauses).toBe(0);
    });

    it('when talking over hark needs the wake word but the models did not load, speech talks over it, as with the phrase', () => {
      const strict = config((c) => {
        c.wake.engine = 'openwakeword';
        c.wake.bargeIn = 'wake-word';
        c.listen.wakePhrases = ['hey jarvis'];
      });
      const unloaded = Object.assign(new ScriptedWakeWord([]), { failedToLoad: true });
      const r = run(
        'ssssssssqq------------sssssqq-------------------------------|',
        { transcripts: ['Hey Jarvis, tell me three things.', 'Wait.'], replies: ['-a-b-(cd|)', '-(cd|)'] },
        { config: strict, wake: unloaded },
      );
      expect(r.player.pauses).toBeGreaterThan(0);
      expect(r.turns[0]?.interrupted).toBe('speech');
    });
  });
});
