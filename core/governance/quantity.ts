/**
 * Kubernetes resource quantities compared exactly. A quantity is held as a fraction of
 * BigInts, so `1` equals `1000m`, `1Gi` equals `1073741824` and `0.1` is really a tenth:
 * no floating point anywhere.
 */
export interface Quantity {
  num: bigint;
  den: bigint;
}

const BINARY: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const PATTERN = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/**
 * Parses `500m`, `2Gi`, `1.5`, `1e3` or an integer.
 * @example parseQuantity('1500m') // { num: 3n, den: 2n }
 */
export function parseQuantity(value: string | number): Quantity {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const m = PATTERN.exec(text);
  if (!m) throw new Error(`"${String(value)}" is not a Kubernetes quantity`);
  const [, sign, digits = '', exponent, suffix = ''] = m;
  const [whole = '', fraction = ''] = digits.split('.');
  let num = BigInt((whole || '0') + fraction) * (sign === '-' ? -1n : 1n);
  let den = 10n ** BigInt(fraction.length);
  const scale = exponent ? Number(exponent.slice(1)) : suffix in BINARY ? 0 : (DECIMAL[suffix] ?? 0);
  if (suffix in BINARY) num *= BINARY[suffix]!;
  if (scale >= 0) num *= 10n ** BigInt(scale);
  else den *= 10n ** BigInt(-scale);
  return reduce({ num, den });
}

/** -1, 0 or 1 as `a` is below, equal to or above `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.num * b.den;
  const right = b.num * a.den;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function isQuantity(value: unknown): boolean {
  try {
    parseQuantity(value as string);
    return true;
  } catch {
    return false;
  }
}

function reduce(q: Quantity): Quantity {
  const g = gcd(q.num < 0n ? -q.num : q.num, q.den);
  return g > 1n ? { num: q.num / g, den: q.den / g } : q;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}
