import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EARCON_DIR } from '../../src/audio/earcons.js';
import { bufferOf, resample, samplesOf } from '../../src/audio/pcm.js';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { INTERRUPTED_MARK } from '../../src/dialog/conversation.js';
import { promptTail } from '../../src/listen/transcript.js';
import { FIXTURES, MONOLOGUE, UTTERANCE } from '../helpers/speech.js';
import { chatMessages, composeWav, runLoop, workDir } from '../helpers/loop.js';

const SYSTEM = 'system: You are hark';

function wavSeconds(path: string): number {
  return readWavInfo(readFileSync(path)).durationMs / 1000;
}

describe('the voice loop, file in, stand-in service, file out', () => {
  it('one turn: transcribes the utterance, streams a reply and speaks it', async () => {
    const run = await runLoop({
      input: UTTERANCE,
      fast: true,
      prepare: (sim) =>
        sim.script.transcript('What is the tallest mountain?').reply('It is **Mount Everest** 🏔️. It is very high.'),
    });
    expect(run.sim.requestsTo('transcription')).toHaveLength(1);
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(1);
    const messages = chatMessages(chats[0]?.body);
    expect(messages[0]).toMatch(new RegExp(`^${SYSTEM}`));
    expect(messages.slice(1)).toEqual(['user: What is the tallest mountain?']);
    expect(chats[0]?.body).toMatchObject({ model: 'Ling-3.0-flash', stream: true, thinking: { type: 'disabled' } });
    const speech = run.sim.requestsTo('speech').map((r) => (r.body as { input: string }).input);
    expect(speech).toEqual(['It is Mount Everest.', 'It is very high.']);
    expect(run.outcomes).toHaveLength(1);
    expect(run.outcomes[0]).toMatchObject({
      interrupted: false,
      failed: undefined,
      heard: 'It is Mount Everest. It is very high.',
    });
    expect(wavSeconds(run.output)).toBeGreaterThan(1.5);
    const turnLine = run.logger.lines.find((l) => l.event === 'turn');
    expect(turnLine).toMatchObject({
      transcript: 'What is the tallest mountain?',
      reply: 'It is Mount Everest. It is very high.',
      interrupted: false,
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
      latencyMs: {
        transcript: expect.any(Number),
        firstToken: expect.any(Number),
        firstSentence: expect.any(Number),
        firstAudioByte: expect.any(Number),
        firstSamplePlayed: expect.any(Number),
      },
    });
  });

  it('a multi-turn conversation: the history reaches the next chat request', async () => {
    const input = await composeWav([UTTERANCE, 1500, UTTERANCE]);
    const run = await runLoop({
      input,
      fast: true,
      prepare: (sim) =>
        sim.script
          .transcript('My name is Ada.', 'What is my name?')
          .reply('Nice to meet you, Ada.', 'Your name is Ada.'),
    });
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(2);
    expect(chatMessages(chats[1]?.body).slice(1)).toEqual([
      'user: My name is Ada.',
      'assistant: Nice to meet you, Ada.',
      'user: What is my name?',
    ]);
  });

  it('a 71 s monologue is sent as at least 3 transcriptions of at most 30 s, joined into one turn', async () => {
    const parts = ['the first part of a long story about mountains and rivers', 'the middle part', 'and its end.'];
    const run = await runLoop({
      input: MONOLOGUE,
      fast: true,
      // Only the parts: no guesses at its pauses.
      config: (c) => (c.endpoint.speculate = false),
      prepare: (sim) => sim.script.transcript(...parts),
    });
    const transcriptions = run.sim.requestsTo('transcription');
    expect(transcriptions.length).toBeGreaterThanOrEqual(3);
    const bodies = transcriptions.map((t) => t.body as { prompt?: string; file: { durationMs: number } });
    for (const body of bodies) expect(body.file.durationMs).toBeLessThanOrEqual(30_000);
    expect(bodies[0]?.prompt).toBeUndefined();
    expect(bodies[1]?.prompt).toBe(promptTail(parts[0] as string));
    expect(bodies[2]?.prompt).toBe(promptTail(`${parts[0]} ${parts[1]}`));
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(1);
    expect(chatMessages(chats[0]?.body).at(-1)).toBe(`user: ${parts.join(' ')}`);
  });

  it('noise and empty transcripts never reach the chat model', async () => {
    const run = await runLoop({ input: UTTERANCE, fast: true, prepare: (sim) => sim.script.transcript('  ') });
    expect(run.sim.requestsTo('transcription')).toHaveLength(1);
    expect(run.sim.requestsTo('chat')).toHaveLength(0);
    expect(run.logger.lines.find((l) => l.event === 'turn.empty')).toBeDefined();
  });

  it('the service failing mid-reply: the error earcon plays, the log says why, and the next turn works', async () => {
    const input = await composeWav([UTTERANCE, 1500, UTTERANCE]);
    const run = await runLoop({
      input,
      fast: true,
      prepare: (sim) =>
        sim.script
          .transcript('First question.', 'Second question.')
          .reply('This reply breaks off in the middle of its second sentence, sadly.', 'This one works.')
          .fault({ endpoint: 'chat', dropAfterEvents: 12 }),
    });
    expect(run.outcomes.map((o) => (o.failed ? 'failed' : 'ok'))).toEqual(['failed', 'ok']);
    const failure = run.logger.lines.find((l) => l.event === 'turn' && l.level === 'error');
    expect(failure).toMatchObject({
      transcript: 'First question.',
      error: { name: 'ServiceError', type: 'stream_interrupted' },
    });
    expect(run.outcomes[1]?.heard).toBe('This one works.');
    // The error earcon is in what was played, sample for sample.
    const earconWav = readFileSync(join(EARCON_DIR, 'error.wav'));
    const info = readWavInfo(earconWav);
    const earcon = bufferOf(
      resample(samplesOf(earconWav.subarray(info.dataOffset)), info.sampleRateHz, run.config.speech.sampleRateHz),
    );
    expect(readFileSync(run.output).indexOf(earcon)).toBeGreaterThan(0);
  });

  it('barge-in: talking over hark closes the chat and speech connections, stops the audio, and history keeps only what was heard', async () => {
    const long =
      'The tallest mountain on Earth is Mount Everest. It rises eight thousand eight hundred and forty nine metres above the sea. ' +
      'Climbers from all over the world try to reach its summit every spring. Many of them train for months before they go. ' +
      'The air near the top holds a third of the oxygen found at sea level.';
    // Real time: 1.5 s of speech, 2.2 s of hark talking, 1.2 s of speech over it.
    const clip = (ms: number) => ({ path: UTTERANCE, fromMs: 300, toMs: 300 + ms });
    const input = await composeWav([clip(1500), 2200, clip(1200), 1200]);
    const run = await runLoop({
      input,
      fast: false,
      sim: { timing: { ttsRealtimeFactor: 1 } },
      prepare: (sim) =>
        sim.script
          .transcript('Tell me about the tallest mountain.', 'Stop, what about the ocean?')
          .reply({ text: long, tokensPerSecond: 8 }, 'The ocean is deep.'),
    });
    const [first, second] = run.outcomes;
    expect(first?.interrupted).toBe('speech');
    expect(first?.heard.length).toBeGreaterThan(0);
    expect(long.startsWith(first?.heard ?? 'x')).toBe(true);
    expect(first?.heard.length).toBeLessThan(long.length / 2);
    // The stand-in saw the reply stream and a synthesis stream closed by hark, not finished.
    const chats = run.sim.requestsTo('chat');
    expect(await chats[0]?.ended).toBe('client-closed');
    const speech = run.sim.requestsTo('speech');
    const closed = await Promise.all(speech.map((s) => s.ended));
    expect(closed).toContain('client-closed');
    // The audio stopped: far less was played than the reply would have taken.
    expect(first?.audioMs.played).toBeLessThan(first?.audioMs.written ?? 0);
    expect(first?.audioMs.played).toBeLessThan(5000);
    // The next request's history holds only the heard part, marked as interrupted.
    expect(second?.interrupted).toBe(false);
    expect(chatMessages(chats[1]?.body).slice(1)).toEqual([
      'user: Tell me about the tallest mountain.',
      `assistant: ${first?.heard}${INTERRUPTED_MARK}`,
      'user: Stop, what about the ocean?',
    ]);
    const bargeIn = run.logger.lines.find((l) => l.event === 'barge-in');
    expect(bargeIn?.onsetToStopMs).toBeGreaterThanOrEqual(run.config.bargeIn.minSpeechMs);
    expect(bargeIn?.onsetToStopMs).toBeLessThan(run.config.bargeIn.minSpeechMs + 150);
  });
});

describe('wake and stop phrases', () => {
  it('with a wake phrase configured, only speech that starts with it becomes a turn, without the phrase', async () => {
    const input = await composeWav([UTTERANCE, 1500, UTTERANCE]);
    const run = await runLoop({
      input,
      fast: true,
      config: (c) => {
        c.wake.engine = 'phrase';
        c.listen.wakePhrases = ['hey hark'];
        c.listen.followUpMs = 0;
      },
      prepare: (sim) => sim.script.transcript('What time is it?', 'Hey, Hark! What time is it?'),
    });
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(1);
    expect(chatMessages(chats[0]?.body).at(-1)).toBe('user: What time is it?');
    expect(run.logger.lines.find((l) => l.event === 'turn.ignored')).toMatchObject({ reason: 'no wake phrase' });
  });
});

describe('wake-word models that will not load', () => {
  it('hark listens anyway: the wake phrase in the transcript starts a turn, and it says what it listens with', async () => {
    const broken = join(workDir, 'hey_jarvis.onnx');
    writeFileSync(broken, 'not a model');
    const input = await composeWav([UTTERANCE, 1500, UTTERANCE]);
    const run = await runLoop({
      input,
      fast: true,
      config: (c) => {
        c.wake.engine = 'openwakeword';
        c.wake.models = [broken];
        c.listen.followUpMs = 0;
      },
      prepare: (sim) => sim.script.transcript('What time is it?', 'Hey Jarvis, what time is it?'),
    });
    expect(run.sim.requestsTo('transcription')).toHaveLength(2);
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(1);
    expect(chatMessages(chats[0]?.body).at(-1)).toBe('user: what time is it?');
    expect(run.logger.lines.find((l) => l.event === 'wake.fallback')).toMatchObject({ level: 'warn' });
    expect(run.logger.lines.find((l) => l.event === 'hark.listening')).toMatchObject({ wake: 'openwakeword' });
    await run.loop.modelsLoaded;
    expect(run.loop.about).toMatchObject({ wake: 'phrase', vad: 'silero' });
  });
});

describe('a chat model that hears (edition B, Ming-3.0-audio-flash)', () => {
  it('gets the recording as an audio_url block and answers before the slower transcript is back', async () => {
    const run = await runLoop({
      input: UTTERANCE,
      fast: true,
      sim: { edition: 'B', timing: { transcriptionDelayMs: 1500 } },
      config: (c) => {
        c.service.edition = 'B';
        c.chat.model = 'Ming-3.0-audio-flash';
        c.reply.input = 'audio';
      },
      prepare: (sim) => sim.script.transcript('What is the tallest mountain?').reply('Mount Everest.'),
    });
    const [chat] = run.sim.requestsTo('chat');
    const [transcription] = run.sim.requestsTo('transcription');
    const content = (chat?.body as { messages: { role: string; content: unknown }[] }).messages.at(-1)?.content;
    expect(content).toEqual([
      { type: 'audio_url', audio_url: { url: expect.stringMatching(/^data:audio\/wav;base64,/) } },
    ]);
    expect(chat?.status).toBe(200);
    // The reply streamed back while the transcript was still being made.
    expect(chat?.firstBodyByteAtMs).toBeLessThan(transcription?.firstBodyByteAtMs ?? 0);
    expect(await chat?.ended).toBe('completed');
    // The transcript names the turn, and the history.
    expect(run.outcomes).toHaveLength(1);
    expect(run.outcomes[0]).toMatchObject({
      query: { text: 'What is the tallest mountain?' },
      heard: 'Mount Everest.',
    });
  });
});

describe('the wake word, heard on the device', () => {
  it('turns come only from commands: unrelated speech before, between and after is never sent', async () => {
    const clips = JSON.parse(readFileSync(join(FIXTURES, 'wake-clips.json'), 'utf8')) as { file: string }[];
    const jarvis = join(FIXTURES, clips[0]?.file ?? '');
    const unrelated = (name: string) => join(FIXTURES, 'speech', `${name}.wav`);
    const input = await composeWav([unrelated('speech-b'), 1200, jarvis, 1500, unrelated('speech-c'), 1000]);
    const run = await runLoop({
      input,
      fast: true,
      config: (c) => {
        c.wake.engine = 'openwakeword';
        c.wake.models = ['hey_jarvis'];
        // Read faster than real time, the follow-up window would cover everything after the command.
        c.listen.followUpMs = 0;
      },
      prepare: (sim) => sim.script.transcript('What time is it?').reply('It is noon.'),
    });
    // One request, for the command alone: well under the whole clip's length.
    const transcriptions = run.sim.requestsTo('transcription');
    expect(transcriptions.length).toBeGreaterThanOrEqual(1);
    for (const t of transcriptions)
      expect((t.body as { file: { durationMs: number } }).file.durationMs).toBeLessThan(2500);
    expect(run.outcomes.map((o) => o.query.text)).toEqual(['What time is it?']);
    expect(run.logger.lines.find((l) => l.event === 'wake')).toMatchObject({ phrase: 'hey_jarvis' });
    expect(run.logger.lines.filter((l) => l.event === 'listen.no_wake_word').length).toBeGreaterThanOrEqual(2);
  });
});
