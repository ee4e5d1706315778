// make bench-egress: throughput and connection setup through the egress gateway against a
// direct connection to the same server, on a real cluster of this machine (bench/real.ts).
// The server is e2e's (e2e/support/egress.ts: a Pod of the svc image, Service `web`); the
// clients are two sandboxes of the svc image: one of an `allowlist` template (only the
// gateway's way out, through a CONNECT tunnel: the path HTTPS takes) and one of egress `all`
// (straight to the Service). Rounds alternate proxy and direct. One JSON line on stdout.
//
//   BENCH_RUNS   rounds (default 5), each one download and BENCH_CONNECTS setups each way
//   BENCH_MB     the download's size in MiB (default 256)
//   BENCH_CONNECTS  setups per round each way (default 20)
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { SvcClient } from '../clients/typescript/index.ts';
import { nodeTemplate, serverHosts, serverManifests } from '../e2e/support/egress.ts';
import { startRealCluster } from './real.ts';
import { median, round } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MB = Number(process.env.BENCH_MB ?? 256);
const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 20);
const say = (line: string) => process.stderr.write(`bench: ${line}\n`);

/**
 * Run in a sandbox as `node --input-type=module -e PROBE MODE HOST BYTES CONNECTS`: MODE
 * `proxy` opens a CONNECT tunnel to HOST:80 through HTTP_PROXY for each connection, `direct`
 * connects to HOST:80. One GET /bytes/BYTES timed from the first byte of the response to the
 * last (MB/s), and CONNECTS fresh connections timed from the connect to the first byte of a
 * `GET /` (ms). Prints `{"mbs":…, "connectMs":[…]}`.
 */
const PROBE = `
import net from 'node:net';
const [mode, host, bytes, connects] = process.argv.slice(1);
const proxy = new URL(process.env.HTTP_PROXY || 'http://unset:1');
const open = () => new Promise((resolve, reject) => {
  if (mode === 'direct') {
    const s = net.connect(80, host, () => resolve(s));
    s.once('error', reject);
    return;
  }
  const s = net.connect(Number(proxy.port), proxy.hostname, () =>
    s.write('CONNECT ' + host + ':80 HTTP/1.1\\r\\nHost: ' + host + ':80\\r\\n\\r\\n'));
  s.once('error', reject);
  let head = '';
  const onData = (c) => {
    head += c.toString('latin1');
    const i = head.indexOf('\\r\\n\\r\\n');
    if (i < 0) return;
    s.off('data', onData);
    if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(head.split('\\r\\n')[0]));
    resolve(s);
  };
  s.on('data', onData);
});
const get = (s, path, onFirst) => new Promise((resolve, reject) => {
  let n = 0, first = 0;
  s.on('data', (c) => { if (!first) { first = performance.now(); onFirst?.(); } n += c.length; });
  s.on('end', () => resolve({ n, first, last: performance.now() }));
  s.on('error', reject);
  s.write('GET ' + path + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n\\r\\n');
});
const connectMs = [];
for (let i = 0; i < Number(connects); i++) {
  const t0 = performance.now();
  const s = await open();
  let t1 = 0;
  await get(s, '/', () => (t1 = performance.now()));
  connectMs.push(t1 - t0);
}
const s = await open();
const r = await get(s, '/bytes/' + bytes);
if (r.n < Number(bytes)) throw new Error('short download: ' + r.n);
console.log(JSON.stringify({ mbs: r.n / 1048576 / ((r.last - r.first) / 1000), connectMs }));
`;

async function main(): Promise<void> {
  const cluster = await startRealCluster(Number(process.env.NODES ?? 1));
  const { env, state } = cluster;
  const client = new SvcClient({ baseUrl: env.baseUrl, apiKey: env.keys.alice, namespace: env.namespace });
  const suffix = randomBytes(3).toString('hex');
  const ns = `bench-egress-${suffix}`;
  const hosts = serverHosts(ns);
  const templates = { proxy: `bench-egress-p-${suffix}`, direct: `bench-egress-d-${suffix}` };
  const sandboxes = { proxy: `bench-egress-p-${suffix}`, direct: `bench-egress-d-${suffix}` };
  const kubectl = (args: string[], stdin?: string) =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(join(state, 'kubectl'), args, { maxBuffer: 1 << 24 }, (err, out, stderr) =>
        err ? reject(new Error(`kubectl ${args.join(' ')}: ${stderr}`)) : resolve(out),
      );
      child.stdin!.end(stdin ?? '');
    });
  cluster.beforeClose(async () => {
    await Promise.all(Object.values(sandboxes).map((n) => client.deleteSandbox(n).catch(() => undefined)));
    await kubectl([
      'delete',
      'clustersandboxtemplate',
      '--ignore-not-found',
      ...Object.values(templates),
    ]).catch(() => undefined);
    await kubectl(['delete', 'namespace', '--ignore-not-found', '--wait=false', ns]).catch(() => undefined);
  });
  try {
    await kubectl(['apply', '-f', '-'], (await serverManifests(ns)).yaml);
    await kubectl(
      ['apply', '-f', '-'],
      [
        nodeTemplate(templates.proxy, { egress: 'allowlist', allowedHosts: [hosts.web] }),
        nodeTemplate(templates.direct, { egress: 'all' }),
      ].join('---\n'),
    );
    await Promise.all(
      (['proxy', 'direct'] as const).map((k) =>
        client.createSandbox({ name: sandboxes[k], mode: 'code', templateRef: { name: templates[k] } }),
      ),
    );
    await kubectl(['wait', '-n', ns, '--for=condition=Ready', 'pod/servers', '--timeout=300s']);
    await Promise.all(
      Object.values(sandboxes).map((n) => client.waitForPhase(n, 'Running', { timeoutMs: 300_000 })),
    );
    const probe = async (mode: 'proxy' | 'direct', connects: number, bytes: number) => {
      const r = await client.execSandbox(sandboxes[mode], {
        command: [
          'node',
          '--input-type=module',
          '-e',
          PROBE,
          mode,
          hosts.web,
          String(bytes),
          String(connects),
        ],
      });
      if (r.exitCode !== 0) throw new Error(`${mode}: ${r.stderr}`);
      return JSON.parse(r.stdout) as { mbs: number; connectMs: number[] };
    };
    // Until the CNI admits the new Pod to the gateway and the gateway knows its address.
    for (let i = 0; ; i++) {
      const ok = await probe('proxy', 1, 1).then(
        () => true,
        (err: Error) => (i > 120 ? Promise.reject(err) : false),
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await probe('direct', 1, 1);
    const mbs = { proxy: [] as number[], direct: [] as number[] };
    const connect = { proxy: [] as number[], direct: [] as number[] };
    const loads: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Alternating, the first of a round switching, so neither side always goes first.
      const order = i % 2 === 0 ? (['proxy', 'direct'] as const) : (['direct', 'proxy'] as const);
      for (const mode of order) {
        const r = await probe(mode, CONNECTS, MB * 1048576);
        mbs[mode].push(r.mbs);
        connect[mode].push(...r.connectMs);
        loads.push(loadavg()[0]!);
        say(
          `round ${i + 1} ${mode}: ${r.mbs.toFixed(1)} MB/s, connect p50 ${median(r.connectMs).toFixed(2)} ms`,
        );
      }
    }
    const proxyMbs = median(mbs.proxy);
    const directMbs = median(mbs.direct);
    say(
      `load average (1 min) during the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
    );
    console.log(
      JSON.stringify({
        bench: 'egress',
        cluster: 'real',
        proxy_mb_s: round(proxyMbs, 1),
        direct_mb_s: round(directMbs, 1),
        mb_s_ratio: round(proxyMbs / directMbs, 3),
        proxy_connect_p50_ms: round(median(connect.proxy), 2),
        direct_connect_p50_ms: round(median(connect.direct), 2),
        runs: RUNS,
        mb: MB,
        connects: RUNS * CONNECTS,
        load1: round(median(loads), 1),
      }),
    );
  } finally {
    await cluster.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
