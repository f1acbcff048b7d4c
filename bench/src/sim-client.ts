import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SimOptions } from '../../dist/sim/server.js';
import type { ReplyScript, TranscriptScript } from '../../dist/sim/script.js';
import type { VoiceEngine } from '../../dist/sim/voice.js';

export interface RemoteRequest {
  endpoint: string;
  status: number;
  outcome: string;
  receivedAtMs: number;
  firstBodyByteAtMs: number | undefined;
  events: number;
}

/** A stand-in service running in a child process. */
export class RemoteSim {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
    readonly apiKey: string,
  ) {}

  static async start(options: SimOptions): Promise<RemoteSim> {
    const child = fork(fileURLToPath(new URL('./sim-process.js', import.meta.url)), [JSON.stringify(options)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const ready = await new Promise<{ url: string; apiKey: string }>((resolve, reject) => {
      child.once('message', (m) => resolve(m as { url: string; apiKey: string }));
      child.once('error', reject);
    });
    return new RemoteSim(child, ready.url, ready.apiKey);
  }

  private ask<T>(command: object): Promise<T> {
    return new Promise((resolve) => {
      this.child.once('message', (m) => resolve(m as T));
      this.child.send(command);
    });
  }

  reply(...replies: ReplyScript[]): Promise<unknown> {
    return this.ask({ type: 'reply', replies });
  }

  transcript(...texts: (string | TranscriptScript)[]): Promise<unknown> {
    return this.ask({ type: 'transcript', texts });
  }

  /** What the stand-in speaks with from its next request on. */
  voice(engine: VoiceEngine): Promise<unknown> {
    return this.ask({ type: 'voice', engine });
  }

  reset(): Promise<unknown> {
    return this.ask({ type: 'reset' });
  }

  async requests(): Promise<RemoteRequest[]> {
    return (await this.ask<{ requests: RemoteRequest[] }>({ type: 'requests' })).requests;
  }

  close(): void {
    this.child.disconnect();
  }
}
