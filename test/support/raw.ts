import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface RawResponse {
  status: number;
  body: string;
  json<T = unknown>(): T;
}

/** A request to the apiserver with the kubeconfig's credentials, for what the typed client lacks. */
export async function kubeRequest(
  kc: KubeConfig,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: unknown },
): Promise<RawResponse> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  const url = new URL(opts.path, server);
  const options: https.RequestOptions = { method: opts.method ?? 'GET', headers: { ...opts.headers } };
  await kc.applyToHTTPSOptions(options);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = https.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, body, json: <T>() => JSON.parse(body) as T });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) {
      req.setHeader('content-type', opts.headers?.['content-type'] ?? 'application/json');
      req.end(payload);
    } else req.end();
  });
}
