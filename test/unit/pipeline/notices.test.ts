import { describe, expect, it } from 'vitest';
import { ASKED_FOR_THE_HOME } from '../../../src/dialog/conversation.js';
import { config, firstTurnAt, run, type Run } from '../../helpers/voice-loop-run.js';

describe('what the home asks hark to say', () => {
  /** Words count only after "hey hark", or within 30 ms of a question or a turn. */
  const wakePhraseNeeded = config((c) => {
    c.listen.wakePhrases = ['hey hark'];
    c.listen.followUpMs = 30;
  });
  const noticesOf = (r: Run): string[] =>
    r.events.flatMap(({ at, event }) =>
      event.type === 'notice'
        ? [`${at}:${event.phase}:${event.notice.id}${event.phase === 'stopped' ? `:${event.by}` : ''}`]
        : [],
    );

  it('an announcement while idle: the announce earcon, then its words, said once; its first sample timed', () => {
    // Arrives at 3; its speech (10 samples) comes at 5 and plays 5-15.
    const r = run('------------------------------|', { transcripts: [], replies: [] }, { notices: '---a' });
    expect(noticesOf(r)).toEqual(['3:started:n1', '15:spoken:n1']);
    expect(r.earcons.played).toEqual(['listening', 'announce']);
    expect(r.synth.get('The washing is done.')?.subscriptions).toHaveLength(1);
    const spoken = r.events.find(({ event }) => event.type === 'notice' && event.phase === 'spoken')?.event;
    expect(spoken).toMatchObject({ playedMs: 10, timings: { speechRequest: 3, firstAudioByte: 5, firstPlayed: 5 } });
    expect(r.asked).toHaveLength(0);
  });

  it('announcements during a turn wait for its end, never cutting it, then play one after another in order', () => {
    const r = run(
      'sssqq-----------------------------------------------------------------|',
      { transcripts: ['Tell me three things.'], replies: ['-a-b-(cd|)'] },
      { notices: '--------ab' },
    );
    expect(r.turns[0]).toMatchObject({
      interrupted: false,
      heard: expect.stringContaining('Third one ends it.') as unknown,
    });
    expect(noticesOf(r)).toEqual(['40:started:n1', '52:spoken:n1', '52:started:n2', '64:spoken:n2']);
    expect(r.player.stops).toBe(0);
  });

  it('a question: its answer needs no wake phrase, and the model is told what it answers', () => {
    // Asked at 2 (spoken 4-14); "Yes." at 20-22 without the wake phrase; a second question said
    // only after the answer's turn.
    const r = run(
      '--------------------sssqq--------------------------------|',
      { transcripts: ['Yes, lock it.'], replies: ['(cd|)'] },
      { config: wakePhraseNeeded, notices: '--k-a' },
    );
    expect(r.asked).toEqual([
      [
        { role: 'user', text: ASKED_FOR_THE_HOME },
        { role: 'assistant', text: 'Shall I lock the door?' },
        { role: 'user', text: 'Yes, lock it.' },
      ],
    ]);
    const answered = firstTurnAt(r) as number;
    expect(noticesOf(r)).toEqual([
      '2:started:n3',
      '14:spoken:n3',
      `${answered}:started:n1`,
      `${answered + 12}:spoken:n1`,
    ]);
  });

  it('without a question, the same words without the wake phrase are ignored', () => {
    const r = run(
      '--------------------sssqq--------------------------------|',
      { transcripts: ['Yes, lock it.'], replies: ['(cd|)'] },
      { config: wakePhraseNeeded },
    );
    expect(r.asked).toHaveLength(0);
    expect(r.events.some(({ event }) => event.type === 'ignored')).toBe(true);
  });

  it('an unanswered question lets the next notice play once the window has passed', () => {
    const c = config((c) => {
      c.listen.followUpMs = 20;
    });
    const r = run(
      '--------------------------------------------------|',
      { transcripts: [], replies: [] },
      {
        config: c,
        notices: '--ka',
      },
    );
    expect(noticesOf(r)).toEqual(['2:started:n3', '14:spoken:n3', '34:started:n1', '46:spoken:n1']);
  });

  it('the stop button stops an announcement at once; the next one still plays', () => {
    const r = run(
      '----------------------------------------|',
      { transcripts: [], replies: [] },
      { notices: '--ab', stops: '--------x' },
    );
    expect(noticesOf(r)).toEqual(['2:started:n1', '8:stopped:n1:control', '8:started:n2', '20:spoken:n2']);
    expect(r.player.stops).toBe(1);
  });

  it('a notice whose speech fails is reported failed, and the next one plays', () => {
    const r = run(
      '----------------------------------------|',
      { transcripts: [], replies: [], synth: (text) => (text.startsWith('The washing') ? '--#' : '--x|') },
      { notices: '--ab' },
    );
    expect(noticesOf(r)).toEqual(['2:started:n1', '4:failed:n1', '4:started:n2', '16:spoken:n2']);
  });

  it('a listen button: the listening earcon, and what is said next needs no wake phrase', () => {
    const c = config((c) => {
      c.listen.wakePhrases = ['hey hark'];
      c.listen.followUpMs = 15;
    });
    const script = { transcripts: ['Turn on the light.'], replies: ['(cd|)'] };
    const pressed = run('--------------------sssqq--------------------------------|', script, {
      config: c,
      listens: '---------------x',
    });
    expect(pressed.asked).toEqual([[{ role: 'user', text: 'Turn on the light.' }]]);
    expect(pressed.earcons.played.slice(0, 2)).toEqual(['listening', 'listening']);
    // Pressed too long before: the window has closed by the time the words are transcribed.
    const late = run('--------------------sssqq--------------------------------|', script, {
      config: c,
      listens: '-x',
    });
    expect(late.asked).toHaveLength(0);
  });

  it('shutdown while an announcement plays: it is stopped as unsaid, and the loop ends', () => {
    const r = run(
      '-----------------------------------|',
      { transcripts: [], replies: [] },
      {
        notices: '--a',
        shutdown: '------x',
      },
    );
    expect(noticesOf(r)).toEqual(['2:started:n1', '6:stopped:n1:shutdown']);
    expect(r.completedAt).toBe(6);
  });
});
