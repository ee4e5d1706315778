// Routes live in the URL's fragment (`#/sandboxes/x/files`): the API serves one shell at `/`,
// and nothing secret is ever part of a route.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'list' }
  | { page: 'create' }
  | { page: 'sandbox'; name: string; tab: string }
  | { page: 'policies' }
  | { page: 'audit' };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'new') return { page: 'create' };
  if (parts[0] === 'sandboxes' && parts[1])
    return { page: 'sandbox', name: parts[1], tab: parts[2] ?? 'overview' };
  if (parts[0] === 'admin' && parts[1] === 'policies') return { page: 'policies' };
  if (parts[0] === 'admin' && parts[1] === 'audit') return { page: 'audit' };
  return { page: 'list' };
}

export const href = {
  list: () => '#/',
  create: () => '#/new',
  sandbox: (name: string, tab = 'overview') => `#/sandboxes/${encodeURIComponent(name)}/${tab}`,
  policies: () => '#/admin/policies',
  audit: () => '#/admin/audit',
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

export function go(to: string): void {
  location.hash = to;
}
