import type { Command } from 'commander';
import type { ServiceEndpoint } from '../contract/endpoints.js';
import {
  EDITIONS,
  chatMediaKinds,
  effortEffective,
  messagesMediaKinds,
  modelsFor,
  speechStreamFormats,
  thinkingEffective,
  type Edition,
} from '../contract/models.js';
import { UsageError } from './command-context.js';

const ENDPOINTS: ServiceEndpoint[] = ['chat', 'messages', 'speech', 'transcription'];

/** One line per model: where it is accepted and which optional parameters take effect. */
export function modelTable(editions: readonly Edition[]): string {
  const rows: string[][] = [['edition', 'model', 'endpoints', 'thinking', 'effort', 'media / streaming']];
  for (const edition of editions) {
    const models = [...new Set(ENDPOINTS.flatMap((e) => modelsFor(edition, e)))];
    for (const model of models) {
      const endpoints = ENDPOINTS.filter((e) => modelsFor(edition, e).includes(model));
      const text = endpoints.includes('chat') || endpoints.includes('messages');
      const media = [
        ...chatMediaKinds(edition, model).map((k) => `chat:${k}`),
        ...(endpoints.includes('messages') ? messagesMediaKinds(model).map((k) => `messages:${k}`) : []),
        ...(endpoints.includes('speech') ? [`stream_format ${speechStreamFormats(model).join('/')}`] : []),
      ];
      rows.push([
        edition,
        model,
        endpoints.join(', '),
        text ? (thinkingEffective(edition, model) ? 'yes' : '-') : '',
        text ? (effortEffective(edition, model) ? 'yes' : '-') : '',
        media.join(', ') || '-',
      ]);
    }
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  return rows
    .map((r) =>
      r
        .map((cell, c) => cell.padEnd(widths[c] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function registerModels(program: Command): void {
  program
    .command('models')
    .description('list the models of each edition and the parameters that take effect for them')
    .option('--edition <A|B>', 'only this edition')
    .action((options: { edition?: string }) => {
      const editions = options.edition ? EDITIONS.filter((e) => e === options.edition?.toUpperCase()) : EDITIONS;
      if (!editions.length) throw new UsageError(`--edition ${options.edition ?? ''}: use ${EDITIONS.join(' or ')}`);
      process.stdout.write(`${modelTable(editions)}\n`);
    });
}
