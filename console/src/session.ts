// The signed-in credential: kept in sessionStorage (gone when the tab closes, never in a URL,
// never logged) and turned into a client of the API on this origin.
import { SvcClient } from '../../clients/typescript/index.ts';

export type Credential =
  { kind: 'key'; value: string } | { kind: 'token'; value: string; expiresAt?: number };

const STORAGE_KEY = 'svc.credential';

export function loadCredential(): Credential | undefined {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return undefined;
    const c = JSON.parse(raw) as Credential;
    if (c.kind === 'token' && c.expiresAt !== undefined && c.expiresAt < Date.now()) return undefined;
    return c;
  } catch {
    return undefined;
  }
}

export function saveCredential(c: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(c));
}

export function clearCredential(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

export function clientFor(c: Credential): SvcClient {
  return new SvcClient({
    baseUrl: location.origin,
    ...(c.kind === 'key' ? { apiKey: c.value } : { token: c.value }),
  });
}

/** The credential as request headers, for the few calls made with fetch (uploads with progress). */
export function authHeaders(c: Credential): Record<string, string> {
  return c.kind === 'key' ? { 'x-api-key': c.value } : { authorization: `Bearer ${c.value}` };
}
