import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { reuseConnections } from '../kube/controller/index.ts';
import { createCertificateAuthority, createServiceAccountKey, type CertificateAuthority } from './certs.ts';
import { writeKubeconfig } from './kubeconfig.ts';
import { freePort } from './ports.ts';
import { eventually } from './eventually.ts';
import { startManaged, type Managed } from './processes.ts';

export interface ControlPlaneOptions {
  /** Folder holding the `etcd` and `kube-apiserver` binaries (hack/kube/build.sh prints it). */
  assetsDir: string;
  /** Where certificates, etcd data, logs and the kubeconfig go. Reused if it exists. */
  dataDir: string;
  startTimeoutMs?: number;
  /**
   * More identities, each with a token and a kubeconfig of its own: `make dev` runs the API
   * as its ServiceAccount's user, so the webhook tells its writes from a person's.
   */
  users?: { name: string; groups: string[] }[];
}

export interface ControlPlane {
  url: string;
  kubeconfigPath: string;
  kubeConfig: KubeConfig;
  /** The CA that signed the apiserver's certificate; it also signs webhook servers. */
  ca: CertificateAuthority;
  /** Kubeconfig paths of `users`, by user name. */
  kubeconfigs: Record<string, string>;
  version: string;
  startedInMs: number;
  stop(): Promise<void>;
}

/**
 * Starts etcd and kube-apiserver on 127.0.0.1 with free ports, waits for `/readyz`, and
 * writes an admin kubeconfig (a static token in `system:masters`). No scheduler or
 * controller-manager runs: devnode binds Pods, and the operator deletes what it owns.
 */
export async function startControlPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const started = Date.now();
  const dir = opts.dataDir;
  const pki = join(dir, 'pki');
  await mkdir(pki, { recursive: true });
  const ca = await createCertificateAuthority(pki);
  const serving = await ca.issue('kube-apiserver', ['127.0.0.1', 'localhost']);
  const sa = await createServiceAccountKey(pki);
  const adminToken = randomBytes(24).toString('hex');
  const tokens = join(pki, 'tokens.csv');
  const users = (opts.users ?? []).map((u, i) => ({
    ...u,
    token: randomBytes(24).toString('hex'),
    uid: `user-${i}`,
  }));
  await writeFile(
    tokens,
    [
      `${adminToken},svc-admin,svc-admin,"system:masters"`,
      ...users.map((u) => `${u.token},${u.name},${u.uid},"${u.groups.join(',')}"`),
    ].join('\n') + '\n',
    { mode: 0o600 },
  );

  const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
  const processes: Managed[] = [];
  const stop = async () => {
    for (const p of processes.reverse()) await p.stop();
  };
  try {
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    processes.push(
      startManaged(
        'etcd',
        join(opts.assetsDir, 'etcd'),
        [
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        join(dir, 'etcd.log'),
        // Stopped by `stop()` after what uses it, not by a terminal's Ctrl-C before it.
        { ownProcessGroup: true },
      ),
    );
    processes.push(
      startManaged(
        'kube-apiserver',
        join(opts.assetsDir, 'kube-apiserver'),
        [
          `--etcd-servers=${etcdUrl}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          `--secure-port=${apiPort}`,
          `--tls-cert-file=${serving.certPath}`,
          `--tls-private-key-file=${serving.keyPath}`,
          `--client-ca-file=${ca.certPath}`,
          `--token-auth-file=${tokens}`,
          '--authorization-mode=RBAC',
          '--service-cluster-ip-range=10.96.0.0/16',
          '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
          `--service-account-key-file=${sa.pubPath}`,
          `--service-account-signing-key-file=${sa.keyPath}`,
          // Without a controller-manager no ServiceAccount is ever created for a namespace.
          '--disable-admission-plugins=ServiceAccount',
          '--allow-privileged=true',
          '--enable-priority-and-fairness=false',
          '--profiling=false',
        ],
        join(dir, 'kube-apiserver.log'),
        { ownProcessGroup: true },
      ),
    );
    const url = `https://127.0.0.1:${apiPort}`;
    const kubeconfigPath = join(dir, 'kubeconfig');
    await writeKubeconfig(kubeconfigPath, {
      server: url,
      caPem: ca.pem,
      user: 'svc-admin',
      token: adminToken,
    });
    const kubeconfigs: Record<string, string> = {};
    for (const u of users) {
      kubeconfigs[u.name] = join(dir, `kubeconfig-${u.uid}`);
      await writeKubeconfig(kubeconfigs[u.name]!, {
        server: url,
        caPem: ca.pem,
        user: u.name,
        token: u.token,
      });
    }
    const kubeConfig = reuseConnections(new KubeConfig());
    kubeConfig.loadFromFile(kubeconfigPath);
    const apiserver = processes[1]!;
    await eventually(async () => (await get(`${url}/readyz`, ca.pem, adminToken)).status === 200, {
      timeoutMs: opts.startTimeoutMs ?? 60_000,
      describe: () =>
        apiserver.child.exitCode !== null
          ? `kube-apiserver exited (${apiserver.child.exitCode}); see ${apiserver.logPath}`
          : `kube-apiserver not ready at ${url}; see ${apiserver.logPath}`,
    });
    const version = (
      JSON.parse((await get(`${url}/version`, ca.pem, adminToken)).body) as { gitVersion: string }
    ).gitVersion;
    return {
      url,
      kubeconfigPath,
      kubeConfig,
      ca,
      kubeconfigs,
      version,
      startedInMs: Date.now() - started,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

function get(url: string, caPem: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { ca: caPem, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')));
  });
}
