/**
 * hark's chat-completions client against the `openai` SDK, on the same stand-in stream:
 * time from the first SSE byte on the socket to the first text delta in the caller's hands,
 * and CPU time per 10,000 streamed tokens.
 */
import OpenAI from 'openai';
import { ChatCompletionsClient } from '../../dist/service/chat.js';
import { Transport } from '../../dist/service/http.js';
import { RemoteSim } from './sim-client.js';
import { median, monotonicMs, percentile, round, table, writeResult } from './stats.js';

const model = 'Ling-3.0-flash';
const messages = [{ role: 'user' as const, content: 'Tell me a story.' }];

type Streamer = (onFirstText: () => void) => Promise<number>;

function harkStreamer(url: string, apiKey: string): { run: Streamer; close: () => Promise<void> } {
  const transport = new Transport({ baseUrl: url, apiKey });
  const client = new ChatCompletionsClient({ transport });
  return {
    async run(onFirstText) {
      let tokens = 0;
      for await (const event of client.stream({ model, messages })) {
        if (event.type === 'text' && tokens++ === 0) onFirstText();
      }
      return tokens;
    },
    close: () => transport.close(),
  };
}

function openaiStreamer(url: string, apiKey: string): { run: Streamer; close: () => Promise<void> } {
  const client = new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0 });
  return {
    async run(onFirstText) {
      let tokens = 0;
      const stream = await client.chat.completions.create({ model, messages, stream: true });
      for await (const chunk of stream) {
        const content = chunk.choices[0]?.delta?.content;
        if (content && tokens++ === 0) onFirstText();
      }
      return tokens;
    },
    close: async () => undefined,
  };
}

const CLIENTS = ['hark', 'openai'] as const;
type ClientName = (typeof CLIENTS)[number];

export async function benchChatClient(options: { rounds?: number; cpuRounds?: number } = {}) {
  const rounds = options.rounds ?? 150;
  const cpuRounds = options.cpuRounds ?? 15;
  const sim = await RemoteSim.start({ timing: { ttftMs: 20, tokensPerSecond: 200 } });
  const streamers = { hark: harkStreamer(sim.url, sim.apiKey), openai: openaiStreamer(sim.url, sim.apiKey) };
  const firstDeltaMs: Record<ClientName, number[]> = { hark: [], openai: [] };
  const cpuMs: Record<ClientName, number[]> = { hark: [], openai: [] };
  const wallMs: Record<ClientName, number[]> = { hark: [], openai: [] };
  try {
    const shortReply = { text: 'One short sentence for latency.', ttftMs: 20, tokensPerSecond: 200 };
    for (const name of CLIENTS)
      for (let i = 0; i < 20; i++) {
        await sim.reply(shortReply);
        await streamers[name].run(() => undefined);
      }
    // Latency: alternate the clients so drift on a shared machine hits both alike.
    for (let i = 0; i < rounds; i++) {
      for (const name of i % 2 ? [...CLIENTS].reverse() : CLIENTS) {
        await sim.reset();
        await sim.reply(shortReply);
        let deliveredAt = 0;
        await streamers[name].run(() => (deliveredAt = monotonicMs()));
        const [record] = await sim.requests();
        if (record?.firstBodyByteAtMs !== undefined) firstDeltaMs[name].push(deliveredAt - record.firstBodyByteAtMs);
      }
    }
    // CPU: 10,000 tokens sent as fast as the socket takes them.
    const longText = Array.from({ length: 10_000 }, (_, i) => `w${i % 97}`).join(' ');
    for (let i = 0; i < cpuRounds + 2; i++) {
      for (const name of i % 2 ? [...CLIENTS].reverse() : CLIENTS) {
        await sim.reply({ text: longText, ttftMs: 0, tokensPerSecond: 1e9 });
        const cpu = process.cpuUsage();
        const started = performance.now();
        const tokens = await streamers[name].run(() => undefined);
        const used = process.cpuUsage(cpu);
        if (tokens !== 10_000) throw new Error(`${name} received ${tokens} tokens, expected 10000`);
        if (i >= 2) {
          cpuMs[name].push((used.user + used.system) / 1000);
          wallMs[name].push(performance.now() - started);
        }
      }
    }
  } finally {
    await Promise.all(CLIENTS.map((n) => streamers[n].close()));
    sim.close();
  }
  const summary = Object.fromEntries(
    CLIENTS.map((name) => [
      name,
      {
        firstDeltaMedianMs: round(median(firstDeltaMs[name])),
        firstDeltaP90Ms: round(percentile(firstDeltaMs[name], 90)),
        cpuMsPer10kTokensMedian: round(median(cpuMs[name]), 1),
        wallMsPer10kTokensMedian: round(median(wallMs[name]), 1),
      },
    ]),
  ) as Record<
    ClientName,
    {
      firstDeltaMedianMs: number;
      firstDeltaP90Ms: number;
      cpuMsPer10kTokensMedian: number;
      wallMsPer10kTokensMedian: number;
    }
  >;
  const ratio = {
    firstDelta: round(summary.openai.firstDeltaMedianMs / summary.hark.firstDeltaMedianMs, 2),
    cpu: round(summary.openai.cpuMsPer10kTokensMedian / summary.hark.cpuMsPer10kTokensMedian, 2),
  };
  console.log(
    '\nChat-completions client: first SSE byte on the socket -> first text delta delivered; CPU per 10,000 tokens',
  );
  console.log(
    table([
      ['client', 'first delta median ms', 'p90 ms', 'CPU ms / 10k tokens', 'wall ms / 10k tokens'],
      ...CLIENTS.map((n) => [
        n,
        summary[n].firstDeltaMedianMs,
        summary[n].firstDeltaP90Ms,
        summary[n].cpuMsPer10kTokensMedian,
        summary[n].wallMsPer10kTokensMedian,
      ]),
      ['openai / hark', `${ratio.firstDelta}x`, '', `${ratio.cpu}x`, ''],
    ]),
  );
  const verdict =
    ratio.firstDelta >= 1 && ratio.cpu >= 1 ? 'hark is not slower' : 'hark is SLOWER on at least one measure';
  console.log(
    `(${rounds} latency rounds, ${cpuRounds} CPU rounds per client, alternating; ratios > 1 favour hark) ${verdict}`,
  );
  const path = writeResult('chat-client', {
    rounds,
    cpuRounds,
    summary,
    ratio,
    verdict,
    samples: { firstDeltaMs, cpuMs },
  });
  console.log(`wrote ${path}`);
  return { summary, ratio };
}
