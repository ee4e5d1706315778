import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { HttpError, badRequest } from '../errors/index.ts';
import { loadAssets, type Asset } from './assets.ts';

export interface ConsoleOptions {
  /** The built console (`make console` writes `dist/console`): `index.html` and `assets/`. */
  dir: string;
  /** When an OIDC issuer is configured: the console signs in with authorization code + PKCE. */
  oidc?: { issuer: string; clientId: string; scope: string };
}

/**
 * Scripts only from this origin and never inline; requests (WebSockets too, which CSP 3's
 * 'self' covers) only to this origin. `style-src-elem` allows inline `<style>` elements
 * because xterm.js writes its theme and cell sizes into ones it creates at run time; style
 * attributes in markup stay refused.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "style-src-elem 'self' 'unsafe-inline'",
  "style-src-attr 'none'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TokenRequest = z.strictObject({
  code: z.string().min(1).max(4096),
  codeVerifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier'),
  redirectUri: z.url(),
});
const Discovery = z.object({ authorization_endpoint: z.url(), token_endpoint: z.url() });

/**
 * The browser console: its HTML shell at `/` (never cached, so a new build is picked up at
 * once), its assets under `/assets/` (hashed names, cached for a year), `/console/config.json`
 * (how to sign in) and, with OIDC, `/console/oidc/token`, which exchanges the authorization
 * code at the issuer for the browser so that the console's CSP can keep `connect-src 'self'`.
 */
export function consoleRoutes(opts: ConsoleOptions): Hono {
  const { shell, assets } = loadAssets(opts.dir);
  const app = new Hono();
  // Mounted at the root beside the API: only the console's own paths get its headers.
  const secure: MiddlewareHandler = async (c, next) => {
    await next();
    c.header('content-security-policy', CONTENT_SECURITY_POLICY);
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    c.header('x-frame-options', 'DENY');
  };
  for (const path of ['/', '/assets/*', '/console/*']) app.use(path, secure);

  app.get('/', (c) => send(c, shell, 'no-cache'));
  app.get('/assets/:name', (c) => {
    const asset = assets.get(c.req.param('name'));
    if (!asset) throw new HttpError(404, 'not_found', 'no such console asset');
    return send(c, asset, 'public, max-age=31536000, immutable');
  });

  // Discovered once, on the first sign-in that needs it (the issuer may start after us).
  let discovery: Promise<z.infer<typeof Discovery>> | undefined;
  const discover = () => {
    const url = `${opts.oidc!.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    discovery ??= fetch(url, { signal: AbortSignal.timeout(10_000) })
      .then(async (res) => {
        if (!res.ok) throw new Error(`OIDC discovery at ${url} answered ${res.status}`);
        return Discovery.parse(await res.json());
      })
      .catch((err: unknown) => {
        discovery = undefined;
        throw new HttpError(502, 'oidc_unavailable', `the OIDC issuer could not be reached: ${String(err)}`);
      });
    return discovery;
  };

  app.get('/console/config.json', async (c) => {
    c.header('cache-control', 'no-cache');
    if (!opts.oidc) return c.json({ oidc: null });
    const { authorization_endpoint } = await discover();
    return c.json({
      oidc: {
        authorizationEndpoint: authorization_endpoint,
        clientId: opts.oidc.clientId,
        scope: opts.oidc.scope,
      },
    });
  });

  app.post('/console/oidc/token', async (c) => {
    if (!opts.oidc) throw new HttpError(404, 'not_found', 'no OIDC issuer is configured');
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw badRequest('request body is not valid JSON');
    }
    const body = TokenRequest.safeParse(raw);
    if (!body.success) throw badRequest('expected {code, codeVerifier, redirectUri}');
    const { token_endpoint } = await discover();
    const res = await fetch(token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: body.data.code,
        code_verifier: body.data.codeVerifier,
        redirect_uri: body.data.redirectUri,
        client_id: opts.oidc.clientId,
      }),
      signal: AbortSignal.timeout(10_000),
    }).catch((err: unknown) => {
      throw new HttpError(502, 'oidc_unavailable', `the OIDC issuer could not be reached: ${String(err)}`);
    });
    const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok || typeof answer.access_token !== 'string') {
      const why = typeof answer.error === 'string' ? answer.error : `HTTP ${res.status}`;
      throw new HttpError(401, 'unauthenticated', `the OIDC issuer refused the sign-in: ${why}`);
    }
    // Only the access token goes back: the API needs nothing else, and a refresh token kept
    // in a browser's storage would outlive the session.
    c.header('cache-control', 'no-store');
    return c.json({
      accessToken: answer.access_token,
      expiresIn: typeof answer.expires_in === 'number' ? answer.expires_in : undefined,
    });
  });
  return app;
}

function send(c: Context, asset: Asset, cacheControl: string): Response {
  const gzip = asset.gzip && /\bgzip\b/.test(c.req.header('accept-encoding') ?? '');
  const body = gzip ? asset.gzip! : asset.body;
  const headers: Record<string, string> = {
    'content-type': asset.type,
    'cache-control': cacheControl,
    vary: 'accept-encoding',
    'content-length': String(body.byteLength),
  };
  if (gzip) headers['content-encoding'] = 'gzip';
  return c.body(body as Uint8Array<ArrayBuffer>, 200, headers);
}
