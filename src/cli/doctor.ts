import type { Command } from 'commander';
import { ConfigError } from '../config/errors.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { createService, type Service } from '../service/index.js';
import { startSim, type SimServer } from '../sim/server.js';
import { runDoctor, type CheckResult } from '../system/doctor.js';
import { silentLogger } from '../system/logger.js';
import type { GlobalOptions } from './context.js';

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
      let sim: SimServer | undefined;
      let service: Service | undefined;
      if (loaded) {
        let target = { baseUrl: loaded.config.service.baseUrl, apiKey: loaded.apiKey ?? 'no-key' };
        if (globals().sim) {
          sim = await startSim({ messagesPrefix: loaded.config.service.messagesPrefix });
          target = { baseUrl: sim.url, apiKey: sim.apiKey };
        }
        service = createService(loaded.config, target, silentLogger);
      }
      try {
        const results = await runDoctor({ loaded, configError, service, hasKey: Boolean(sim ?? loaded?.apiKey) });
        const width = Math.max(...results.map((r) => r.check.length));
        for (const r of results) {
          process.stdout.write(`${MARK[r.status]}  ${r.check.padEnd(width)}  ${r.detail}\n`);
          if (r.fix) process.stdout.write(`      ${' '.repeat(width)}  fix: ${r.fix}\n`);
        }
        const failed = results.filter((r) => r.status === 'fail').length;
        process.stdout.write(failed ? `\n${failed} problem${failed > 1 ? 's' : ''} found\n` : '\nall good\n');
        process.exitCode = failed ? 1 : 0;
      } finally {
        await service?.close();
        await sim?.close();
      }
    });
}
