import { describe, expect, it } from 'vitest';
import { webhookCertificates } from './certificates.ts';
import { webhookConfigurations } from './configurations.ts';

const target = { service: { namespace: 'svc-system', name: 'svc-webhook', port: 443 } };

describe('webhookCertificates', () => {
  it('by default, a private CA that signs the serving certificate, all valid to cert-manager', () => {
    const certs = webhookCertificates({ namespace: 'svc-system', service: 'svc-webhook' });
    // The package's schemas are cert-manager's CRD schemas: validate() throws on a bad field.
    for (const object of certs.objects) expect(() => object.validate()).not.toThrow();
    expect(certs.objects.map((o) => `${o.kind}/${o.metadata!.name!}`)).toEqual([
      'Issuer/svc-webhook-selfsigned',
      'Certificate/svc-webhook-ca',
      'Issuer/svc-webhook-ca',
      'Certificate/svc-webhook-serving',
    ]);
    expect(certs.objects.every((o) => o.metadata!.namespace === 'svc-system')).toBe(true);
    expect(certs.certificate.spec).toEqual({
      dnsNames: ['svc-webhook.svc-system.svc', 'svc-webhook.svc-system.svc.cluster.local'],
      secretName: 'svc-webhook-tls',
      issuerRef: { name: 'svc-webhook-ca', kind: 'Issuer', group: 'cert-manager.io' },
    });
    expect(certs.secretName).toBe('svc-webhook-tls');
    expect(certs.injectCaFrom).toBe('svc-system/svc-webhook-serving');
  });

  it("uses the cluster's own issuer when given one, and a chosen Secret name", () => {
    const certs = webhookCertificates({
      namespace: 'ns',
      service: 'hook',
      issuer: { name: 'corp-ca', kind: 'ClusterIssuer' },
      secretName: 'hook-cert',
    });
    expect(certs.objects).toEqual([certs.certificate]);
    certs.certificate.validate();
    expect(certs.certificate.spec).toMatchObject({
      dnsNames: ['hook.ns.svc', 'hook.ns.svc.cluster.local'],
      secretName: 'hook-cert',
      issuerRef: { name: 'corp-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' },
    });
  });

  it('fails validation on what cert-manager would refuse, so the check is real', () => {
    const certs = webhookCertificates({ namespace: 'ns', service: 'hook' });
    certs.certificate.spec!.secretName = undefined as unknown as string;
    expect(() => certs.certificate.validate()).toThrow();
  });
});

describe('webhookConfigurations with injectCaFrom', () => {
  it('annotates both configurations for the cainjector and leaves caBundle out', () => {
    const { injectCaFrom } = webhookCertificates({ namespace: 'svc-system', service: 'svc-webhook' });
    const { mutating, validating } = webhookConfigurations({ failurePolicy: 'Fail', target, injectCaFrom });
    for (const config of [mutating, validating]) {
      expect(config.metadata).toEqual({
        name: 'svc-sandbox',
        annotations: { 'cert-manager.io/inject-ca-from': 'svc-system/svc-webhook-serving' },
      });
      expect(config.webhooks[0]!.clientConfig).not.toHaveProperty('caBundle');
      expect(config.webhooks[0]!.clientConfig).toMatchObject({ service: target.service });
    }
  });

  it('with a caBundle, no annotation', () => {
    const { mutating } = webhookConfigurations({ failurePolicy: 'Fail', target, caBundle: 'PEM' });
    expect(mutating.metadata).toEqual({ name: 'svc-sandbox' });
    expect(mutating.webhooks[0]!.clientConfig.caBundle).toBe(Buffer.from('PEM').toString('base64'));
  });
});
