import type { Command } from 'commander';
import YAML from 'yaml';
import { envTable } from '../config/env.js';
import { loadConfig } from '../config/load.js';
import { shownConfig, unsetPlaceholders } from '../config/secret-values.js';
import { maskSecret, redact } from '../system/secrets.js';
import { configuredReference } from '../app/adapters/configured-voice.js';
import { commandLogger, type GlobalOptions } from './command-context.js';
import { ConfigError } from '../config/config-error.js';
import { webPageProblem } from '../app/page/web-page.js';

export function registerConfig(program: Command, globals: () => GlobalOptions): void {
  const config = program.command('config').description('check or show the effective configuration');
  config
    .command('check')
    .description('validate the configuration (and prepare the voice clip); exit 2 on any problem')
    .action(async () => {
      const loaded = loadConfig({ configPath: globals().config });
      // The page is served by `run` from the microphone (and with --web): it would refuse to start.
      const pageProblem = loaded.config.web.enabled ? webPageProblem(loaded.config, loaded.webToken) : undefined;
      const problems = [...(pageProblem ? [pageProblem] : []), ...unsetPlaceholders(loaded.config)];
      if (problems.length) throw new ConfigError(problems);
      const clip = await configuredReference(loaded.config, commandLogger(globals(), loaded.config, 'stderr'));
      process.stdout.write(
        `configuration OK\n  read: ${loaded.sources.join(' <- ')}\n  API key: ${loaded.apiKey ? 'set' : 'NOT SET (HARK_API_KEY or a credential named hark-api-key)'}\n`,
      );
      // Prepared once, where this user's hark reads it from; the service keeps its own (CACHE_DIRECTORY).
      if (clip) {
        const seconds = (clip.durationMs / 1000).toFixed(1);
        process.stdout.write(
          `  voice clip: ${seconds} s, ${clip.fromCache ? 'read from' : 'prepared into'} ${clip.cachedAt}\n`,
        );
      }
    });
  config
    .command('show')
    .description('print the effective configuration (the key masked)')
    .option('--env', 'list the environment variable of every option instead')
    .action((options: { env?: boolean }) => {
      if (options.env) {
        for (const [name, { path }] of envTable()) process.stdout.write(`${name.padEnd(40)} ${path.join('.')}\n`);
        return;
      }
      const loaded = loadConfig({ configPath: globals().config });
      process.stdout.write(`# read: ${loaded.sources.join(' <- ')}\n# API key: ${maskSecret(loaded.apiKey)}\n`);
      process.stdout.write(redact(YAML.stringify(shownConfig(loaded.config), { lineWidth: 0 })));
    });
}
