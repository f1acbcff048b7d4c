/**
 * Runs jobs side by side while the CPU they may take stays within a budget: each capped hark
 * has its own group and quota, so several small boards fit on this machine at once, and the
 * bench keeps to its time. Results come back in the jobs' order.
 */
export interface Job<T> {
  /** The share of one core it may take, % (an uncapped one: what it is reckoned to take). */
  weight: number;
  run: () => Promise<T>;
}

export async function runAll<T>(jobs: Job<T>[], budget: number, most: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let running = 0;
  let load = 0;
  let next = 0;
  await new Promise<void>((resolve, reject) => {
    const start = (): void => {
      if (next === jobs.length && running === 0) return resolve();
      while (next < jobs.length) {
        const index = next;
        const job = jobs[index] as Job<T>;
        // One job always runs, however heavy: nothing waits forever.
        if (running > 0 && (running >= most || load + job.weight > budget)) return;
        next++;
        running++;
        load += job.weight;
        job.run().then(
          (result) => {
            results[index] = result;
            running--;
            load -= job.weight;
            start();
          },
          (error: unknown) => reject(error as Error),
        );
      }
    };
    start();
  });
  return results;
}
