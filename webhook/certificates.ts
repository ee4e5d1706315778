import { Certificate, Issuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1';

export interface WebhookCertificateOptions {
  namespace: string;
  /** The webhook's Service: the apiserver dials `<service>.<namespace>.svc`. */
  service: string;
  /**
   * `self-signed` (the default) makes a private CA in the namespace, as kubebuilder's
   * config/certmanager does; otherwise the serving certificate comes from an issuer the
   * cluster already runs (a company CA, say).
   */
  issuer?: 'self-signed' | { name: string; kind: 'Issuer' | 'ClusterIssuer' };
  /** The Secret `svc webhook` mounts its key pair from. */
  secretName?: string;
}

export interface WebhookCertificates {
  /** To apply in order: an Issuer must exist before the Certificates that name it. */
  objects: (Issuer | Certificate)[];
  /** The serving certificate, whose key pair lands in `secretName`. */
  certificate: Certificate;
  secretName: string;
  /** For `webhookConfigurations({ injectCaFrom })`: cert-manager's cainjector fills caBundle from it. */
  injectCaFrom: string;
}

/**
 * The cert-manager objects that give the webhook a serving certificate in a cluster. A
 * private CA rather than a self-signed leaf: the CA outlives leaf renewals, so the caBundle
 * the cainjector writes stays valid across them.
 */
export function webhookCertificates(o: WebhookCertificateOptions): WebhookCertificates {
  const secretName = o.secretName ?? `${o.service}-tls`;
  const metadata = (name: string) => ({
    name,
    namespace: o.namespace,
    labels: { 'app.kubernetes.io/part-of': 'svc' },
  });
  const objects: (Issuer | Certificate)[] = [];
  let issuerRef: { name: string; kind: string; group: string };
  if (o.issuer === undefined || o.issuer === 'self-signed') {
    const ca = `${o.service}-ca`;
    objects.push(
      new Issuer({ metadata: metadata(`${o.service}-selfsigned`), spec: { selfSigned: {} } }),
      new Certificate({
        metadata: metadata(ca),
        spec: {
          isCA: true,
          commonName: ca,
          secretName: ca,
          privateKey: { algorithm: 'ECDSA', size: 256 },
          issuerRef: { name: `${o.service}-selfsigned`, kind: 'Issuer', group: 'cert-manager.io' },
        },
      }),
      new Issuer({ metadata: metadata(ca), spec: { ca: { secretName: ca } } }),
    );
    issuerRef = { name: ca, kind: 'Issuer', group: 'cert-manager.io' };
  } else {
    issuerRef = { ...o.issuer, group: 'cert-manager.io' };
  }
  const certificate = new Certificate({
    metadata: metadata(`${o.service}-serving`),
    spec: {
      dnsNames: [`${o.service}.${o.namespace}.svc`, `${o.service}.${o.namespace}.svc.cluster.local`],
      secretName,
      issuerRef,
    },
  });
  objects.push(certificate);
  return {
    objects,
    certificate,
    secretName,
    injectCaFrom: `${o.namespace}/${certificate.metadata!.name!}`,
  };
}
