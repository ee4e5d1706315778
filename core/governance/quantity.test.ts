import { describe, expect, it } from 'vitest';
import { exceedsCap, parseDuration } from './duration.ts';
import { compareQuantities, parseQuantity } from './quantity.ts';

describe('quantities compare exactly', () => {
  it.each([
    ['1', '1000m', 0],
    ['1Gi', '1073741824', 0],
    ['500m', '0.5', 0],
    ['1.5', '1500m', 0],
    ['1e3', '1k', 0],
    ['1E3', '1000', 0],
    ['0.1', '100m', 0],
    ['2Gi', '2G', 1],
    ['1Mi', '1M', 1],
    ['999m', '1', -1],
    ['1Ki', '1024', 0],
    [2, '2000m', 0],
    ['+1', '1', 0],
    ['.5', '500m', 0],
    ['100n', '0.0000001', 0],
  ] as const)('%s vs %s → %i', (a, b, want) => {
    expect(compareQuantities(parseQuantity(a), parseQuantity(b))).toBe(want);
  });

  it.each(['', 'lots', '1 Gi', '1gi', '1.2.3', 'Gi', '1e'])('refuses %j', (bad) => {
    expect(() => parseQuantity(bad)).toThrow('is not a Kubernetes quantity');
  });
});

describe('durations', () => {
  it.each([
    ['0', 0n],
    ['90s', 90_000_000_000n],
    ['1h30m', 5_400_000_000_000n],
    ['90m', 5_400_000_000_000n],
    ['1.5h', 5_400_000_000_000n],
    ['300ms', 300_000_000n],
    ['2h45m10s', 9_910_000_000_000n],
  ] as const)('%s = %i ns', (text, ns) => {
    expect(parseDuration(text)).toBe(ns);
  });

  it.each(['1 hour', 'h', '10', '1d', '-1h', '1h 30m'])('refuses %j', (bad) => {
    expect(() => parseDuration(bad)).toThrow('is not a duration');
  });

  it.each([
    ['90m', '1h', true],
    ['1h', '1h', false],
    ['1h30m', '90m', false],
    ['0', '8h', true], // infinite asks more than any finite cap
    ['30m', '0', false], // an infinite cap allows anything
    ['0', '0', false],
  ] as const)('%s against cap %s exceeds: %s', (want, cap, exceeds) => {
    expect(exceedsCap(want, cap)).toBe(exceeds);
  });
});
