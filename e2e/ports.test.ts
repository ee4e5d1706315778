// A forwarded port on a real cluster, through the public HTTP API only: a server in a sandbox
// is forwarded (`POST …/ports`), the operator makes a real ClusterIP Service for it, and the
// API's authenticated preview path reaches it through that Service. Who else reaches it is
// proven by packets from inside Pods of the cluster: the sandbox's NetworkPolicy admits the
// API's Pods (and the ingress controller's namespace, when the chart names one) to a forwarded
// port, and nothing else, not even another sandbox of the same owner.
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, NotFoundError } from '../clients/typescript/index.ts';
import {
  e2eEnv,
  kubectl,
  sandboxName,
  sandboxObjects,
  svcClient,
  tcpProbe,
  waitUntil,
} from './support/index.ts';

const alice = svcClient('alice');
const bob = svcClient('bob');
const web = sandboxName('e2e-port-web');
const peer = sandboxName('e2e-port-peer');
const PORT = 8080;
/** What the sandbox's server answers with, so an answer is known to be its. */
const marker = randomBytes(6).toString('hex');

/**
 * A small HTTP/1.1 server in Perl (the template's Debian image has perl-base and no Python):
 * every request is answered 200 with `<marker> <method> <target>\n`, then the connection closes.
 */
const SERVER = String.raw`
use IO::Socket::INET;
my ($port, $marker) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => '0.0.0.0', LocalPort => $port, Listen => 64, ReuseAddr => 1)
  or die "listen: $!";
while (my $c = $s->accept) {
  my $line = <$c> // '';
  my ($method, $target) = split ' ', $line;
  while (my $h = <$c>) { last if $h =~ /^\r?\n$/ }
  my $body = "$marker $method $target\n";
  print $c "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " . length($body)
    . "\r\nConnection: close\r\n\r\n" . $body;
  close $c;
}
`;

function core(): CoreV1Api {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc.makeApiClient(CoreV1Api);
}

const probe = (from: string, host: string, port: number) => tcpProbe(alice, from, host, port);

/** An API Pod of the chart (Ready), the one Pod the sandbox's policy lets in besides the ingress. */
async function apiPod(): Promise<{ namespace: string; name: string }> {
  const pods = await core().listPodForAllNamespaces({ labelSelector: 'app.kubernetes.io/component=api' });
  const ready = pods.items.find(
    (p) =>
      !p.metadata?.deletionTimestamp &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  )!;
  return { namespace: ready.metadata!.namespace!, name: ready.metadata!.name! };
}

/**
 * An HTTP GET of `url` from inside an API Pod, by its own Node (`kubectl exec`): the status and
 * body, or `error <code>` when no answer came within 10 s.
 */
async function getFromApiPod(url: string): Promise<string> {
  const pod = await apiPod();
  const script =
    'fetch(process.argv[1], { signal: AbortSignal.timeout(10000) })' +
    '.then(async (r) => console.log(r.status + " " + (await r.text()).trim()))' +
    '.catch((e) => console.log("error " + (e.cause?.code ?? e.name)))';
  return (
    await kubectl(['exec', '-n', pod.namespace, pod.name, '-c', 'api', '--', 'node', '-e', script, url])
  ).trim();
}

beforeAll(async () => {
  await Promise.all([
    alice.createSandbox({ name: web, mode: 'code', templateRef: { name: 'default' } }),
    alice.createSandbox({ name: peer, mode: 'code', templateRef: { name: 'default' } }),
  ]);
  await Promise.all([web, peer].map((n) => alice.waitForPhase(n, 'Running', { timeoutMs: 240_000 })));
  // The server runs detached (a run of its own, bounded by its timeout), as a user would
  // start a dev server.
  await alice.execSandbox(
    web,
    { command: ['perl', '-e', SERVER, String(PORT), marker], timeout: 1800 },
    { detach: true },
  );
  // Listening before the test goes on: the sandbox's own loopback, not a policy's business.
  await waitUntil(
    'the server listening',
    () => probe(web, '127.0.0.1', PORT),
    (v) => v === 'open',
    30_000,
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(
    [web, peer].map((n) =>
      alice.deleteSandbox(n).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      }),
    ),
  );
});

describe('a forwarded port on a real cluster', () => {
  it('before the forward, not even the API’s Pod reaches the port (the policy admits sandboxd only)', async () => {
    const ip = (await core().readNamespacedPod({ name: web, namespace: e2eEnv().namespace })).status!.podIP!;
    expect(await getFromApiPod(`http://${ip}:${PORT}/`)).toMatch(/^error /);
  });

  it('POST …/ports: 201, the spec’s object, and a ClusterIP Service selecting the sandbox’s Pod', async () => {
    const ns = e2eEnv().namespace;
    const res = await fetch(`${e2eEnv().baseUrl}/api/v1/sandboxes/${web}/ports?namespace=${ns}`, {
      method: 'POST',
      headers: { 'x-api-key': e2eEnv().keys.alice, 'content-type': 'application/json' },
      body: JSON.stringify({ port: PORT, protocol: 'http' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      port: PORT,
      protocol: 'http',
      internalUrl: `http://pf-${web}-${PORT}.${ns}.svc.cluster.local:${PORT}`,
    });
    const service = await core().readNamespacedService({ name: `pf-${web}-${PORT}`, namespace: ns });
    expect(service.spec?.type).toBe('ClusterIP');
    expect(service.spec?.clusterIP).toMatch(/^10\.\d+\.\d+\.\d+$/);
    expect(service.spec?.ports).toEqual([
      expect.objectContaining({ port: PORT, targetPort: PORT, protocol: 'TCP' }),
    ]);
    const pod = await core().readNamespacedPod({ name: web, namespace: ns });
    // The Service's endpoints are the sandbox's Pod (kube-proxy's rules send to it).
    await expect
      .poll(
        async () => {
          const slices = await kubectl([
            'get',
            'endpointslices',
            '-n',
            ns,
            '-l',
            `kubernetes.io/service-name=pf-${web}-${PORT}`,
            '-o',
            'jsonpath={.items[*].endpoints[*].addresses[*]}',
          ]);
          return slices.trim();
        },
        { timeout: 30_000 },
      )
      .toBe(pod.status!.podIP!);
  });

  it('the preview path: 200 and exactly the server’s answer for alice; 401 anonymous; 403 bob', async () => {
    // The forward opens the sandbox's NetworkPolicy to the API's Pods; the CNI programs a
    // policy asynchronously (kube-router: seconds after the write), so the first answers may
    // be the proxy's 502 until the packets pass. The answer, once it comes, is exact.
    let res: Response | undefined;
    await expect
      .poll(async () => (res = await alice.previewPort(web, PORT, 'hello/page?x=1')).status, {
        timeout: 60_000,
      })
      .toBe(200);
    expect(await res!.text()).toBe(`${marker} GET /hello/page?x=1\n`);
    const anonymous = await fetch(alice.previewUrl(web, PORT, 'hello'));
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({
      error: 'unauthenticated',
      message: 'authentication required: send X-API-Key or Authorization: Bearer',
    });
    const other = await bob.previewPort(web, PORT, 'hello');
    expect(other.status).toBe(403);
    expect(await other.json()).toMatchObject({ error: 'forbidden' });
  });

  it('the internalUrl, from inside the API’s Pod: cluster DNS, the ClusterIP, kube-proxy, the policy let it through', async () => {
    const ns = e2eEnv().namespace;
    // Polled: at load 100 a lookup and connect can outlast one try's 10 s.
    await expect
      .poll(() => getFromApiPod(`http://pf-${web}-${PORT}.${ns}.svc.cluster.local:${PORT}/svc`), {
        timeout: 90_000,
        interval: 1_000,
      })
      .toBe(`200 ${marker} GET /svc`);
  });

  it('another sandbox of the same owner reaches the port neither by the Service nor by the Pod', async () => {
    const ns = e2eEnv().namespace;
    const service = await core().readNamespacedService({ name: `pf-${web}-${PORT}`, namespace: ns });
    const pod = await core().readNamespacedPod({ name: web, namespace: ns });
    expect(await probe(peer, service.spec!.clusterIP!, PORT)).toBe('closed');
    expect(await probe(peer, pod.status!.podIP!, PORT)).toBe('closed');
    // The control: the same probe from the sandbox itself connects, so `closed` is the policy.
    expect(await probe(web, pod.status!.podIP!, PORT)).toBe('open');
  });

  it('DELETE …/ports/{port}: 204, the Service gone, the preview 404', async () => {
    const ns = e2eEnv().namespace;
    // The API waits for the operator to publish the change; at load 100 that can take more
    // than its 60 s, answered 504 `status_timeout`. DELETE is idempotent: asked again, it
    // waits again, and answers 204 once the port is gone from the status.
    await alice.unforwardPort(web, PORT).catch(async (err: unknown) => {
      if (!(err instanceof ApiError && err.status === 504)) throw err;
      await alice.unforwardPort(web, PORT);
    });
    await expect
      .poll(() => sandboxObjects(web), { timeout: 60_000 })
      .not.toContain(`Service/pf-${web}-${PORT}`);
    const res = await alice.previewPort(web, PORT, 'hello');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
    expect(ns).toBe(e2eEnv().namespace);
  });

  it('delete of a sandbox with a forwarded port leaves no Pod, PVC, Service, Secret or policy', async () => {
    await alice.forwardPort(peer, { port: PORT, protocol: 'http' }).catch(async (err: unknown) => {
      if (!(err instanceof ApiError && err.status === 504)) throw err; // as DELETE above
      await alice.forwardPort(peer, { port: PORT, protocol: 'http' });
    });
    const before = await sandboxObjects(peer);
    for (const kind of ['Pod', 'PersistentVolumeClaim', 'Service', 'Secret', 'NetworkPolicy']) {
      expect(
        before.some((o) => o.startsWith(`${kind}/`)),
        `${kind} in ${before.join(', ')}`,
      ).toBe(true);
    }
    await Promise.all([alice.deleteSandbox(peer), alice.deleteSandbox(web)]);
    await expect
      .poll(async () => [...(await sandboxObjects(peer)), ...(await sandboxObjects(web))], {
        timeout: 240_000,
        interval: 1_000,
      })
      .toEqual([]);
  });
});
