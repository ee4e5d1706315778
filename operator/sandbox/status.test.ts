import { describe, expect, test } from 'vitest';
import { canonical } from './status.ts';

describe('canonical', () => {
  test('the same status in another key order is the same JSON; array order still counts', () => {
    const ours = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], podName: 's' };
    const apiserver = { conditions: [{ status: 'True', type: 'Ready' }], podName: 's', phase: 'Running' };
    expect(canonical(ours)).toBe(canonical(apiserver));
    expect(canonical({ a: [1, 2] })).not.toBe(canonical({ a: [2, 1] }));
    expect(canonical({ a: 1 })).not.toBe(canonical({ a: 1, b: 2 }));
    expect(canonical(undefined)).toBe(undefined);
  });
});
