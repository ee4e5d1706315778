// Egress by host name on a real cluster (issue 35): servers of our own inside the cluster,
// named by DNS; sandboxes of `allowlist` templates going out through the chart's gateway
// (`svc egress`, two replicas) by the proxy their environment names; the NetworkPolicy
// dropping what skips it, by packets; and every decision on the audit trail, exactly.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { CLIENT, nodeTemplate, serverHosts, serverManifests } from './support/egress.ts';
import { e2eEnv, kubectl, sandboxName, svcClient, tcpProbe, waitUntil } from './support/index.ts';

const alice = svcClient('alice');
const suffix = randomBytes(3).toString('hex');
const serversNs = `e2e-egress-${suffix}`;
const hosts = serverHosts(serversNs);
const templates = {
  a: `e2e-egress-a-${suffix}`,
  b: `e2e-egress-b-${suffix}`,
  open: `e2e-egress-all-${suffix}`,
};
/** a: both servers; b: only the TLS one; open: egress `all`, the control for direct connections. */
const a = sandboxName('e2e-egress-a');
const b = sandboxName('e2e-egress-b');
const open = sandboxName('e2e-egress-all');

interface Answer {
  status?: number;
  body?: string;
  error?: string;
}

/** A GET of `url` from inside `sandbox` through its proxy variables (CLIENT), with `sni` for a TLS one. */
async function get(sandbox: string, url: string, sni?: string): Promise<Answer> {
  const r = await alice.execSandbox(sandbox, {
    command: ['node', '--input-type=module', '-e', CLIENT, url, ...(sni ? [sni] : [])],
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Answer;
}

/**
 * The first GET of a sandbox, repeated until the gateway answers as a sandbox's: right after
 * Running the CNI may not yet admit the Pod to the gateway (a connection error), and a
 * gateway's informer may not yet know its address (403 "no sandbox has that address"). Neither
 * is an audit record (no sandbox to hang it on), so the trail still holds exactly one.
 */
async function firstGet(sandbox: string, url: string): Promise<Answer> {
  return waitUntil(
    `${sandbox}: ${url} through the gateway`,
    () => get(sandbox, url),
    (r) => r.error === undefined && !/no sandbox has that address/.test(r.body ?? ''),
    120_000,
  );
}

function core(): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

beforeAll(async () => {
  const { yaml, caPem } = await serverManifests(serversNs);
  await kubectlApply(yaml);
  await kubectlApply(
    [
      nodeTemplate(templates.a, { egress: 'allowlist', allowedHosts: [hosts.web, `${hosts.tls}:443`] }),
      nodeTemplate(templates.b, { egress: 'allowlist', allowedHosts: [`${hosts.tls}:443`] }),
      nodeTemplate(templates.open, { egress: 'all' }),
    ].join('---\n'),
  );
  await Promise.all([
    alice.createSandbox({ name: a, mode: 'code', templateRef: { name: templates.a } }),
    alice.createSandbox({ name: b, mode: 'code', templateRef: { name: templates.b } }),
    alice.createSandbox({ name: open, mode: 'code', templateRef: { name: templates.open } }),
  ]);
  await kubectl(['wait', '-n', serversNs, '--for=condition=Ready', 'pod/servers', '--timeout=240s'], {
    timeoutMs: 250_000,
  });
  await Promise.all([a, b, open].map((n) => alice.waitForPhase(n, 'Running', { timeoutMs: 240_000 })));
  // The CA the TLS server's certificate is signed by, where CLIENT reads it.
  await Promise.all(
    [a, b].map(async (n) => {
      const r = await alice.execSandbox(n, {
        command: ['bash', '-c', 'printf %s "$0" > /workspace/ca.pem', caPem],
      });
      expect(r.exitCode, r.stderr).toBe(0);
    }),
  );
}, 600_000);

afterAll(async () => {
  await Promise.all(
    [a, b, open].map((n) =>
      alice.deleteSandbox(n).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      }),
    ),
  );
  await kubectl(['delete', 'clustersandboxtemplate', '--ignore-not-found', ...Object.values(templates)]);
  await kubectl(['delete', 'namespace', '--ignore-not-found', '--wait=false', serversNs]);
}, 120_000);

/** `STATE/kubectl apply -f -` of a YAML stream, as the cluster's admin (a platform team's step). */
async function kubectlApply(yaml: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(join(e2eEnv().state, 'kubectl'), ['apply', '-f', '-'], (err, _out, stderr) =>
      err ? reject(new Error(`kubectl apply: ${err.message}\n${stderr}`)) : resolve(),
    );
    child.stdin!.end(yaml);
  });
}

/** An audit record, as the message says it (docs/egress.md, "The record"). */
interface EgressRecord {
  sandbox: string;
  reason: string;
  type: string;
  actor: string | null;
  host: string;
  port: number;
  decision: string;
  connections: number;
  bytesOut: number;
  bytesIn: number;
  refusal?: string;
}

async function egressRecords(sandbox: string): Promise<EgressRecord[]> {
  const list = await alice.listAuditEvents({ category: 'egress', sandbox });
  return list.items.map((e) => {
    const m =
      /^(\S+):(\d+) (allowed|denied): (\d+) connections?, (\d+) bytes out, (\d+) bytes in, \d+ ms(?:; (.*))?$/.exec(
        e.message,
      );
    expect(m, e.message).not.toBeNull();
    return {
      sandbox: e.sandbox,
      reason: e.reason,
      type: e.type,
      actor: e.actor,
      host: m![1]!,
      port: Number(m![2]),
      decision: m![3]!,
      connections: Number(m![4]),
      bytesOut: Number(m![5]),
      bytesIn: Number(m![6]),
      ...(m![7] === undefined ? {} : { refusal: m![7] }),
    };
  });
}

const byHost = (x: EgressRecord, y: EgressRecord) =>
  `${x.host}:${x.port}:${x.decision}`.localeCompare(`${y.host}:${y.port}:${y.decision}`);

describe('egress by host name through the gateway, on a real cluster', () => {
  it('the sandbox is given the gateway as its proxy', async () => {
    const r = await alice.execSandbox(a, {
      command: ['bash', '-c', 'echo "$HTTP_PROXY $HTTPS_PROXY $NO_PROXY"'],
    });
    expect(r.stdout).toBe(
      'http://svc-egress.svc-system.svc:3128 http://svc-egress.svc-system.svc:3128 localhost,127.0.0.1,::1\n',
    );
  });

  it('an allowlisted host is reached over HTTP and over TLS through the gateway', async () => {
    expect(await firstGet(a, `http://${hosts.web}/`)).toEqual({ status: 200, body: 'hello from web\n' });
    expect(await get(a, `https://${hosts.tls}/`)).toEqual({ status: 200, body: 'hello from tls\n' });
  });

  it('a host not on the list is refused: 403 and its one-line reason', async () => {
    expect(await get(a, `http://${hosts.other}/`)).toEqual({
      status: 403,
      body: `svc egress: ${hosts.other} is not allowed for sandbox ${a}\n`,
    });
  });

  it('a direct connection to the allowed host’s address, bypassing the proxy, is dropped by the NetworkPolicy', async () => {
    const pod = (await core().readNamespacedPod({ name: 'servers', namespace: serversNs })).status!.podIP!;
    const service = async (name: string) =>
      (await core().readNamespacedService({ name, namespace: serversNs })).spec!.clusterIP!;
    const [web, tls] = await Promise.all([service('web'), service('tls')]);
    // The control: the servers take direct connections, from a sandbox whose egress is `all`.
    expect(await tcpProbe(alice, open, pod, 8443)).toBe('open');
    expect(await tcpProbe(alice, open, tls, 443)).toBe('open');
    expect(await tcpProbe(alice, a, pod, 8443)).toBe('closed');
    expect(await tcpProbe(alice, a, pod, 8080)).toBe('closed');
    expect(await tcpProbe(alice, a, tls, 443)).toBe('closed');
    expect(await tcpProbe(alice, a, web, 80)).toBe('closed');
  });

  it('a CONNECT to an allowed name carrying a TLS handshake for another name is cut before the host', async () => {
    // The certificate names both hosts, so only the gateway's check stops this handshake.
    expect(await get(a, `https://${hosts.tls}/`, hosts.web)).toEqual({
      error: 'tunnel closed before the TLS handshake',
    });
  });

  it('one sandbox cannot use another’s list', async () => {
    expect(await firstGet(b, `https://${hosts.tls}/`)).toEqual({ status: 200, body: 'hello from tls\n' });
    expect(await get(b, `http://${hosts.web}/`)).toEqual({
      status: 403,
      body: `svc egress: ${hosts.web} is not allowed for sandbox ${b}\n`,
    });
  });

  it('each decision is one audit record through GET /audit/events?category=egress, exactly', async () => {
    const common = { connections: 1, actor: 'svc-egress' };
    const allowed = { ...common, reason: 'EgressAllowed', type: 'Normal', decision: 'allowed' };
    const denied = {
      ...common,
      reason: 'EgressDenied',
      type: 'Warning',
      decision: 'denied',
      bytesOut: 0,
      bytesIn: 0,
    };
    const positive = { bytesOut: expect.any(Number) as number, bytesIn: expect.any(Number) as number };
    const wantA = [
      { ...allowed, ...positive, sandbox: a, host: hosts.web, port: 80 },
      { ...allowed, ...positive, sandbox: a, host: hosts.tls, port: 443 },
      {
        ...denied,
        sandbox: a,
        host: hosts.other,
        port: 80,
        refusal: `svc egress: ${hosts.other} is not allowed for sandbox ${a}`,
      },
      {
        ...denied,
        sandbox: a,
        host: hosts.tls,
        port: 443,
        refusal: `svc egress: TLS server name ${hosts.web} is not ${hosts.tls}, the host the tunnel was opened to, for sandbox ${a}`,
      },
    ].sort(byHost);
    const wantB = [
      { ...allowed, ...positive, sandbox: b, host: hosts.tls, port: 443 },
      {
        ...denied,
        sandbox: b,
        host: hosts.web,
        port: 80,
        refusal: `svc egress: ${hosts.web} is not allowed for sandbox ${b}`,
      },
    ].sort(byHost);
    // Events are written as each connection ends: wait for the count, then compare exactly.
    await expect.poll(async () => (await egressRecords(a)).length, { timeout: 60_000 }).toBe(wantA.length);
    await expect.poll(async () => (await egressRecords(b)).length, { timeout: 60_000 }).toBe(wantB.length);
    const gotA = (await egressRecords(a)).sort(byHost);
    const gotB = (await egressRecords(b)).sort(byHost);
    expect(gotA).toEqual(wantA);
    expect(gotB).toEqual(wantB);
    for (const r of [...gotA, ...gotB].filter((r) => r.decision === 'allowed')) {
      expect(r.bytesOut, `${r.host} out`).toBeGreaterThan(0);
      expect(r.bytesIn, `${r.host} in`).toBeGreaterThan(0);
    }
  });
});
