import { writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';

/** Writes a kubeconfig for `user` authenticating with a bearer token. */
export async function writeKubeconfig(
  path: string,
  opts: { server: string; caPem: string; user: string; token: string },
): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'svc-dev',
        cluster: {
          server: opts.server,
          'certificate-authority-data': Buffer.from(opts.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: opts.user, user: { token: opts.token } }],
    contexts: [{ name: 'svc-dev', context: { cluster: 'svc-dev', user: opts.user } }],
    'current-context': 'svc-dev',
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}
