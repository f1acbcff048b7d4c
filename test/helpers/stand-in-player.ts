import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { VirtualTimeScheduler } from 'rxjs';
import { CommandPlayer } from '../../src/audio/command-player.js';
import { createMemoryLogger } from '../../src/system/logger.js';

/** A player process the test speaks for: what it was started with, what it was given, what it says. */
export class StandInChild extends EventEmitter {
  /** Samples written to it, write by write. */
  readonly written: number[] = [];
  readonly stdin = Object.assign(new EventEmitter(), {
    write: (pcm: Buffer): boolean => this.written.push(pcm.length / 2) > 0,
    end: (): void => void (this.ended = true),
  });
  readonly stderr = new EventEmitter();
  ended = false;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;

  constructor(readonly args: readonly string[]) {
    super();
  }

  /** What CommandPlayer sees: the parts of a ChildProcess it uses. */
  get process(): ChildProcess {
    return this as unknown as ChildProcess;
  }

  says(text: string): void {
    this.stderr.emit('data', Buffer.from(text));
  }

  /** Exits with an error, saying why, the moment it is told to. */
  fails(said: string): void {
    if (this.exitCode !== null) return;
    this.exitCode = 1;
    this.says(`${said}\n`);
    this.emit('close', 1, null);
  }

  kill(signal: NodeJS.Signals): boolean {
    this.signalCode = signal;
    this.emit('close', null, signal);
    return true;
  }
}

/** A CommandPlayer at 16 kHz on virtual time, its processes stand-ins, its listeners recorded. */
export function standIn(template: string) {
  const virtual = new VirtualTimeScheduler();
  const logger = createMemoryLogger();
  const children: StandInChild[] = [];
  const time = { now: () => virtual.now(), scheduler: virtual };
  const player = new CommandPlayer(template, 16000, logger, time, (_, args) => {
    const child = new StandInChild(args);
    children.push(child);
    return child.process;
  });
  const heard: { startMs: number; samples: number }[] = [];
  const silentFrom: number[] = [];
  player.listen({
    write: (samples, _, startMs) => heard.push({ startMs, samples: samples.length }),
    drop: (atMs) => silentFrom.push(atMs),
  });
  /** Runs everything due up to `ms`, and stays there. */
  const at = (ms: number): void => {
    virtual.maxFrames = ms;
    virtual.flush();
    virtual.frame = ms;
  };
  return { player, logger, children, heard, silentFrom, at };
}
