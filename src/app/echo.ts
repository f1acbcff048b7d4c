import { AcousticEchoCanceller, ECHO_FRAME_SAMPLES } from '../audio/echo/echo-canceller.js';
import type { ClockedPlayer } from '../audio/player.js';
import type { HarkConfig } from '../config/schema.js';
import type { BargeInPhase } from '../dialog/barge-in.js';
import { VAD_SAMPLE_RATE_HZ } from '../listen/vad.js';
import type { EchoCanceller } from '../pipeline/ports.js';
import type { Logger } from '../system/logger.js';

/** How much longer speech must last to interrupt hark when its own voice cannot be taken out of the microphone. */
const STRICTER_WITHOUT_CANCELLER = 2;

export interface EchoSetup {
  canceller: AcousticEchoCanceller | undefined;
  /** The barge-in settings to use: stricter when hark hears itself and nothing takes it out. */
  bargeIn: HarkConfig['bargeIn'];
}

/**
 * The echo canceller, when hark plays and records on this machine (`audio.echoCancel: auto`,
 * i.e. the microphone and a real player) or when asked (`on`): fed with everything the player
 * plays. When it cannot load, hark says so, keeps running, and makes barge-in stricter.
 */
export async function setUpEcho(
  config: HarkConfig,
  player: ClockedPlayer,
  logger: Logger,
  live: boolean,
): Promise<EchoSetup> {
  const wanted = config.audio.echoCancel === 'on' || (config.audio.echoCancel === 'auto' && live);
  if (!wanted) return { canceller: undefined, bargeIn: config.bargeIn };
  try {
    const canceller = await AcousticEchoCanceller.load({
      ...config.echo,
      sampleRateHz: VAD_SAMPLE_RATE_HZ,
      frameSamples: ECHO_FRAME_SAMPLES,
    });
    player.listen(canceller.reference);
    logger.info('echo.ready', { tailMs: config.echo.tailMs, maxDelayMs: config.echo.maxDelayMs });
    return { canceller, bargeIn: config.bargeIn };
  } catch (error) {
    const minSpeechMs = config.bargeIn.minSpeechMs * STRICTER_WITHOUT_CANCELLER;
    logger.warn('echo.unavailable', {
      error: (error as Error).message,
      bargeIn: `stricter: ${minSpeechMs} ms of speech interrupts hark`,
    });
    return { canceller: undefined, bargeIn: { ...config.bargeIn, minSpeechMs } };
  }
}

const tenths = (value: number | null): number | null => (value === null ? null : Math.round(value * 10) / 10);

/**
 * What the echo canceller knew when speech over hark was judged (paused, resumed, confirmed):
 * whether it could be trusted, the loudest echo hark's playing could make, how far below that
 * it leaves hark's voice, and the levels of its last frame. Read when the judgement is logged,
 * so it may be a frame or two past the one judged. Tells hark's own voice taken for the user's
 * apart from the user's missed.
 */
export function logEchoAtBargeIn(logger: Logger, phase: BargeInPhase, canceller: AcousticEchoCanceller): void {
  const verdict = canceller.lastVerdict();
  const state = canceller.state();
  logger.debug('echo.at-barge-in', {
    phase,
    trusted: verdict.trusted,
    predictedDbfs: tenths(verdict.predictedDbfs),
    lossDb: tenths(verdict.lossDb),
    takenDb: tenths(verdict.takenDb),
    delayMs: Math.round(state.delayMs),
    micDbfs: tenths(state.micDbfs),
    outDbfs: tenths(state.outDbfs),
    echoDbfs: tenths(state.echoDbfs),
  });
}

/**
 * The canceller, telling the log (debug) whenever it comes to be trusted or stops being trusted,
 * and whenever it re-aligns to a new delay: with `echo.at-barge-in`, how it came to take hark's
 * voice for the user's, or the user's for hark's.
 */
export function watchEcho(
  canceller: EchoCanceller & Pick<AcousticEchoCanceller, 'realignments'>,
  logger: Logger,
): EchoCanceller {
  let trusted = false;
  let realignments = 0;
  return {
    frameSamples: canceller.frameSamples,
    cancel(mic, captureTimeMs) {
      const out = canceller.cancel(mic, captureTimeMs);
      const verdict = canceller.lastVerdict();
      if (verdict.possible && verdict.trusted !== trusted) {
        trusted = verdict.trusted;
        const { delayMs, erleDb } = canceller.state();
        logger.debug('echo.trust', {
          trusted,
          lossDb: tenths(verdict.lossDb),
          erleDb: tenths(erleDb),
          delayMs: Math.round(delayMs),
        });
      }
      if (canceller.realignments !== realignments) {
        realignments = canceller.realignments;
        logger.debug('echo.realigned', { delayMs: Math.round(canceller.state().delayMs), realignments });
      }
      return out;
    },
    lastVerdict: () => canceller.lastVerdict(),
    state: () => canceller.state(),
  };
}
