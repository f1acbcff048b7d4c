/** hark killed, restarted, or its broker gone for a while: nothing lost (a real broker: see helpers/home-run.ts). */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clip, eventOf, homeHarness, json, on, stopped, withBroker } from '../helpers/home-run.js';
import { composeWav, workDir } from '../helpers/loop.js';
import { publish, startMosquitto, TopicWatcher, type SeenMessage } from '../helpers/mosquitto.js';

const home = homeHarness();

describe('hark or the broker going away loses nothing', () => {
  it('hark killed (SIGKILL): the broker says it is offline, by the last will', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/will';
      const run = home.runHark(broker, base, await composeWav([30_000]));
      await watch.next(on(`${base}/availability`, 'online'));
      const since = watch.seen.length;
      expect(await stopped(run, 'SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
      await watch.next(on(`${base}/availability`, 'offline'), { since });
      const newcomer = new TopicWatcher(broker, `${base}/availability`);
      expect(await newcomer.next(() => true, { since: 0 })).toMatchObject({ payload: 'offline', retain: true });
      newcomer.close();
    });
  });

  it('a broker that goes away and comes back costs no turn and no announcement', async () => {
    const sim = home.sim();
    const broker = await startMosquitto();
    let watch = new TopicWatcher(broker);
    try {
      const base = 'test/outage';
      sim.script.transcript('What time is it?').reply('It is noon.');
      const input = await composeWav([6000, clip, 18_000]);
      const run = home.runHark(broker, base, input);
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/announce`, 'The first announcement, said while the broker goes away.');
      await run.hark.line('notice.started');
      watch.close();
      await broker.stop();
      const away = await run.hark.line('mqtt.disconnected');
      // The turn, and the announcement, go on without the broker.
      const turn = await run.hark.line('turn');
      expect(run.hark.lines.indexOf(turn)).toBeGreaterThan(run.hark.lines.indexOf(away));
      expect(turn).toMatchObject({ transcript: 'What time is it?', reply: 'It is noon.', interrupted: false });
      await run.hark.line('notice.spoken', (l) => l.id === 'n1');
      await broker.start();
      watch = new TopicWatcher(broker);
      // Retained while it was away: it is back.
      await watch.next(on(`${base}/availability`, 'online'), { since: 0, timeoutMs: 30_000 });
      await run.hark.line('mqtt.connected', () => run.hark.count('mqtt.connected') === 2);
      publish(broker, `${base}/announce`, 'The second announcement.');
      const second = (m: SeenMessage) =>
        eventOf(base, 'announcement')(m) && json(m).text === 'The second announcement.';
      expect(json(await watch.next(second, { since: 0 }))).toMatchObject({ id: 'n2', spoken: true });
      await run.hark.exited;
      expect(run.hark.count('turn')).toBe(1);
      expect(run.hark.lines.filter((l) => l.event === 'notice.spoken').map((l) => l.id)).toEqual(['n1', 'n2']);
    } finally {
      watch.close();
      await broker.stop();
    }
  });

  it('announcements not yet said when hark stops are said, in order, once it runs again', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/restart';
      const state = { XDG_STATE_HOME: mkdtempSync(join(workDir, 'home-state-')) };
      const input = await composeWav([40_000]);
      const first = home.runHark(broker, base, input, state);
      await watch.next(on(`${base}/availability`, 'online'));
      const long = 'A long announcement, cut by hark stopping. '.repeat(4).trim();
      publish(broker, `${base}/announce`, long);
      publish(broker, `${base}/announce`, 'The post is here.');
      await first.hark.line('notice.started', (l) => l.id === 'n1');
      expect(await stopped(first)).toMatchObject({ code: 0 });
      // Neither was said: Home Assistant was told nothing of them either way.
      expect(watch.seen.filter(eventOf(base, 'announcement'))).toEqual([]);

      const second = home.runHark(broker, base, input, state);
      expect(await second.hark.line('notices.loaded')).toMatchObject({ waiting: 2 });
      const announced = eventOf(base, 'announcement');
      await watch.next((m) => announced(m) && json(m).id === 'n2', { timeoutMs: 40_000 });
      expect(watch.seen.filter(announced).map(json)).toMatchObject([
        { id: 'n1', text: long, spoken: true },
        { id: 'n2', text: 'The post is here.', spoken: true },
      ]);
      await stopped(second);
    });
  });
});
