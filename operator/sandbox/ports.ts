import { internalUrl, previewUrl } from '../../core/index.ts';
import { portIngress, portService } from '../manifests/index.ts';
import type { Pass, StepResult } from './context.ts';
import { Ingress, Service, cachedOf, ensure, remove } from './owned.ts';

/**
 * A Service per forwarded port (and an Ingress when a preview domain is set); those of
 * ports no longer forwarded go. Read from the caches, so an unchanged sandbox costs nothing.
 * The forwarded ports go to status.
 */
export async function ensurePorts(pass: Pass): Promise<StepResult> {
  const { sandbox, namespace, name } = pass;
  const ports = sandbox.spec.ports ?? [];
  const domain = pass.d.settings.previewDomain;
  const wanted = new Set(Service.names(sandbox));
  for (const port of ports) {
    await ensure(pass, Service, portService(sandbox, port));
    if (domain) await ensure(pass, Ingress, portIngress(sandbox, port, pass.d.settings, domain));
  }
  for (const s of cachedOf(pass, Service))
    if (s.metadata?.name?.startsWith('pf-') && !wanted.has(s.metadata.name))
      await remove(pass, Service, s.metadata.name);
  for (const i of cachedOf(pass, Ingress))
    if (i.metadata?.name?.startsWith('pf-') && (!domain || !wanted.has(i.metadata.name)))
      await remove(pass, Ingress, i.metadata.name);
  const forwardedPorts = ports.map((p) => ({
    port: p.port,
    protocol: p.protocol,
    internalUrl: internalUrl(name, namespace, p.port),
    ...(domain ? { previewUrl: previewUrl({ namespace, name }, p.port, domain) } : {}),
  }));
  return { status: { forwardedPorts } };
}
