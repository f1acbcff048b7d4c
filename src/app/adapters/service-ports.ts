import type { HarkConfig } from '../../config/schema.js';
import { replyEndpoint } from './reply-endpoint.js';
import type { Service } from '../../service/index.js';
import type { VoiceReference } from '../../contract/wire.js';
import { speechRequest } from './configured-voice.js';
import { fromAbortable, fromAbortablePromise } from './from-abortable.js';
import type { ReplyModel, Synthesizer, Transcriber } from '../../pipeline/ports.js';
import type { Logger } from '../../system/logger.js';
import { toolLoop, type ToolBox } from '../../tools/tool-loop.js';

/** The ports, as the configured service endpoints. */
export function servicePorts(
  service: Service,
  config: HarkConfig,
  reference?: VoiceReference,
  tools?: { box: ToolBox; logger: Logger },
): { transcriber: Transcriber; replyModel: ReplyModel; synthesizer: Synthesizer } {
  const { language, model } = config.transcription;
  const endpoint = replyEndpoint(config);
  const transcriber: Transcriber = {
    transcribe: (wav, prompt) =>
      fromAbortablePromise(async (signal) => {
        const file = { name: 'utterance.wav', bytes: wav };
        const request = { file, model, ...(language ? { language } : {}), ...(prompt ? { prompt } : {}) };
        const result = await service.transcription.transcribe(request, { signal });
        return { text: result.text, tokens: result.usage.total_tokens };
      }),
    prepare: () => void service.transport.warm(),
  };
  const replyModel: ReplyModel =
    tools && config.tools.enabled
      ? toolLoop(
          (history, offer) => fromAbortable((signal) => endpoint.stream(service, history, signal, offer)),
          tools.box,
          {
            maxRounds: config.tools.maxRounds,
            callTimeoutMs: config.tools.callTimeoutMs,
            maxResultChars: config.tools.maxResultChars,
            now: () => performance.now(),
            logger: tools.logger,
          },
        )
      : { reply: (history) => fromAbortable((signal) => endpoint.stream(service, history, signal)) };
  const synthesizer: Synthesizer = {
    sampleRateHz: config.speech.sampleRateHz,
    synthesize: (text) =>
      fromAbortable(async function* (signal) {
        const events = service.speech.streamSse(speechRequest(text, config.speech, reference), { signal });
        for await (const event of events) if (event.type === 'audio') yield event.audio;
      }),
  };
  return { transcriber, replyModel, synthesizer };
}
