import { Option, type Command } from 'commander';
import { join } from 'node:path';
import { ConfigError } from '../config/config-error.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { CheckResult } from '../app/doctor/doctor.js';
import { silentLogger } from '../system/logger.js';
import { redact } from '../system/secrets.js';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { UsageError, connectService, type GlobalOptions } from './command-context.js';

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', note: 'note', fail: 'FAIL', skip: 'skip' };
/** This very hark (the bundle, or the compiled modules in a checkout), to run again as the service's user. */
const HARK_MAIN = process.argv[1] ?? join(PACKAGE_ROOT, 'dist', 'bin', 'hark.js');

interface DoctorOptions {
  asService?: boolean;
  /** Where the unit's files are (tests); /etc/hark. */
  serviceEtc?: string;
  /** Set by --as-service for the run it starts as the service's user. */
  inService?: boolean;
}

export function registerDoctor(program: Command, globals: () => GlobalOptions): void {
  program
    .command('doctor')
    .description('check everything hark needs, with a fix for each failure; exit 1 if anything fails')
    .option('--as-service', 'run the checks as hark.service runs: an unprivileged user in the audio group (needs root)')
    .addOption(new Option('--in-service').hideHelp())
    .addOption(new Option('--service-etc <dir>').hideHelp())
    .action(async (options: DoctorOptions) => {
      if (options.asService) {
        if (process.getuid?.() !== 0) {
          throw new UsageError(
            '--as-service switches to the service’s user: run it as root (sudo hark doctor --as-service)',
          );
        }
        const sim = globals().sim ? ['--sim'] : [];
        const { defaultServiceSetting, runAsServiceUser } = await import('../app/doctor/service-user.js');
        const setting = defaultServiceSetting();
        process.stdout.write(
          `checking as hark.service runs: an unprivileged user of its own (uid ${setting.uid}) in the audio group, /etc/hark as the unit reads it\n`,
        );
        process.exitCode = await runAsServiceUser(HARK_MAIN, [...sim, 'doctor', '--in-service'], {
          ...setting,
          etcDir: options.serviceEtc ?? setting.etcDir,
        });
        return;
      }
      let loaded: LoadedConfig | undefined;
      let configError: Error | undefined;
      try {
        loaded = loadConfig({ configPath: globals().config });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        configError = error;
      }
      const connection = loaded ? await connectService(loaded, globals().sim === true, silentLogger) : undefined;
      try {
        const { runDoctor } = await import('../app/doctor/doctor.js');
        const results = await runDoctor({
          loaded,
          configError,
          service: connection?.service,
          hasKey: connection?.hasKey ?? false,
          inService: options.inService === true,
        });
        const width = Math.max(...results.map((r) => r.check.length));
        for (const r of results) {
          // A check may quote what it was given (a config error quotes the value): the key is scrubbed.
          process.stdout.write(redact(`${MARK[r.status]}  ${r.check.padEnd(width)}  ${r.detail}\n`));
          if (r.fix) process.stdout.write(redact(`      ${' '.repeat(width)}  fix: ${r.fix}\n`));
        }
        const failed = results.filter((r) => r.status === 'fail').length;
        process.stdout.write(failed ? `\n${failed} problem${failed > 1 ? 's' : ''} found\n` : '\nall good\n');
        process.exitCode = failed ? 1 : 0;
      } finally {
        await connection?.close();
      }
    });
}
