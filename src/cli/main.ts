import { Command, CommanderError, Option } from 'commander';
import { ConfigError } from '../config/config-error.js';
import { failureFix } from '../app/adapters/log-events.js';
import { ServiceError } from '../service/service-error.js';
import { RequestValidationError } from '../contract/validation-error.js';
import { isAbortError } from '../system/abort.js';
import { packageVersion } from '../system/package-paths.js';
import { redact } from '../system/secrets.js';
import { ReferenceClipError } from '../voice/reference.js';
import { registerChat } from './chat.js';
import { onOutputError, stoppedByReader } from './closed-output.js';
import { registerConfig } from './config.js';
import { registerDevices } from './devices.js';
import { registerDoctor } from './doctor.js';
import { registerVoice } from './voice.js';
import { registerDemo } from './demo.js';
import { registerRun } from './run.js';
import { UsageError, type GlobalOptions } from './command-context.js';
import { registerModels } from './models.js';
import { registerSay } from './say.js';
import { registerSim } from './sim.js';
import { registerTools } from './tools.js';
import { registerTranscribe } from './transcribe.js';
import { registerWake } from './wake.js';

const program = new Command('hark')
  .description('hark: a hands-free voice assistant daemon for the Model Inference Service')
  .version(packageVersion())
  .option(
    '-c, --config <file>',
    'config file (default: $HARK_CONFIG, else $XDG_CONFIG_HOME/hark/config.yaml, else /etc/hark/config.yaml)',
  )
  .addOption(new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'warn', 'error']))
  .addOption(
    new Option('--log-format <format>', 'json lines, readable lines, or auto (readable on a terminal)').choices([
      'json',
      'pretty',
      'auto',
    ]),
  )
  .option('--sim', 'use a built-in stand-in service on loopback instead of the configured one')
  .showHelpAfterError()
  .exitOverride();

// onnxruntime (Silero VAD, the wake word) otherwise writes a device ID under $HOME/.cache (and
// warns at every start where it cannot, as under systemd) and sets up telemetry uploads. It reads
// this when it loads, which is always later: it is imported on demand.
process.env.ORT_DISABLE_TELEMETRY ??= '1';

process.stdout.on('error', onOutputError('stdout'));
process.stderr.on('error', onOutputError('stderr'));

const globals = (): GlobalOptions => program.opts<GlobalOptions>();
registerRun(program, globals);
registerDemo(program, globals);
registerChat(program, globals);
registerSay(program, globals);
registerTranscribe(program, globals);
registerSim(program, globals);
registerModels(program);
registerVoice(program, globals);
registerConfig(program, globals);
registerDevices(program);
registerDoctor(program, globals);
registerWake(program, globals);
registerTools(program, globals);

/** Exit 2 for a mistake in how hark was called or configured, 1 for a failure while working. */
function exitCodeFor(error: unknown): number {
  if (
    error instanceof UsageError ||
    error instanceof ConfigError ||
    error instanceof RequestValidationError ||
    error instanceof ReferenceClipError
  ) {
    return 2;
  }
  return 1;
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version exit 0; every other complaint of commander's (unknown command or
    // option, a missing argument or -o) is a mistake in how hark was called.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (isAbortError(error)) {
    process.exitCode = 130;
  } else {
    const message = error instanceof ServiceError || error instanceof Error ? error.message : String(error);
    const fix = error instanceof Error ? failureFix(error) : undefined;
    process.stderr.write(`hark: ${redact(message)}${fix ? `; ${fix}` : ''}\n`);
    process.exitCode = exitCodeFor(error);
  }
}
// Stopped because the reader of its output left: their choice, not a failure.
if (stoppedByReader()) process.exitCode = 0;
