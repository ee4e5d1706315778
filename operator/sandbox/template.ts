import type { SandboxTemplate, SandboxTemplateSpec } from '../../core/index.ts';
import { withPolicyDefaults } from '../manifests/index.ts';
import type { Found, Pass } from './context.ts';

/**
 * The template the sandbox names, from the template informers (a template's change
 * reconciles the sandboxes that use it, so a missing one needs no polling), with the
 * governance policy's defaults (`defaultRuntimeClass`) applied: the template every later
 * step takes.
 */
export function resolveTemplate(pass: Pass): Found<SandboxTemplateSpec> {
  const ref = pass.sandbox.spec.templateRef;
  const caches = pass.d.caches;
  const found = (
    ref.kind === 'SandboxTemplate'
      ? caches.templates.get(ref.name, pass.namespace)
      : caches.clusterTemplates.get(ref.name)
  ) as SandboxTemplate | undefined;
  if (!found) {
    const message = `${ref.kind} "${ref.name}" not found`;
    return {
      conditions: [{ type: 'TemplateResolved', ok: false, reason: 'TemplateNotFound', message }],
      stage: { kind: 'TemplateNotFound', message },
    };
  }
  return {
    found: withPolicyDefaults(found.spec, pass.d.policies, pass.namespace),
    conditions: [
      { type: 'TemplateResolved', ok: true, reason: 'Resolved', message: `${ref.kind}/${ref.name}` },
    ],
  };
}
