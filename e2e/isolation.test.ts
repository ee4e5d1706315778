// Untrusted code on a real cluster (issue 33), through the public API: user code runs as the
// template's user, cannot read sandboxd's token nor signal it, a fork bomb stays in its Pod
// (kubelet's podPidsLimit) while another sandbox answers, a disk fill past the template's
// ephemeral-storage limit ends with the sandbox saying the kubelet evicted it and why, and a
// gVisor template's sandbox runs on gVisor's kernel. The templates the tests need are written
// with the admin kubeconfig (a platform team's step, not the subject), named for this run, and
// deleted after; so is the Event check (what `kubectl describe sandbox` shows).
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, NotFoundError } from '../clients/typescript/index.ts';
import { e2eEnv, sandboxName, svcClient } from './support/index.ts';

const alice = svcClient('alice');
const code = sandboxName('e2e-iso-code');
const agent = sandboxName('e2e-iso-agent');
const bomb = sandboxName('e2e-iso-bomb');
const gvisor = sandboxName('e2e-iso-gvisor');
const gvisorAgent = sandboxName('e2e-iso-gvagent');
const gvisorClone = sandboxName('e2e-iso-gvclone');
const gvisorTemplate = sandboxName('e2e-gvisor');
const disk = sandboxName('e2e-iso-disk');
const diskTemplate = sandboxName('e2e-disk');
const usernsTemplate = sandboxName('e2e-userns');
const sandboxes = [code, agent, bomb, gvisor, gvisorAgent, disk];

function admin(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(e2eEnv().kubeconfig);
  return kc;
}
const custom = () => admin().makeApiClient(CustomObjectsApi);

const template = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'svc.io/v1alpha1',
  kind: 'ClusterSandboxTemplate',
  metadata: { name },
  spec: { image: 'docker.io/library/debian:bookworm', command: ['sleep', 'infinity'], ...spec },
});

const templates = { group: 'svc.io', version: 'v1alpha1', plural: 'clustersandboxtemplates' };

async function sh(name: string, script: string, timeout?: number) {
  return alice.execSandbox(name, { command: ['bash', '-c', script], ...(timeout ? { timeout } : {}) });
}

beforeAll(async () => {
  await Promise.all([
    custom().createClusterCustomObject({
      ...templates,
      body: template(gvisorTemplate, { runtimeClassName: 'gvisor' }),
    }),
    // 64Mi of the container's own filesystem (the workspace is a claim, not counted).
    custom().createClusterCustomObject({
      ...templates,
      body: template(diskTemplate, { resources: { limits: { 'ephemeral-storage': '64Mi' } } }),
    }),
    custom().createClusterCustomObject({
      ...templates,
      body: template(usernsTemplate, { hostUsers: false }),
    }),
  ]);
  await Promise.all([
    alice.createSandbox({ name: code, mode: 'code', templateRef: { name: 'default' } }),
    alice.createSandbox({ name: agent, mode: 'agent', templateRef: { name: 'default' } }),
    alice.createSandbox({ name: bomb, mode: 'code', templateRef: { name: 'default' } }),
    alice.createSandbox({ name: gvisor, mode: 'code', templateRef: { name: gvisorTemplate } }),
    alice.createSandbox({ name: gvisorAgent, mode: 'agent', templateRef: { name: gvisorTemplate } }),
    alice.createSandbox({ name: disk, mode: 'code', templateRef: { name: diskTemplate } }),
  ]);
  await Promise.all(sandboxes.map((n) => alice.waitForPhase(n, 'Running', { timeoutMs: 300_000 })));
}, 420_000);

afterAll(async () => {
  await Promise.all(
    [...sandboxes, gvisorClone].map((n) =>
      alice.deleteSandbox(n).catch((err: unknown) => {
        if (!(err instanceof NotFoundError)) throw err;
      }),
    ),
  );
  for (const name of [gvisorTemplate, diskTemplate, usernsTemplate])
    await custom()
      .deleteClusterCustomObject({ ...templates, name })
      .catch(() => undefined);
});

describe('untrusted code on a real cluster', () => {
  it('runs as the template’s user (1000) in exec, terminal and invoke', async () => {
    expect(await sh(code, 'id -u; id -g')).toMatchObject({ exitCode: 0, stdout: '1000\n1000\n' });

    const terminal = await alice.openTerminal(code, { command: 'id -u' });
    const chunks: Uint8Array[] = [];
    terminal.onData((b) => chunks.push(b));
    expect(await terminal.exit).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8').trim()).toBe('1000');

    await (await alice.configureSandbox(agent, { entrypoint: ['sh', '-c', 'id -u'], files: [] })).toArray();
    const events = await (await alice.invokeSandbox(agent, '')).toArray();
    const stdout = events.flatMap((e) =>
      e.event === 'log' && e.data.stream === 'stdout' ? [e.data.data] : [],
    );
    expect(stdout.join('')).toBe('1000\n');
  });

  it('cannot read sandboxd’s token, nor kill sandboxd', async () => {
    const token = await sh(code, 'cat /var/run/svc/* 2>&1; ls -l /var/run/svc/ 2>&1 | tail -n +2');
    expect(token.exitCode).toBe(0);
    expect(token.stdout).toMatch(/Permission denied/);
    expect(token.stdout).not.toMatch(/^[A-Za-z0-9_-]{20,}$/m);

    // sandboxd is found by its name in /proc (the container's PID namespace holds both).
    const kill = await sh(
      code,
      'for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = sandboxd ] && pid=${p#/proc/}; done; ' +
        'echo "pid $pid"; kill -9 "$pid" 2>&1; echo "exit $?"',
    );
    expect(kill.stdout).toMatch(/^pid \d+\n/);
    expect(kill.stdout).toMatch(/Operation not permitted/);
    expect(kill.stdout).toMatch(/exit 1\n$/);
    // sandboxd still answers.
    expect(await sh(code, 'echo alive')).toMatchObject({ exitCode: 0, stdout: 'alive\n' });
  });

  it('a fork bomb in one sandbox: another sandbox answers exec within 2 s meanwhile', async () => {
    // Detached, bounded by its timeout: sandboxd ends its process group after 30 s.
    const started = await alice.execSandbox(
      bomb,
      { command: ['bash', '-c', 'b() { b | b & }; b; sleep 60'], timeout: 30 },
      { detach: true },
    );
    expect(started).toMatchObject({ invokeId: expect.any(String) as string });
    // The bomb really runs: its sandbox counts hundreds of processes (the Pod's pids limit,
    // the kubelet's podPidsLimit, stops it at the node's setting).
    await expect
      .poll(async () => (await alice.getSandboxUsage(bomb).catch(() => undefined))?.processes ?? 0, {
        timeout: 60_000,
        interval: 1_000,
      })
      .toBeGreaterThan(500);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      expect(await sh(code, 'echo ok')).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    expect(times[2], `exec times ${times.map((t) => Math.round(t)).join(', ')} ms`).toBeLessThan(2_000);
  }, 120_000);

  it('a disk fill past the ephemeral-storage limit: the sandbox says the kubelet evicted it, and why', async () => {
    // 128 MiB outside /workspace, past the Pod's 64Mi (sandboxd's container; the init
    // container's 64Mi does not add up). The kubelet notices on its next housekeeping pass.
    const fill = await sh(
      disk,
      'dd if=/dev/zero of=/tmp/fill bs=1M count=128 2>&1 | tail -n 1; sync; echo done',
    );
    expect(fill).toMatchObject({ exitCode: 0, stdout: expect.stringMatching(/done\n$/) as string });

    const KUBELET = /^Pod ephemeral local storage usage exceeds the total limit of containers 64Mi\.$/;
    const ready = async () =>
      (await alice.getSandbox(disk)).status?.conditions?.find((c) => c.type === 'Ready');
    await expect
      .poll(async () => (await ready())?.reason, { timeout: 180_000, interval: 1_000 })
      .toBe('Evicted');
    const sandbox = await alice.getSandbox(disk);
    expect(sandbox.status?.phase).toBe('Error');
    expect(await ready()).toMatchObject({
      status: 'False',
      reason: 'Evicted',
      message: expect.stringMatching(KUBELET) as string,
    });
    expect(sandbox.status?.message).toMatch(
      /^the kubelet evicted the sandbox Pod: Pod ephemeral local storage usage exceeds the total limit of containers 64Mi\.; resume the sandbox to start it again$/,
    );

    // What kubectl describe shows: a Warning Event Evicted on the Sandbox, with the kubelet's words.
    const core = admin().makeApiClient(CoreV1Api);
    const namespace = sandbox.metadata?.namespace ?? 'default';
    const events = await core.listNamespacedEvent({
      namespace,
      fieldSelector: `involvedObject.kind=Sandbox,involvedObject.name=${disk}`,
    });
    const evicted = events.items.filter((e) => e.reason === 'Evicted');
    expect(evicted).toHaveLength(1);
    expect(evicted[0]).toMatchObject({ type: 'Warning', message: sandbox.status?.message });
    // The Pod stays, ended: Succeeded (sandboxd exits 0 on the kubelet's SIGTERM) or Failed.
    const pod = await core.readNamespacedPod({ name: sandbox.status.podName!, namespace });
    expect(['Succeeded', 'Failed']).toContain(pod.status?.phase);
    console.log(`evicted sandbox Pod: phase ${pod.status?.phase}, reason ${pod.status?.reason ?? '(none)'}`);
  }, 240_000);

  it('hostUsers: false is refused with a clear message: this cluster’s containerd 1.6 has no user namespaces', async () => {
    const refused = await alice
      .createSandbox({
        name: sandboxName('e2e-iso-userns'),
        mode: 'code',
        templateRef: { name: usernsTemplate },
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(ForbiddenError);
    expect((refused as ForbiddenError).status).toBe(403);
    expect((refused as ForbiddenError).violations).toEqual([
      {
        code: 'user_namespaces_unavailable',
        message:
          'the template asks for hostUsers: false (a user namespace), but this cluster does not offer user namespaces (node.userNamespaces is off)',
      },
    ]);
  });

  it('a gVisor template’s sandbox runs on gVisor’s kernel; exec, files, terminal, invoke and clone work in it', async () => {
    const dmesg = await sh(gvisor, 'dmesg 2>&1 | head -3');
    expect(dmesg.stdout).toMatch(/Starting gVisor/);
    await alice.writeFile(gvisor, '/workspace/hello.txt', new TextEncoder().encode('under gVisor\n'));
    expect(await sh(gvisor, 'cat /workspace/hello.txt; id -u')).toMatchObject({
      exitCode: 0,
      stdout: 'under gVisor\n1000\n',
    });

    const terminal = await alice.openTerminal(gvisor, { command: 'dmesg | head -1' });
    const chunks: Uint8Array[] = [];
    terminal.onData((b) => chunks.push(b));
    expect(await terminal.exit).toBe(0);
    expect(Buffer.concat(chunks).toString('utf8')).toMatch(/Starting gVisor/);

    await (
      await alice.configureSandbox(gvisorAgent, {
        entrypoint: ['sh', '-c', 'dmesg | head -1; cat'],
        files: [],
      })
    ).toArray();
    const events = await (await alice.invokeSandbox(gvisorAgent, 'piped\n')).toArray();
    const stdout = events.flatMap((e) =>
      e.event === 'log' && e.data.stream === 'stdout' ? [e.data.data] : [],
    );
    expect(stdout.join('')).toMatch(/Starting gVisor.*\npiped\n$/s);

    await alice.cloneSandbox(gvisor, { name: gvisorClone });
    await alice.waitForPhase(gvisorClone, 'Running', { timeoutMs: 240_000 });
    expect(await sh(gvisorClone, 'cat /workspace/hello.txt; dmesg | head -1')).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^under gVisor\n.*Starting gVisor/s) as string,
    });
  }, 300_000);
});
