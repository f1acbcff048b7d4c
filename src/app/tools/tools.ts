import { homedir } from 'node:os';
import { join } from 'node:path';
import { asyncScheduler, type Observable, type SchedulerLike } from 'rxjs';
import { CommandPlayer } from '../../audio/command-player.js';
import type { ClockedPlayer } from '../../audio/player.js';
import type { HarkConfig } from '../../config/schema.js';
import type { Logger } from '../../system/logger.js';
import { Parts, type Part } from '../../system/parts.js';
import { getTimeTool } from '../../tools/get-time.js';
import { amixer, gainControl, pactl, withFallback, wpctl, type VolumeControl } from '../../tools/mixer.js';
import { ToolRegistry } from '../../tools/registry.js';
import type { Announcement, TimerEntry } from '../../tools/timer-book.js';
import { TimerStore } from '../../tools/timer-store.js';
import { timerTools } from '../../tools/timer-tools.js';
import type { Tool, ToolSource } from '../../tools/tool.js';
import { volumeTool } from '../../tools/volume.js';
import type { McpSource } from './mcp.js';

/** Wall-clock time (epoch ms) and the scheduler timers ring on: injected by tests. */
export interface WallClock {
  now: () => number;
  scheduler: SchedulerLike;
}

export const realWallClock: WallClock = { now: () => Date.now(), scheduler: asyncScheduler };

/** Where hark keeps what must outlive it: systemd's StateDirectory, else the XDG state home. */
export function stateDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const systemd = env.STATE_DIRECTORY?.split(':')[0];
  if (systemd) return systemd;
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'hark');
}

export interface HarkTools extends Part {
  registry: ToolRegistry;
  /** Timers and alarms falling due (none when timers are off). */
  announcements: Observable<Announcement> | undefined;
  /** The timers and alarms set, soonest first, after every change (none when timers are off). */
  timersSet: Observable<TimerEntry[]> | undefined;
  /**
   * Reads the timers saved before (subscribe to `announcements` first: one due while hark was off
   * rings at once); with `ring` false they are only read and written, never rung.
   */
  loadTimers(ring?: boolean): Promise<void>;
}

export interface ToolsOptions {
  player?: ClockedPlayer | undefined;
  /** The volume tool's control (default: the player's, see volumeControlFor). */
  volume?: VolumeControl | undefined;
  /** The process ends with the call (`hark tools call`): what lives only in it does not last. */
  oneShot?: boolean;
  clock?: WallClock | undefined;
  stateDir?: string | undefined;
  /** systemd's credentials directory, for MCP servers' `${NAME}`s, once the daemon has dropped it from its environment. */
  credentials?: string | undefined;
}

/** The mixer of the player in use (wpctl for pw-play, pactl for pacat, amixer for aplay), falling back to hark's gain. */
export function volumeControlFor(player: ClockedPlayer, config: HarkConfig, logger: Logger): VolumeControl {
  const gain = gainControl(player);
  const program = player instanceof CommandPlayer ? player.program : '';
  const mixer =
    program === 'pw-play' || program === 'pw-cat'
      ? wpctl()
      : program === 'pacat' || program === 'paplay'
        ? pactl()
        : program === 'aplay'
          ? amixer(undefined, config.audio.playbackDevice)
          : undefined;
  if (!mixer) return gain;
  return withFallback(mixer, gain, (error) =>
    logger.warn('volume.mixer_failed', { mixer: mixer.name, error, using: 'gain' }),
  );
}

/** The built-in tools the configuration turns on, and the MCP servers' tools, in one registry. */
export async function startTools(config: HarkConfig, logger: Logger, options: ToolsOptions = {}): Promise<HarkTools> {
  const clock = options.clock ?? realWallClock;
  const timeZone = config.tools.time.timeZone ?? undefined;
  const builtIn: Tool[] = [];
  if (config.tools.time.enabled) builtIn.push(getTimeTool(clock.now, timeZone));
  // Stopped in reverse: the MCP servers, then the timers.
  const parts = new Parts(logger);
  let store: TimerStore | undefined;
  if (config.tools.timers.enabled) {
    const path = join(options.stateDir ?? stateDirectory(), 'timers.json');
    const timers = new TimerStore({ path, now: clock.now, scheduler: clock.scheduler, logger, watch: true });
    parts.add('timers', { stop: () => timers.close() });
    store = timers;
    builtIn.push(...timerTools({ store, now: clock.now, timeZone, snoozeMs: config.tools.timers.snoozeMs }));
  }
  const volume = options.volume ?? (options.player && volumeControlFor(options.player, config, logger));
  if (config.tools.volume.enabled && volume) {
    builtIn.push(volumeTool(volume, config.tools.volume.stepPercent, options.oneShot === true));
  }
  const builtIns: ToolSource = { tools: () => builtIn };
  // The MCP client is loaded only when a server is configured: without one, start-up carries none of it.
  const mcp: McpSource[] = config.tools.mcpServers.length
    ? await (await import('./mcp.js')).startMcpSources(config, logger, options.credentials)
    : [];
  for (const source of mcp) parts.add(`mcp ${source.name}`, source);
  return {
    registry: new ToolRegistry([builtIns, ...mcp]),
    announcements: store?.announcements,
    timersSet: store?.timersSet,
    loadTimers: async (ring = true) => store?.load(ring),
    stop: () => parts.stop(),
  };
}
