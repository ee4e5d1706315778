/** Hop-by-hop headers (RFC 9110 §7.6.1) and the caller's credentials never reach the sandbox. */
const DROPPED = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'authorization',
  'x-api-key',
  'content-length',
]);

export function forwardHeaders(
  incoming: Headers,
  opts: { host: string; proto: string; prefix: string },
): Headers {
  const out = new Headers();
  incoming.forEach((value, name) => {
    if (!DROPPED.has(name.toLowerCase())) out.set(name, value);
  });
  out.set('x-forwarded-host', opts.host);
  out.set('x-forwarded-proto', opts.proto);
  out.set('x-forwarded-prefix', opts.prefix);
  return out;
}

export function responseHeaders(incoming: Headers): Headers {
  const out = new Headers();
  incoming.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (!DROPPED.has(lower) || lower === 'content-length') out.append(name, value);
  });
  return out;
}
