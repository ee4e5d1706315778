// What the egress e2e test and `make bench-egress` share: servers of our own inside the
// cluster (a plain HTTP one and a TLS one, Services named by DNS), and the client that runs
// in a sandbox and goes through the proxy its environment names, as curl does.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';

const run = promisify(execFile);

/** The svc image (images.sh imports it into every node): Node for the servers and the client. */
export const NODE_IMAGE = 'localhost/svc/svc:dev';

/**
 * The servers' script: `web` (HTTP, 8080) and `tls` (HTTPS, 8443) answer `hello from <name>\n`
 * on any path, and `/bytes/<n>` with n zero bytes (what the bench downloads).
 */
const SERVER = `
import http from 'node:http';
import https from 'node:https';
import { readFileSync } from 'node:fs';
const zeros = Buffer.alloc(1 << 20);
const handler = (name) => (req, res) => {
  const m = /^\\/bytes\\/(\\d+)$/.exec(req.url);
  if (!m) return res.end('hello from ' + name + '\\n');
  let left = Number(m[1]);
  res.writeHead(200, { 'content-length': left });
  const more = () => {
    while (left > 0) {
      const n = Math.min(left, zeros.length);
      left -= n;
      if (!res.write(n === zeros.length ? zeros : zeros.subarray(0, n))) return res.once('drain', more);
    }
    res.end();
  };
  more();
};
http.createServer(handler('web')).listen(8080);
https
  .createServer({ cert: readFileSync('/srv/tls.crt'), key: readFileSync('/srv/tls.key') }, handler('tls'))
  .listen(8443);
`;

/**
 * The client, run in a sandbox as `node --input-type=module -e CLIENT URL [SNI]`: a GET of URL
 * through `HTTP_PROXY` (absolute form) or `HTTPS_PROXY` (CONNECT, then TLS with SNI, the URL's
 * host unless given, trusting /workspace/ca.pem). Prints one JSON line: `{status, body}`, or
 * `{error}` (the error's code, or that the tunnel closed before the TLS handshake) when the
 * connection failed.
 */
export const CLIENT = `
import http from 'node:http';
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
const [target, sni] = process.argv.slice(1);
const url = new URL(target);
const proxy = new URL(url.protocol === 'https:' ? process.env.HTTPS_PROXY : process.env.HTTP_PROXY);
const out = (o) => { console.log(JSON.stringify(o)); process.exit(0); };
const fail = (e) => out({ error: e.code || e.message });
const collect = (stream, first, done) => {
  let text = first;
  stream.setEncoding('utf8');
  stream.on('data', (c) => (text += c));
  stream.on('end', () => done(text));
};
if (url.protocol === 'http:') {
  const req = http.request({ host: proxy.hostname, port: proxy.port, path: url.href, agent: false }, (res) =>
    collect(res, '', (body) => out({ status: res.statusCode, body })),
  );
  req.on('error', fail);
  req.end();
} else {
  const req = http.request({
    host: proxy.hostname,
    port: proxy.port,
    method: 'CONNECT',
    path: url.hostname + ':' + (url.port || 443),
    agent: false,
  });
  req.on('connect', (res, socket, head) => {
    if (res.statusCode !== 200) return collect(socket, head.toString('utf8'), (body) => out({ status: res.statusCode, body }));
    let secure = false;
    const t = tls.connect({ socket, servername: sni || url.hostname, ca: readFileSync('/workspace/ca.pem') }, () => {
      secure = true;
      t.write('GET ' + url.pathname + ' HTTP/1.1\\r\\nHost: ' + url.host + '\\r\\nConnection: close\\r\\n\\r\\n');
    });
    // The tunnel closed (an end or a reset, whichever the client sees first) before the handshake.
    const cut = () => out({ error: 'tunnel closed before the TLS handshake' });
    t.on('error', (e) => (secure ? fail(e) : cut()));
    t.on('end', () => secure || cut());
    collect(t, '', (text) => {
      const i = text.indexOf('\\r\\n\\r\\n');
      out({ status: Number(text.slice(0, i).split(' ')[1]), body: text.slice(i + 4) });
    });
  });
  req.on('error', fail);
  req.end();
}
`;

/** The servers' names, by DNS from anywhere in the cluster. */
export function serverHosts(namespace: string): { web: string; tls: string; other: string } {
  const fqdn = (s: string) => `${s}.${namespace}.svc.cluster.local`;
  return { web: fqdn('web'), tls: fqdn('tls'), other: fqdn('other') };
}

/**
 * The servers' objects in `namespace` (made by the caller with kubectl): a Namespace, a
 * ConfigMap with the script and a certificate for both names (made here with openssl, by a CA
 * of the caller's own), one Pod, and Services `web` (80), `tls` (443) and `other` (80, the
 * same Pod: a host that exists but no list names). Resolves with the YAML and the CA's PEM.
 */
export async function serverManifests(namespace: string): Promise<{ yaml: string; caPem: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-e2e-egress-'));
  try {
    const hosts = serverHosts(namespace);
    const p = (f: string) => join(dir, f);
    await run('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', p('ca.key'), '-out', p('ca.crt'), '-days', '2', '-subj', '/CN=svc-e2e-egress-ca'],
    ]);
    await writeFile(
      p('tls.ext'),
      `subjectAltName=DNS:${hosts.tls},DNS:${hosts.web}\nextendedKeyUsage=serverAuth\n`,
    );
    await run('openssl', [
      ...['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'],
      ...['-keyout', p('tls.key'), '-out', p('tls.csr'), '-subj', `/CN=${hosts.tls}`],
    ]);
    await run('openssl', [
      ...['x509', '-req', '-in', p('tls.csr'), '-CA', p('ca.crt'), '-CAkey', p('ca.key')],
      ...['-CAcreateserial', '-out', p('tls.crt'), '-days', '2', '-extfile', p('tls.ext')],
    ]);
    const [caPem, crt, key] = await Promise.all(
      ['ca.crt', 'tls.crt', 'tls.key'].map((f) => readFile(p(f), 'utf8')),
    );
    const labels = { app: 'egress-servers' };
    const service = (name: string, port: number, targetPort: number) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { selector: labels, ports: [{ port, targetPort }] },
    });
    const objects = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'servers', namespace },
        data: { 'server.mjs': SERVER, 'tls.crt': crt, 'tls.key': key },
      },
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'servers', namespace, labels },
        spec: {
          containers: [
            {
              name: 'servers',
              image: NODE_IMAGE,
              imagePullPolicy: 'Never',
              command: ['node', '/srv/server.mjs'],
              ports: [{ containerPort: 8080 }, { containerPort: 8443 }],
              readinessProbe: { tcpSocket: { port: 8443 }, periodSeconds: 1 },
              resources: { requests: { cpu: '50m', memory: '64Mi' } },
              volumeMounts: [{ name: 'srv', mountPath: '/srv' }],
            },
          ],
          volumes: [{ name: 'srv', configMap: { name: 'servers' } }],
        },
      },
      service('web', 80, 8080),
      service('tls', 443, 8443),
      service('other', 80, 8080),
    ];
    return { yaml: objects.map((o) => stringify(o)).join('---\n'), caPem: caPem! };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A ClusterSandboxTemplate of the svc image (Node, bash), small, with `network`. */
export function nodeTemplate(name: string, network: Record<string, unknown>): string {
  return stringify({
    apiVersion: 'svc.io/v1alpha1',
    kind: 'ClusterSandboxTemplate',
    metadata: { name },
    spec: {
      image: NODE_IMAGE,
      command: ['sleep', 'infinity'],
      resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { cpu: '1', memory: '512Mi' } },
      storage: { size: '1Gi' },
      timeout: '2h',
      network,
    },
  });
}
