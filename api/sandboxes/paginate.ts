import type { Sandbox } from '../../core/index.ts';

/**
 * A stable page of sandboxes ordered by name. The continue token is the last name served
 * (base64url), so a page stays correct while sandboxes come and go between calls.
 */
export function paginate(
  sandboxes: readonly Sandbox[],
  limit: number,
  token: string | undefined,
): { items: Sandbox[]; continue?: string } {
  const after = token ? Buffer.from(token, 'base64url').toString() : '';
  const sorted = [...sandboxes]
    .filter((s) => (s.metadata.name ?? '') > after)
    .sort((a, b) => byName(a.metadata.name ?? '', b.metadata.name ?? ''));
  const items = sorted.slice(0, limit);
  const last = items.at(-1)?.metadata.name;
  return sorted.length > limit && last
    ? { items, continue: Buffer.from(last).toString('base64url') }
    : { items };
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
