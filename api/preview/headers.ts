/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never forwarded. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Request headers the app in the sandbox never sees: the caller's credentials for this API
 * (its key, bearer token and cookies: the app must not be able to act as the caller), and
 * the forwarding headers, which only we set (a caller could otherwise claim any address).
 */
export const NOT_FORWARDED = new Set([
  ...HOP_BY_HOP,
  'host',
  'content-length',
  'authorization',
  'x-api-key',
  'cookie',
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-prefix',
  'x-real-ip',
]);

/**
 * Every proxied response is a sandboxed document: scripts and forms run, but in an opaque
 * origin (no `allow-same-origin`), so an app's page cannot read this origin's storage or
 * cookies nor call the API with them. Added beside any policy of the app's own: browsers
 * enforce every policy sent, so the app can tighten it but never loosen it.
 */
export const PREVIEW_CSP = 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads';

export function forwardHeaders(
  incoming: Headers,
  opts: { host: string; proto: string; prefix: string; clientAddress?: string },
): Headers {
  const out = new Headers();
  incoming.forEach((value, name) => {
    if (!NOT_FORWARDED.has(name.toLowerCase())) out.set(name, value);
  });
  if (opts.clientAddress) out.set('x-forwarded-for', opts.clientAddress);
  out.set('x-forwarded-host', opts.host);
  out.set('x-forwarded-proto', opts.proto);
  out.set('x-forwarded-prefix', opts.prefix);
  return out;
}

/**
 * Codings that `fetch` undoes on its own: a response in one of them reaches us decoded, so
 * its `Content-Encoding` and `Content-Length` describe bytes we no longer send.
 */
const DECODED_BY_FETCH = new Set(['gzip', 'x-gzip', 'deflate', 'br', 'zstd']);

/**
 * Response headers that act on this API's origin rather than describe the app's page:
 * `Set-Cookie` would land beside the caller's own session; `Clear-Site-Data` would wipe the
 * console's storage (its key) on this origin; `Refresh` would send the browser anywhere;
 * `Access-Control-*` would let other sites read this origin's answers. Apps that need them
 * are served on the preview domain (`previewUrl`), their own origin.
 */
const ACTING_ON_OUR_ORIGIN = new Set(['set-cookie', 'clear-site-data', 'refresh']);

/**
 * A redirect the browser may follow: one that stays on this origin (a relative path, like
 * `login`, `/x` or `?page=2`, or an absolute URL of this very origin). Anything else, `//other`
 * and `/\other` included (browsers read both as another host), would make the preview an
 * open redirect of this API's origin. Resolved as browsers do, by the WHATWG URL parser.
 */
export function sameOriginLocation(location: string, requestUrl: string | URL): boolean {
  try {
    const here = new URL(requestUrl);
    return new URL(location, here).origin === here.origin;
  } catch {
    return false;
  }
}

/**
 * The app's response headers, less hop-by-hop ones, those that act on this origin (above)
 * and a `Location` that leaves it. `requestUrl` is the preview request's own URL (the
 * origin the browser sees).
 */
export function responseHeaders(incoming: Headers, requestUrl: string | URL): Headers {
  const codings = (incoming.get('content-encoding') ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  const decoded = codings.length > 0 && codings.every((c) => DECODED_BY_FETCH.has(c));
  const out = new Headers();
  incoming.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.includes(lower) || ACTING_ON_OUR_ORIGIN.has(lower)) return;
    if (lower.startsWith('access-control-')) return;
    if (lower === 'location' && !sameOriginLocation(value, requestUrl)) return;
    if (decoded && (lower === 'content-encoding' || lower === 'content-length')) return;
    out.append(name, value);
  });
  out.append('content-security-policy', PREVIEW_CSP);
  return out;
}
