import { expect } from 'vitest';
import { TestScheduler } from 'rxjs/testing';

export function testScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}
