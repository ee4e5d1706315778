const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/**
 * A Go-style duration (`1h30m`, `90s`, `1.5h`, `0`) in nanoseconds, exactly. `0` is the
 * spec's "infinite" for timeouts; callers decide what it means.
 * @example parseDuration('1h30m') === parseDuration('90m') // true
 */
export function parseDuration(text: string): bigint {
  if (text === '0') return 0n;
  const parts = [...text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.replace(/^\+/, '')) {
    throw new Error(`"${text}" is not a duration such as 90s or 1h30m`);
  }
  let total = 0n;
  for (const [, amount = '', unit = ''] of parts) {
    const [whole = '', fraction = ''] = amount.split('.');
    const scale = UNITS[unit]!;
    total +=
      BigInt(whole || '0') * scale + (BigInt(fraction || '0') * scale) / 10n ** BigInt(fraction.length);
  }
  return total;
}

export function isDuration(value: unknown): boolean {
  try {
    parseDuration(value as string);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a requested timeout exceeds a cap, where `0` means infinite on both sides: an
 * infinite request exceeds every finite cap, and an infinite (`0`) cap allows anything.
 */
export function exceedsCap(requested: string, cap: string): boolean {
  const want = parseDuration(requested);
  const limit = parseDuration(cap);
  if (limit === 0n) return false;
  return want === 0n || want > limit;
}

/** Milliseconds of a duration, for timers (`0` stays 0: infinite). */
export const durationMs = (text: string) => Number(parseDuration(text) / 1_000_000n);
