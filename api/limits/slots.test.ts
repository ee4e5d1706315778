import { describe, expect, it } from 'vitest';
import { UserSlots } from './slots.ts';

describe('UserSlots', () => {
  it('gives each user up to max slots, independently of other users', () => {
    const slots = new UserSlots(2);
    const a1 = slots.take('alice');
    const a2 = slots.take('alice');
    expect(a1 && a2).toBeTruthy();
    expect(slots.take('alice')).toBeUndefined();
    expect(slots.inflight('alice')).toBe(2);
    expect(slots.take('bob')).toBeDefined();
    expect(slots.inflight('bob')).toBe(1);
  });

  it('frees a slot on release, once however often it is released', () => {
    const slots = new UserSlots(2);
    const a1 = slots.take('alice')!;
    slots.take('alice');
    a1.release();
    a1.release();
    a1.release();
    expect(slots.inflight('alice')).toBe(1);
    expect(slots.take('alice')).toBeDefined();
    expect(slots.take('alice')).toBeUndefined();
  });

  it('forgets a user with nothing in flight', () => {
    const slots = new UserSlots(1);
    const held = Array.from({ length: 100 }, (_, i) => slots.take(`u${i}`)!);
    expect(slots.users).toBe(100);
    for (const s of held) s.release();
    expect(slots.users).toBe(0);
    expect(slots.inflight('u1')).toBe(0);
  });

  it('refuses a cap that is not a positive integer', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new UserSlots(bad)).toThrow(/positive integer/);
  });
});
