import type { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { runDoctor, type CheckResult } from '../app/doctor.js';
import { silentLogger } from '../system/logger.js';
import { connectService, type GlobalOptions } from './context.js';

const MARK: Record<CheckResult['status'], string> = { ok: 'ok  ', fail: 'FAIL', skip: 'skip' };

export function registerDoctor(program: Command, globals: () => GlobalOptions): void {
  program
    .command('doctor')
    .description('check everything hark needs, with a fix for each failure; exit 1 if anything fails')
    .action(async () => {
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
        const results = await runDoctor({
          loaded,
          configError,
          service: connection?.service,
          hasKey: connection?.hasKey ?? false,
        });
        const width = Math.max(...results.map((r) => r.check.length));
        for (const r of results) {
          process.stdout.write(`${MARK[r.status]}  ${r.check.padEnd(width)}  ${r.detail}\n`);
          if (r.fix) process.stdout.write(`      ${' '.repeat(width)}  fix: ${r.fix}\n`);
        }
        const failed = results.filter((r) => r.status === 'fail').length;
        process.stdout.write(failed ? `\n${failed} problem${failed > 1 ? 's' : ''} found\n` : '\nall good\n');
        process.exitCode = failed ? 1 : 0;
      } finally {
        await connection?.close();
      }
    });
}
