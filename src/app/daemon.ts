import { filter } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import type { Service } from '../service/index.js';
import type { Logger } from '../system/logger.js';
import { SystemdNotifier } from '../system/sd-notify.js';
import { configuredReference } from './configured-voice.js';
import { startVoiceLoop, type VoiceLoopOptions } from './voice-loop.js';

/**
 * hark as a daemon: the voice loop, systemd told when it is listening and what it is doing,
 * and SIGINT/SIGTERM stopping it in order (the turn cancelled, the player and the VAD closed).
 * Resolves when the input ends or a signal stopped it.
 */
export async function runDaemon(
  config: HarkConfig,
  service: Service,
  logger: Logger,
  options: Omit<VoiceLoopOptions, 'reference'>,
): Promise<void> {
  // The key is in memory now; no child process (recorder, player, ffmpeg) inherits it.
  delete process.env.HARK_API_KEY;
  delete process.env.CREDENTIALS_DIRECTORY;
  const systemd = new SystemdNotifier(logger);
  const clone = await configuredReference(config, logger);
  const loop = await startVoiceLoop(config, service, logger, { ...options, reference: clone?.reference });
  const status = loop.events.pipe(filter((event) => event.type === 'state')).subscribe((event) => {
    if (event.type === 'state') systemd.status(event.state);
  });
  systemd.ready('listening');
  let stopReason = 'input ended';
  const stop = (signal: NodeJS.Signals): void => {
    stopReason = signal;
    logger.info('hark.stopping', { signal });
    systemd.stopping(signal);
    void loop.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await loop.done;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    status.unsubscribe();
    await loop.stop();
    logger.info('hark.stopped', { reason: stopReason });
  }
}
