import { Option, type Command } from 'commander';
import { attachmentDataUrl } from '../audio/data-url.js';
import { EDITIONS, isKnownModel, modelsTaking, type Edition, type MediaKind } from '../contract/models.js';
import type { Attachment } from '../dialog/reply-request.js';
import { type Message } from '../dialog/conversation.js';
import { replyEndpoint } from '../app/adapters/reply-endpoint.js';
import { UsageError, withContext, type GlobalOptions } from './command-context.js';
import { readableFile } from './files.js';
import { StreamRedactor, redact } from '../system/secrets.js';

interface ChatOptions {
  api?: 'chat' | 'messages';
  model?: string;
  system?: string;
  thinking?: 'enabled' | 'disabled' | 'default';
  effort?: 'high' | 'xhigh';
  search?: boolean;
  forcedSearch?: boolean;
  image: string[];
  video: string[];
  audio: string[];
  stream: boolean;
  showReasoning?: boolean;
}

const collectList = (value: string, previous: string[]): string[] => [...previous, value];

const ATTACHED: Record<Attachment['kind'], string> = { image: 'an image', video: 'a video', audio: 'an audio file' };
const KINDS: Record<MediaKind, string> = { image: 'images', video: 'videos', audio: 'audio' };

/**
 * Why `model` cannot be sent `kind` on this endpoint, saying which model can (in this edition,
 * else in another), if it cannot. A model hark does not know may take anything: the service decides.
 */
export function mediaRefusal(
  edition: Edition,
  endpoint: 'chat' | 'messages',
  model: string,
  kind: MediaKind,
): string | undefined {
  const takers = modelsTaking(edition, endpoint, kind);
  if (!isKnownModel(edition, endpoint, model) || takers.includes(model)) return undefined;
  const refused = `${model} takes no ${KINDS[kind]}`;
  if (takers.length) return `${refused}: ask one that does with ${takers.map((m) => `--model ${m}`).join(' or ')}`;
  const elsewhere = EDITIONS.flatMap((other) =>
    other === edition
      ? []
      : modelsTaking(other, endpoint, kind).map((m) => `--model ${m} with HARK_SERVICE_EDITION=${other}`),
  );
  const where = endpoint === 'chat' ? 'chat-completions' : 'messages';
  return `${refused}, nor does any model of edition ${edition} on the ${where} endpoint${elsewhere.length ? `: ${elsewhere.join(' or ')}` : ''}`;
}

export function registerChat(program: Command, globals: () => GlobalOptions): void {
  program
    .command('chat')
    .description('ask the chat model once and stream the reply to stdout')
    .argument('<text...>', 'what to ask')
    .addOption(
      new Option('--api <api>', 'chat (chat-completions) or messages (messages-style)').choices(['chat', 'messages']),
    )
    .option('--model <id>', 'model ID (default: chat.model from the config)')
    .option('--system <text>', 'system prompt for this call')
    .addOption(
      new Option('--thinking <mode>', 'thinking.type, or default to send none').choices([
        'enabled',
        'disabled',
        'default',
      ]),
    )
    .addOption(new Option('--effort <level>', 'reasoning effort (edition A, Ring-2.6-1T)').choices(['high', 'xhigh']))
    .option('--search', 'let the model search the web (chat-completions only)')
    .option('--forced-search', 'search on this request whatever the model thinks (implies --search)')
    .option('--image <file>', 'attach an image (repeatable)', collectList, [])
    .option('--video <file>', 'attach a video (repeatable, chat-completions only)', collectList, [])
    .option('--audio <file>', 'attach audio (repeatable, chat-completions only)', collectList, [])
    .option('--no-stream', 'wait for the whole reply instead of streaming it')
    .option('--show-reasoning', 'print reasoning/thinking text to stderr')
    .action(async (words: string[], options: ChatOptions) => {
      await withContext(globals(), 'stderr', async ({ config, service }) => {
        const chat = {
          ...config.chat,
          ...(options.model ? { model: options.model } : {}),
          ...(options.system ? { systemPrompt: options.system } : {}),
          ...(options.thinking ? { thinking: options.thinking } : {}),
          ...(options.effort ? { effort: options.effort } : {}),
          ...(options.search || options.forcedSearch
            ? { enableSearch: true, forcedSearch: options.forcedSearch === true }
            : {}),
        };
        const endpoint = replyEndpoint({
          chat,
          service: { ...config.service, ...(options.api ? { api: options.api } : {}) },
        });
        const history: Message[] = [{ role: 'user', text: words.join(' ') }];
        if (!words.join('').trim()) throw new UsageError('nothing to ask: the question is empty');
        if (endpoint.api === 'messages' && options.video.length + options.audio.length > 0) {
          throw new UsageError(
            '--video and --audio go to the chat-completions endpoint (--api chat); messages takes images',
          );
        }
        // Each file first (there, readable, the kind of media it is given as), then the model.
        const attach = async (kind: Attachment['kind'], files: string[]) => {
          const attached = await Promise.all(
            files.map(async (file): Promise<Attachment> => {
              await readableFile(file, `${ATTACHED[kind]} to attach`);
              try {
                return { kind, dataUrl: await attachmentDataUrl(file, kind) };
              } catch (error) {
                // Not that kind of file: a mistake in how hark was called; a file that cannot be read is not.
                if ((error as NodeJS.ErrnoException).code) throw error;
                throw new UsageError((error as Error).message);
              }
            }),
          );
          const refused = files.length
            ? mediaRefusal(config.service.edition, endpoint.api, chat.model, kind)
            : undefined;
          if (refused) throw new UsageError(refused);
          return attached;
        };
        const attachments = [
          ...(await attach('image', options.image)),
          ...(await attach('video', options.video)),
          ...(await attach('audio', options.audio)),
        ];
        if (!options.stream) {
          const reply = await endpoint.create(service, history, { attachments });
          if (options.showReasoning && reply.reasoning) process.stderr.write(`${redact(reply.reasoning)}\n`);
          process.stdout.write(`${redact(reply.text)}\n`);
          return;
        }
        // A reply that repeats the key (a server echoing it) is scrubbed too, even split across deltas.
        const text = new StreamRedactor();
        const reasoning = new StreamRedactor();
        for await (const event of endpoint.stream(service, history, undefined, { attachments })) {
          if (event.type === 'text') process.stdout.write(text.push(event.text));
          else if (event.type === 'reasoning' && options.showReasoning)
            process.stderr.write(reasoning.push(event.text));
          else if (event.type === 'tool_call')
            process.stderr.write(redact(`\n[tool call] ${event.call.name} ${event.call.arguments}\n`));
        }
        if (options.showReasoning) process.stderr.write(reasoning.end());
        process.stdout.write(`${text.end()}\n`);
      });
    });
}
