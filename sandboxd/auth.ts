import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A bearer-token check in constant time: both sides are hashed first, so neither the
 * token's length nor a matching prefix shows in the timing.
 */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const presented = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
    return timingSafeEqual(createHash('sha256').update(presented).digest(), expected);
  };
}
