/** Home Assistant controls hark and speaks through it, over a real broker (see helpers/home-run.ts). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPcm16Mono } from '../../src/audio/wav-header.js';
import { ASKED_FOR_THE_HOME } from '../../src/dialog/conversation.js';
import { clip, eventOf, homeHarness, json, on, stopped, withBroker } from '../helpers/home-run.js';
import { composeWav } from '../helpers/loop.js';
import { publish } from '../helpers/mosquitto.js';

const home = homeHarness();

describe('Home Assistant controls hark and speaks through it', () => {
  it("an announcement is said: the announce earcon, then the stand-in's speech, played; the page and doctor say MQTT is connected", async () => {
    const sim = home.sim();
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/announce';
      const input = await composeWav([12_000]);
      const run = home.runHark(broker, base, input, { HARK_WEB_ENABLED: 'true', HARK_WEB_LISTEN: '127.0.0.1:0' }, [
        '--web',
      ]);
      const url = ((await run.hark.line('web.listening')).urls as string[])[0] as string;
      await watch.next(on(`${base}/availability`, 'online'));
      const text = 'The washing machine is done. It has been a long cycle.';
      publish(broker, `${base}/announce`, text);
      const said = json(await watch.next(eventOf(base, 'announcement')));
      expect(said).toMatchObject({ event_type: 'announcement', kind: 'announce', text, spoken: true });
      expect(watch.seen.filter((m) => m.topic === `${base}/state`).map((m) => m.payload)).toEqual([
        'idle',
        'speaking',
        'idle',
      ]);
      const spoken = await run.hark.line('notice.spoken');
      expect(sim.requestsTo('speech').map((r) => (r.body as { input: string }).input)).toContain(text);
      const state = (await (await fetch(`${url}api/state`)).json()) as { about: Record<string, unknown> };
      expect(state.about.mqtt).toBe(`connected to ${broker.url}`);
      // The doctor is a POST, as the page sends it.
      const asked = await fetch(`${url}api/doctor`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      const doctor = (await asked.json()) as { checks: { check: string }[] };
      expect(doctor.checks.find((c) => c.check === 'MQTT')).toEqual({
        check: 'MQTT',
        status: 'ok',
        detail: `connected to ${broker.url}`,
      });
      await stopped(run, 'SIGINT');
      // The stand-in's speech reached the player: as much sound as was said, in the WAV it wrote.
      const { pcm, sampleRateHz } = readPcm16Mono(readFileSync(run.output));
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
      const loud = samples.filter((s) => Math.abs(s) > 300).length;
      expect(spoken.playedMs).toBeGreaterThan(1000);
      expect((loud / sampleRateHz) * 1000).toBeGreaterThan((spoken.playedMs as number) * 0.3);
    });
  });

  it('a question: hark asks it, the answer needs no wake word, is a turn, and is published for an automation', async () => {
    const sim = home.sim();
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/ask';
      sim.script.transcript('Yes, lock it.').reply('I will lock the back door.');
      // The answer comes 12 s in: without the question, it would need "hey jarvis" before it.
      const input = await composeWav([12_000, clip, 4000]);
      const run = home.runHark(broker, base, input, { HARK_WAKE_ENGINE: 'phrase', HARK_LISTEN_FOLLOW_UP_MS: '20000' });
      await watch.next(on(`${base}/availability`, 'online'));
      const question = 'The back door is open. Shall I lock it?';
      publish(broker, `${base}/ask`, question);
      const answer = json(await watch.next(eventOf(base, 'answer'), { timeoutMs: 30_000 }));
      expect(answer).toMatchObject({ question, answer: 'Yes, lock it.', answered: true });
      const turn = json(await watch.next(eventOf(base, 'turn'), { since: 0 }));
      expect(turn).toMatchObject({
        transcript: 'Yes, lock it.',
        reply: 'I will lock the back door.',
        interrupted: false,
      });
      expect(watch.latest(`${base}/heard`)).toBe('Yes, lock it.');
      expect(watch.latest(`${base}/reply`)).toBe('I will lock the back door.');
      const chat = sim.requestsTo('chat').at(-1)?.body as {
        messages: { role: string; content: string }[];
      };
      expect(chat.messages.slice(-3)).toEqual([
        { role: 'user', content: ASKED_FOR_THE_HOME },
        { role: 'assistant', content: question },
        { role: 'user', content: 'Yes, lock it.' },
      ]);
      await run.hark.exited;
    });
  });

  it('the listen button: hark listens at once, and what is said next needs no wake word; no secret reaches the broker', async () => {
    const sim = home.sim();
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/listen';
      // Heard words that quote the API key (read out from a screen): published scrubbed, as logged.
      sim.script.transcript(`Turn on the kitchen light, key ${sim.apiKey}.`).reply('Done.');
      const input = await composeWav([10_000, clip, 3000]);
      const run = home.runHark(broker, base, input, { HARK_WAKE_ENGINE: 'phrase', HARK_LISTEN_FOLLOW_UP_MS: '20000' });
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/listen`, 'PRESS');
      await watch.next(on(`${base}/state`, 'listening'));
      const turn = json(await watch.next(eventOf(base, 'turn'), { timeoutMs: 30_000 }));
      expect(turn).toMatchObject({ transcript: 'Turn on the kitchen light, key ***.', reply: 'Done.' });
      expect(watch.latest(`${base}/heard`)).toBe('Turn on the kitchen light, key ***.');
      expect(await run.hark.line('wake')).toMatchObject({ phrase: '(listen button)' });
      await run.hark.exited;
      expect(JSON.stringify(watch.seen)).not.toContain(sim.apiKey);
    });
  });

  it('mute: what is said is not heard, and Home Assistant sees it muted; stop: an announcement is cut at once', async () => {
    const sim = home.sim();
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/controls';
      const transcriptionsBefore = sim.requestsTo('transcription').length;
      const input = await composeWav([10_000, clip, 3000]);
      const run = home.runHark(broker, base, input);
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/mute/set`, 'ON');
      await watch.next(on(`${base}/mute`, 'ON'));
      await watch.next(on(`${base}/state`, 'muted'), { since: 0 });
      publish(broker, `${base}/announce`, 'A long announcement. '.repeat(12));
      await watch.next(on(`${base}/state`, 'speaking'));
      publish(broker, `${base}/stop`, 'PRESS');
      const cut = json(await watch.next(eventOf(base, 'announcement')));
      expect(cut).toMatchObject({ spoken: false, why: 'stopped (control)' });
      await run.hark.exited;
      expect(run.hark.lines.find((l) => l.event === 'notice.stopped')).toMatchObject({ by: 'control' });
      // The utterance at 10 s was silence to hark: nothing was transcribed, no turn.
      expect(sim.requestsTo('transcription')).toHaveLength(transcriptionsBefore);
      expect(run.hark.count('turn')).toBe(0);
    });
  });
});
