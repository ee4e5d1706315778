import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { setCreatedBy } from './created-by.ts';
import type { WebhookMetrics } from './metrics.ts';
import { checkImmutable } from './immutable.ts';
import { AdmissionReview, respond, type AdmissionRequest, type Verdict } from './review.ts';

export interface WebhookOptions {
  tls: { cert: string; key: string };
  listen: { host: string; port: number };
  logger: Logger;
  /** `system:serviceaccount:<ns>:<name>` of the API, trusted to set createdBy itself. */
  apiServiceAccount?: string;
  /** Governance on create: a denial verdict, or allowed. Plugged in by `cmd/webhook.ts`. */
  admitCreate?: (request: AdmissionRequest) => Promise<Verdict>;
  /** Governance of SandboxWarmPools (create and update): their template and image. */
  admitWarmPool?: (request: AdmissionRequest) => Promise<Verdict>;
  /** Further checks on update, after immutability (credentials changed by an update). */
  admitUpdate?: (request: AdmissionRequest) => Promise<Verdict>;
  /** Counts and times every review answered. */
  metrics?: WebhookMetrics;
}

/**
 * The largest AdmissionReview read. The apiserver takes a write of at most 3 MiB
 * (`--max-resource-write-bytes`) and etcd keeps objects of at most 1.5 MiB (its
 * `--max-request-bytes`); a review carries the object and, on UPDATE, the old one, plus a
 * small envelope: 4 MiB holds any review the apiserver can send, and a Sandbox or warm pool
 * is a few KiB.
 */
export const MAX_REVIEW_BYTES = 4 * 1024 * 1024;
/** What a refused sender may still send, read and dropped, before its connection is cut. */
const MAX_DRAIN_BYTES = 4 * MAX_REVIEW_BYTES;

export const PATHS = {
  mutate: '/mutate-sandbox',
  validate: '/validate-sandbox',
  validateWarmPool: '/validate-sandboxwarmpool',
} as const;

/** The admission webhook: a Defaulter (createdBy) and a Validator (governance, immutability). */
export async function startWebhook(opts: WebhookOptions): Promise<{ port: number; close(): Promise<void> }> {
  const handlers: Record<string, (r: AdmissionRequest) => Promise<Verdict>> = {
    [PATHS.mutate]: (r) => Promise.resolve(setCreatedBy(r, opts)),
    [PATHS.validate]: async (r) => {
      if (r.operation === 'UPDATE') {
        const immutable = checkImmutable(
          r.oldObject?.spec as Record<string, unknown>,
          r.object?.spec as Record<string, unknown>,
        );
        return immutable.allowed && opts.admitUpdate ? opts.admitUpdate(r) : immutable;
      }
      if (r.operation === 'CREATE' && opts.admitCreate) return opts.admitCreate(r);
      return { allowed: true };
    },
    [PATHS.validateWarmPool]: (r) =>
      opts.admitWarmPool ? opts.admitWarmPool(r) : Promise.resolve({ allowed: true }),
  };
  const server: Server = createServer({ cert: opts.tls.cert, key: opts.tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    // Past the bound, nothing more is kept: the refusal goes out at once and the rest is
    // read only to be dropped (so the sender sees the 413, not a reset), up to a point.
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      res.writeHead(413, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: 'payload_too_large',
          message: `an AdmissionReview is at most ${MAX_REVIEW_BYTES} bytes`,
        }),
      );
    };
    if (Number(req.headers['content-length'] ?? 0) > MAX_REVIEW_BYTES) refuse();
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (refused) {
        if (size > MAX_DRAIN_BYTES) req.destroy();
        return;
      }
      if (size > MAX_REVIEW_BYTES) return refuse();
      chunks.push(c);
    });
    req.on('end', () => {
      if (refused) return;
      const handler = handlers[(req.url ?? '').split('?')[0]!];
      const parsed = AdmissionReview.safeParse(safeJson(Buffer.concat(chunks).toString()));
      if (!handler || req.method !== 'POST' || !parsed.success) {
        res.writeHead(handler ? 400 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: handler ? 'not an AdmissionReview' : 'not found' }));
        return;
      }
      const request = parsed.data.request;
      const started = performance.now();
      handler(request)
        .catch((err: unknown): Verdict => {
          opts.logger.error({ err, uid: request.uid }, 'admission check failed');
          return {
            allowed: false,
            reason: 'internal',
            message: 'admission check failed; see the webhook log',
          };
        })
        .then((verdict) => {
          opts.logger.info(
            {
              uid: request.uid,
              path: req.url,
              operation: request.operation,
              user: request.userInfo.username,
              allowed: verdict.allowed,
              reason: verdict.reason,
            },
            'admission',
          );
          opts.metrics?.observe(
            req.url?.startsWith(PATHS.mutate) ? 'mutate' : 'validate',
            request.operation,
            verdict.allowed,
            (performance.now() - started) / 1000,
          );
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(respond(request.uid, verdict)));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.listen.port, opts.listen.host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
