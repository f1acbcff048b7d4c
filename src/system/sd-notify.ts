import type { Logger } from './logger.js';
import { spawnChild } from './spawn.js';

/**
 * Talks to systemd (Type=notify): READY when listening, STATUS lines, STOPPING, and watchdog
 * pings at half the WatchdogSec interval, so a hung daemon gets restarted. Node has no Unix
 * datagram sockets, so messages go through `systemd-notify`, which (systemd >= 246) waits for
 * the manager to take each one; the unit needs NotifyAccess=all for that.
 */
export class SystemdNotifier {
  private watchdogTimer: NodeJS.Timeout | undefined;
  private lastStatus = '';

  constructor(
    private readonly logger: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get enabled(): boolean {
    return Boolean(this.env.NOTIFY_SOCKET);
  }

  /** Half the watchdog interval, when systemd asks for pings (and they are meant for this process). */
  get watchdogIntervalMs(): number | undefined {
    const usec = Number(this.env.WATCHDOG_USEC);
    const pid = this.env.WATCHDOG_PID;
    if (!this.enabled || !Number.isFinite(usec) || usec <= 0 || (pid && Number(pid) !== process.pid)) return undefined;
    return usec / 1000 / 2;
  }

  ready(status: string): void {
    this.send(['READY=1', `STATUS=${status}`, `MAINPID=${process.pid}`]);
    this.lastStatus = status;
    const interval = this.watchdogIntervalMs;
    if (interval !== undefined) {
      this.watchdogTimer = setInterval(() => this.send(['WATCHDOG=1']), interval);
      this.watchdogTimer.unref();
    }
  }

  status(status: string): void {
    if (status === this.lastStatus) return;
    this.lastStatus = status;
    this.send([`STATUS=${status}`]);
  }

  stopping(reason: string): void {
    this.stopWatchdog();
    this.send(['STOPPING=1', `STATUS=stopping: ${reason}`]);
  }

  /** No more watchdog pings: hark is stopping, or has. */
  stopWatchdog(): void {
    clearInterval(this.watchdogTimer);
  }

  private send(lines: string[]): void {
    if (!this.enabled) return;
    const child = spawnChild('systemd-notify', lines, {
      stdio: 'ignore',
      env: { NOTIFY_SOCKET: this.env.NOTIFY_SOCKET ?? '' },
    });
    child.on('error', (error) => this.logger.warn('systemd.notify_failed', { error: error.message }));
  }
}
