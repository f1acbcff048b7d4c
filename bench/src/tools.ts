/**
 * hark's own cost of one tool round: from the end of the reply that called a tool to the next
 * request reaching the stand-in, with the tool's own run time taken out. That is the tool loop
 * collecting the call, the history and request built again (with the tools offered), the body
 * written and sent over loopback. The stand-in runs in its own process, so its work is not
 * counted; its clock is the same monotonic clock.
 */
import { lastValueFrom, tap, toArray } from 'rxjs';
import { fromAbortable } from '../../dist/app/adapters/from-abortable.js';
import { replyEndpoint } from '../../dist/app/adapters/reply-endpoint.js';
import { defaultConfig } from '../../dist/config/schema.js';
import { createService } from '../../dist/service/index.js';
import { silentLogger } from '../../dist/system/logger.js';
import { ToolRegistry } from '../../dist/tools/registry.js';
import { toolLoop } from '../../dist/tools/tool-loop.js';
import type { Tool } from '../../dist/tools/tool.js';
import { RemoteSim } from './sim-client.js';
import { median, monotonicMs, percentile, round, table, writeResult } from './stats.js';

const TARGET_MS = 5;
const APIS = ['chat', 'messages'] as const;

export async function benchTools(options: { rounds?: number } = {}) {
  const rounds = options.rounds ?? 150;
  const sim = await RemoteSim.start({ timing: { ttftMs: 0, tokensPerSecond: 2000 } });
  let toolMs = 0;
  const noop: Tool = {
    name: 'light_switch',
    description: 'Turns a light on or off.',
    inputSchema: { type: 'object', properties: { room: { type: 'string' }, on: { type: 'boolean' } } },
    source: 'built-in',
    run: () => {
      const at = monotonicMs();
      const output = { text: 'The kitchen light is off.' };
      toolMs = monotonicMs() - at;
      return Promise.resolve(output);
    },
  };
  const registry = new ToolRegistry([{ tools: () => [noop] }]);
  const overheadMs: Record<(typeof APIS)[number], number[]> = { chat: [], messages: [] };
  try {
    for (const api of APIS) {
      const config = defaultConfig();
      config.service.api = api;
      const service = createService(config, { baseUrl: sim.url, apiKey: sim.apiKey }, silentLogger);
      const endpoint = replyEndpoint(config);
      let firstEndedAt = 0;
      let requestNo = 0;
      const loop = toolLoop(
        (history, offer) => {
          const n = requestNo++;
          return fromAbortable((signal) => endpoint.stream(service, history, signal, offer)).pipe(
            tap({ complete: () => n === 0 && (firstEndedAt = monotonicMs()) }),
          );
        },
        registry,
        { maxRounds: 4, callTimeoutMs: 10_000, maxResultChars: 2000, now: monotonicMs, logger: silentLogger },
      );
      for (let i = 0; i < rounds + 10; i++) {
        await sim.reset();
        await sim.reply(
          { toolCall: { name: 'light_switch', arguments: { room: 'kitchen', on: false } } },
          {
            text: 'Done.',
          },
        );
        requestNo = 0;
        await lastValueFrom(loop.reply([{ role: 'user', text: 'Turn off the kitchen light.' }]).pipe(toArray()));
        const [, second] = await sim.requests();
        if (!second) throw new Error('the tool round made no second request');
        // The first 10 warm up the connection and the JIT.
        if (i >= 10) overheadMs[api].push(second.receivedAtMs - firstEndedAt - toolMs);
      }
      await service.close();
    }
  } finally {
    sim.close();
  }
  const rows: (string | number)[][] = [['endpoint', 'rounds', 'median ms', 'p90 ms', 'target ms']];
  const result: Record<string, unknown> = { rounds, targetMs: TARGET_MS };
  for (const api of APIS) {
    const values = overheadMs[api];
    const figures = { medianMs: round(median(values)), p90Ms: round(percentile(values, 90)) };
    rows.push([api, values.length, figures.medianMs, figures.p90Ms, `<= ${TARGET_MS}`]);
    result[api] = figures;
  }
  console.log("\nOne tool round: hark's own added latency (tool time excluded)\n");
  console.log(table(rows));
  console.log(`\nwritten to ${writeResult('tools', result)}`);
  return result;
}
