import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KeyPair {
  certPath: string;
  keyPath: string;
}

/** A certificate authority on disk that issues serving certificates for loopback servers. */
export interface CertificateAuthority extends KeyPair {
  /** PEM of the CA certificate: the `caBundle` of a webhook configuration or kubeconfig. */
  pem: string;
  issue(name: string, hosts: string[]): Promise<KeyPair & { certPem: string; keyPem: string }>;
}

/** Makes a fresh P-256 CA in `dir` with the openssl CLI (Debian's, always on the machine). */
export async function createCertificateAuthority(dir: string): Promise<CertificateAuthority> {
  const ca = { certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') };
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    ca.keyPath,
    '-out',
    ca.certPath,
    '-days',
    '3650',
    '-subj',
    '/CN=svc-dev-ca',
  ]);
  const pem = await readFile(ca.certPath, 'utf8');
  return {
    ...ca,
    pem,
    async issue(name, hosts) {
      const keyPath = join(dir, `${name}.key`);
      const certPath = join(dir, `${name}.crt`);
      const csrPath = join(dir, `${name}.csr`);
      const extPath = join(dir, `${name}.ext`);
      const san = hosts.map((h) => (/^[0-9.]+$/.test(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
      await writeFile(extPath, `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', [
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        keyPath,
        '-out',
        csrPath,
        '-subj',
        `/CN=${name}`,
      ]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        csrPath,
        '-CA',
        ca.certPath,
        '-CAkey',
        ca.keyPath,
        '-CAcreateserial',
        '-out',
        certPath,
        '-days',
        '365',
        '-extfile',
        extPath,
      ]);
      return {
        certPath,
        keyPath,
        certPem: await readFile(certPath, 'utf8'),
        keyPem: await readFile(keyPath, 'utf8'),
      };
    },
  };
}

/** An RSA key pair for signing and verifying ServiceAccount tokens. */
export async function createServiceAccountKey(dir: string): Promise<{ keyPath: string; pubPath: string }> {
  const keyPath = join(dir, 'sa.key');
  const pubPath = join(dir, 'sa.pub');
  await run('openssl', ['genrsa', '-out', keyPath, '2048']);
  await run('openssl', ['rsa', '-in', keyPath, '-pubout', '-out', pubPath]);
  return { keyPath, pubPath };
}
