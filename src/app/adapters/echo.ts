import { AcousticEchoCanceller, ECHO_FRAME_SAMPLES } from '../../audio/echo/echo-canceller.js';
import type { ClockedPlayer } from '../../audio/player.js';
import type { HarkConfig } from '../../config/schema.js';
import type { BargeInPhase } from '../../dialog/barge-in.js';
import { VAD_SAMPLE_RATE_HZ } from '../../listen/vad.js';
import type { EchoCanceller, EchoState, EchoVerdict } from '../../pipeline/ports.js';
import type { Logger } from '../../system/logger.js';
import type { Part } from '../../system/parts.js';

/** How much longer speech must last to interrupt hark when its own voice cannot be taken out of the microphone. */
const STRICTER_WITHOUT_CANCELLER = 2;

export interface EchoSetup extends Part {
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
  const none = { canceller: undefined, stop: () => Promise.resolve() };
  if (!wanted) return { ...none, bargeIn: config.bargeIn };
  try {
    const canceller = await AcousticEchoCanceller.load({
      ...config.echo,
      sampleRateHz: VAD_SAMPLE_RATE_HZ,
      frameSamples: ECHO_FRAME_SAMPLES,
    });
    player.listen(canceller.reference);
    logger.info('echo.ready', { tailMs: config.echo.tailMs, maxDelayMs: config.echo.maxDelayMs });
    return { canceller, bargeIn: config.bargeIn, stop: () => Promise.resolve(canceller.close()) };
  } catch (error) {
    const minSpeechMs = config.bargeIn.minSpeechMs * STRICTER_WITHOUT_CANCELLER;
    logger.warn('echo.unavailable', {
      error: (error as Error).message,
      bargeIn: `stricter: ${minSpeechMs} ms of speech interrupts hark`,
    });
    return { ...none, bargeIn: { ...config.bargeIn, minSpeechMs } };
  }
}

const tenths = (value: number | null): number | null => (value === null ? null : Math.round(value * 10) / 10);
const hundredths = (value: number | null): number | null => (value === null ? null : Math.round(value * 100) / 100);

/**
 * What the echo canceller knew when speech over hark was judged (paused, resumed, confirmed):
 * whether it could be trusted, the loudest echo hark's playing could make, how far below that
 * it leaves hark's voice, and the levels of its last frame. Read when the judgement is logged,
 * so it may be a frame or two past the one judged. Tells hark's own voice taken for the user's
 * apart from the user's missed.
 */
export function logEchoAtBargeIn(logger: Logger, phase: BargeInPhase, canceller: AcousticEchoCanceller): void {
  logger.debug('echo.at-barge-in', { phase, ...echoReport(canceller.lastVerdict(), canceller.state()) });
}

/** What the canceller knew of its last frame, for the log. */
function echoReport(verdict: EchoVerdict, state: EchoState) {
  return {
    trusted: verdict.trusted,
    predictedDbfs: tenths(verdict.predictedDbfs),
    lossDb: tenths(verdict.lossDb),
    takenDb: tenths(verdict.takenDb),
    beyondDb: tenths(verdict.beyondDb),
    delayMs: Math.round(state.delayMs),
    micDbfs: tenths(state.micDbfs),
    outDbfs: tenths(state.outDbfs),
    echoDbfs: tenths(state.echoDbfs),
  };
}

/** While hark's voice may reach the microphone, the canceller's state is logged this often (debug), by capture time. */
const STATE_EVERY_MS = 1000;

/**
 * The canceller, telling the log (debug) whenever it comes to be trusted or stops being trusted,
 * whenever it re-aligns to a new delay, and once a second while hark's voice may reach the
 * microphone how well it cancels: with `echo.at-barge-in`, how it came to take hark's voice for
 * the user's, or the user's for hark's (a sound server that let it take only 3-10 dB out of a
 * whole reply was found so).
 */
export function watchEcho(
  canceller: EchoCanceller & Pick<AcousticEchoCanceller, 'realignments' | 'steps'>,
  logger: Logger,
): EchoCanceller {
  let trusted = false;
  let realignments = 0;
  let steps = 0;
  let stateLoggedAt = -Infinity;
  return {
    frameSamples: canceller.frameSamples,
    passes: (mic, captureTimeMs) => canceller.passes(mic, captureTimeMs),
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
      if (verdict.possible && captureTimeMs - stateLoggedAt >= STATE_EVERY_MS) {
        stateLoggedAt = captureTimeMs;
        const state = canceller.state();
        logger.debug('echo.state', {
          ...echoReport(verdict, state),
          erleDb: tenths(state.erleDb),
          delayConfidence: tenths(state.delayConfidence),
          coherence: hundredths(state.coherence),
        });
      }
      if (canceller.steps !== steps) {
        steps = canceller.steps;
        logger.debug('echo.stepped', { delayMs: tenths(canceller.state().delayMs), steps });
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
