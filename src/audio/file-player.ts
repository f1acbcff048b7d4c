import { interval, type Subscription } from 'rxjs';
import { realClock, type Clock } from '../system/clock.js';
import { abandonAtomicFile, finishAtomicFile, atomicFile, type AtomicFile } from '../system/atomic-file.js';
import { ClockedPlayer } from './player.js';
import { WavFileWriter } from './wav-file.js';

/** How often played audio is moved from the queue to the file. */
const CATCH_UP_MS = 20;

/**
 * `--output FILE`: writes what would be played to a WAV. In real time, audio reaches the file
 * as the playback clock plays it, so a stop leaves out exactly what was never heard. The file
 * is written under a hidden name and takes its own when closed: a file already there is
 * replaced when the run ends (a Ctrl-C included), not by a run that failed.
 */
export class FilePlayer extends ClockedPlayer {
  private readonly file: WavFileWriter;
  private readonly whole: AtomicFile;
  private finished: Promise<void> | undefined;
  private queue: Buffer[] = [];
  private fileSamples = 0;
  private catchingUp: Subscription | undefined;
  private closed = false;

  constructor(
    readonly path: string,
    sampleRateHz: number,
    private readonly realtime: boolean,
    time: Clock = realClock,
  ) {
    super(sampleRateHz, time, !realtime);
    this.whole = atomicFile(path);
    this.file = new WavFileWriter(this.whole.partial, sampleRateHz);
  }

  override get destination(): string {
    return this.path;
  }

  protected output(pcm: Buffer): void {
    if (this.closed) return;
    if (!this.realtime) {
      this.append(pcm);
      return;
    }
    this.queue.push(pcm);
    this.catchingUp ??= interval(CATCH_UP_MS, this.time.scheduler).subscribe(() => this.catchUp());
  }

  protected discard(): void {
    this.catchUp();
    this.queue = [];
  }

  /** Puts the file in place; after a failed run, a file already there is left as it was (and this one dropped). */
  close(failed = false): Promise<void> {
    if (!this.closed) {
      this.catchUp();
      this.catchingUp?.unsubscribe();
      this.closed = true;
    }
    this.finished ??= this.file.close().then(
      () => finishAtomicFile(this.whole, !failed),
      async (error: unknown) => {
        throw await abandonAtomicFile(this.whole, error, this.path);
      },
    );
    return this.finished;
  }

  /** Moves what the clock has played from the queue to the file. */
  private catchUp(): void {
    let due = this.clock.playedSamples() - this.fileSamples;
    while (due > 0 && this.queue.length > 0) {
      const head = this.queue[0] as Buffer;
      const take = Math.min(due, head.length / 2);
      this.append(head.subarray(0, take * 2));
      due -= take;
      if (take * 2 === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(take * 2);
    }
    if (this.queue.length === 0) {
      this.catchingUp?.unsubscribe();
      this.catchingUp = undefined;
    }
  }

  private append(pcm: Buffer): void {
    this.file.write(pcm);
    this.fileSamples += pcm.length / 2;
  }
}
