import { describe, expect, it } from 'vitest';
import { ModelSteps } from '../../../../src/app/adapters/model-steps.js';

/** A model that notes what it was asked, in order. */
class Model {
  readonly heard: string[] = [];
  hear(what: string): void {
    if (what === 'bad') throw new Error('cannot hear that');
    this.heard.push(what);
  }
  async later(what: string): Promise<void> {
    await Promise.resolve();
    this.heard.push(what);
  }
}

describe('ModelSteps: what the listening thread asks of a model, in order', () => {
  it('keeps what is asked before the model has loaded, and runs it in order once it has', async () => {
    const model = new Model();
    let load!: (model: Model) => void;
    const steps = new ModelSteps(new Promise<Model>((resolve) => (load = resolve)), () => undefined);
    steps.run((m) => m.hear('a'));
    steps.run((m) => m.later('b'));
    steps.run((m) => m.hear('c'));
    expect(model.heard).toEqual([]);
    load(model);
    await steps.settled();
    expect(model.heard).toEqual(['a', 'b', 'c']);
  });

  it('runs a step at once while none waits, and after a slow one when one does', async () => {
    const model = new Model();
    const steps = new ModelSteps(Promise.resolve(model), () => undefined);
    await steps.settled();
    steps.run((m) => m.hear('now'));
    expect(model.heard).toEqual(['now']);
    steps.run((m) => m.later('slow'));
    steps.run((m) => m.hear('after'));
    expect(model.heard).toEqual(['now']);
    await steps.settled();
    expect(model.heard).toEqual(['now', 'slow', 'after']);
  });

  it('fails the model once on a step that throws; the steps after it skip the model but settle', async () => {
    const model = new Model();
    const failures: string[] = [];
    const steps = new ModelSteps(Promise.resolve(model), (error) => failures.push((error as Error).message));
    steps.run((m) => m.later('first'));
    steps.run((m) => m.hear('bad'));
    steps.run(() => Promise.reject(new Error('again')));
    steps.run((m) => m.hear('never'));
    await steps.settled();
    expect(model.heard).toEqual(['first']);
    expect(failures).toEqual(['cannot hear that']);
  });

  it('fails the model on a step that rejects, and runs nothing on it after', async () => {
    const model = new Model();
    const failures: string[] = [];
    const steps = new ModelSteps(Promise.resolve(model), (error) => failures.push((error as Error).message));
    await steps.settled();
    steps.run(() => Promise.reject(new Error('lost the session')));
    steps.run((m) => m.hear('never'));
    await steps.settled();
    expect(model.heard).toEqual([]);
    expect(failures).toEqual(['lost the session']);
  });

  it('settles what was asked so far without waiting for what is asked after (a drain)', async () => {
    const model = new Model();
    const steps = new ModelSteps(Promise.resolve(model), () => undefined);
    steps.run((m) => m.later('before the drain'));
    const drained = steps.settled().then(() => [...model.heard]);
    steps.run((m) => m.later('after the drain'));
    expect(await drained).toEqual(['before the drain']);
    await steps.settled();
    expect(model.heard).toEqual(['before the drain', 'after the drain']);
  });

  it('runs nothing on a model that did not load, and still settles', async () => {
    let ran = false;
    const steps = new ModelSteps<Model>(Promise.resolve(undefined), () => undefined);
    steps.run(() => (ran = true));
    await steps.settled();
    expect(ran).toBe(false);
  });
});
