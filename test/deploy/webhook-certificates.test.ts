// The chart's webhook certificates without cert-manager (webhook.certificates: selfSigned):
// the key pair it makes is one the apiserver would trust for the webhook's Service, and an
// upgrade keeps it, reading the Secret back from a real apiserver (`helm template
// --dry-run=server` runs the same `lookup` as `helm upgrade`), until it nears expiry.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { helmBinary, parseManifests, renderChart } from '../../hack/helm/kustomize.ts';
import { useNamespace } from '../support/index.ts';

interface Rendered {
  secret: { metadata: { annotations: Record<string, string> }; data: Record<string, string> };
  /** Every caBundle of both WebhookConfigurations, decoded. */
  caBundles: string[];
  /** The webhook Deployment's Pod template annotations. */
  podAnnotations: Record<string, string> | undefined;
  kinds: string[];
  annotations: (Record<string, string> | undefined)[];
}

type Obj = {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
  webhooks?: { clientConfig: { caBundle?: string } }[];
  spec?: { template?: { metadata?: { annotations?: Record<string, string> } } };
};

let helm = '';
const ns = useNamespace('chart-tls');

function render(opts: { set?: string[]; apiVersions?: string[]; cluster?: boolean } = {}): Rendered {
  const objects = parseManifests(
    renderChart(helm, {
      release: 'svc',
      namespace: ns.name,
      set: opts.set ?? ['webhook.certificates=selfSigned'],
      apiVersions: opts.apiVersions,
      kubeconfig: opts.cluster ? inject('kubeconfigPath') : undefined,
    }),
  ) as unknown as Obj[];
  const hooks = objects.filter((o) => o.kind.endsWith('WebhookConfiguration'));
  return {
    secret: objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'svc-webhook-tls') as never,
    caBundles: hooks.flatMap((h) =>
      h.webhooks!.map((w) => Buffer.from(w.clientConfig.caBundle ?? '', 'base64').toString()),
    ),
    podAnnotations: objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'svc-webhook')!.spec!
      .template!.metadata!.annotations,
    kinds: objects.map((o) => o.kind),
    annotations: hooks.map((h) => h.metadata.annotations),
  };
}

const pem = (b64: string) => Buffer.from(b64, 'base64').toString();
/** The certificates of a PEM bundle, in order. */
const certificates = (bundle: string) =>
  bundle
    .match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----\n?/g)!
    .map((c) => new X509Certificate(c));

/** Writes the rendered Secret into the test's namespace, as `helm install` would have. */
async function store(secret: Rendered['secret']): Promise<void> {
  await ns.core
    .deleteNamespacedSecret({ name: 'svc-webhook-tls', namespace: ns.name })
    .catch((err: { code?: number }) => {
      if (err.code !== 404) throw err;
    });
  await ns.core.createNamespacedSecret({
    namespace: ns.name,
    body: {
      metadata: { name: 'svc-webhook-tls', annotations: secret.metadata.annotations },
      type: 'kubernetes.io/tls',
      data: secret.data,
    },
  });
}

beforeAll(() => {
  helm = helmBinary();
});

describe('webhook.certificates', () => {
  it('auto: cert-manager objects where the cluster serves cert-manager.io/v1, the chart’s own pair elsewhere', () => {
    const withCertManager = render({ set: [], apiVersions: ['cert-manager.io/v1'] });
    expect(withCertManager.kinds.filter((k) => k === 'Certificate' || k === 'Issuer')).toHaveLength(4);
    expect(withCertManager.secret).toBeUndefined();
    expect(withCertManager.caBundles).toEqual(['', '', '']);
    expect(withCertManager.annotations).toEqual([
      { 'cert-manager.io/inject-ca-from': `${ns.name}/svc-webhook-serving` },
      { 'cert-manager.io/inject-ca-from': `${ns.name}/svc-webhook-serving` },
    ]);
    expect(withCertManager.podAnnotations).toBeUndefined();

    const without = render({ set: [] });
    expect(without.kinds).not.toContain('Certificate');
    expect(without.kinds).not.toContain('Issuer');
    expect(without.secret.data['tls.key']).toBeTruthy();
    expect(without.annotations).toEqual([undefined, undefined]);
  });

  it('selfSigned: a CA in both WebhookConfigurations that signed a certificate for the webhook Service', () => {
    const r = render();
    const ca = new X509Certificate(pem(r.secret.data['ca.crt']!));
    const leaf = new X509Certificate(pem(r.secret.data['tls.crt']!));
    expect(ca.ca).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subjectAltName).toBe(
      `DNS:svc-webhook.${ns.name}.svc, DNS:svc-webhook.${ns.name}.svc.cluster.local`,
    );
    expect(r.caBundles).toEqual([ca.toString(), ca.toString(), ca.toString()]);
    // The key in the Secret is the certificate's own.
    expect(leaf.checkPrivateKey(createPrivateKey(pem(r.secret.data['tls.key']!)))).toBe(true);
    // Ten years by default, and the annotation an upgrade reads says when.
    const notAfter = Number(r.secret.metadata.annotations['svc.io/not-after']);
    expect(Math.abs(notAfter * 1000 - Date.parse(leaf.validTo))).toBeLessThan(60_000);
    expect(Math.round((Date.parse(leaf.validTo) - Date.now()) / 86_400_000)).toBe(3650);
    expect(r.podAnnotations!['svc.io/webhook-tls-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('selfSigned: an upgrade keeps the pair the cluster holds; the Pods do not roll', async () => {
    const first = render();
    await store(first.secret);
    const upgrade = render({ cluster: true });
    expect(upgrade.secret.data).toEqual(first.secret.data);
    expect(upgrade.secret.metadata.annotations).toEqual(first.secret.metadata.annotations);
    expect(upgrade.caBundles).toEqual(first.caBundles);
    expect(upgrade.podAnnotations).toEqual(first.podAnnotations);
  });

  it('selfSigned: near expiry an upgrade makes a new pair, trusting the old CA too until the next upgrade', async () => {
    const first = render();
    const soon = Math.floor(Date.now() / 1000) + 30 * 86_400; // within renewBeforeDays (90)
    await store({
      ...first.secret,
      metadata: { annotations: { 'svc.io/not-after': String(soon) } },
    });
    const renewed = render({ cluster: true });
    expect(renewed.secret.data['tls.crt']).not.toBe(first.secret.data['tls.crt']);
    expect(renewed.secret.data['ca.crt']).not.toBe(first.secret.data['ca.crt']);
    const oldCa = new X509Certificate(pem(first.secret.data['ca.crt']!));
    const newCa = new X509Certificate(pem(renewed.secret.data['ca.crt']!));
    expect(new X509Certificate(pem(renewed.secret.data['tls.crt']!)).checkIssued(newCa)).toBe(true);
    // Pods still serving the old certificate during the roll stay trusted.
    for (const bundle of renewed.caBundles) {
      expect(certificates(bundle).map((c) => c.fingerprint256)).toEqual([
        newCa.fingerprint256,
        oldCa.fingerprint256,
      ]);
    }
    expect(renewed.podAnnotations).not.toEqual(first.podAnnotations);

    // The next upgrade keeps the new pair and trusts only its CA.
    await store(renewed.secret);
    const next = render({ cluster: true });
    expect(next.secret.data).toEqual(renewed.secret.data);
    for (const bundle of next.caBundles) {
      expect(certificates(bundle).map((c) => c.fingerprint256)).toEqual([newCa.fingerprint256]);
    }
  });

  it('selfSigned: a Secret the chart did not make (no expiry annotation) is replaced', async () => {
    const first = render();
    await store({ ...first.secret, metadata: { annotations: {} } });
    const replaced = render({ cluster: true });
    expect(replaced.secret.data['tls.crt']).not.toBe(first.secret.data['tls.crt']);
  });

  it('selfSigned.validityDays sets both lifetimes; a mode it does not know fails, naming it', () => {
    const r = render({ set: ['webhook.certificates=selfSigned', 'webhook.selfSigned.validityDays=30'] });
    const leaf = new X509Certificate(pem(r.secret.data['tls.crt']!));
    const ca = new X509Certificate(pem(r.secret.data['ca.crt']!));
    expect(Math.round((Date.parse(leaf.validTo) - Date.now()) / 86_400_000)).toBe(30);
    expect(Math.round((Date.parse(ca.validTo) - Date.now()) / 86_400_000)).toBe(30);
    expect(() => render({ set: ['webhook.certificates=byHand'] })).toThrow(/at '\/webhook\/certificates'/);
  });
});
