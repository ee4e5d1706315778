import { CustomObjectsApi } from '@kubernetes/client-node';
import { GROUP, VERSION, templateAllowed, type SandboxSpec } from '../../core/index.ts';
import type { SandboxesDeps } from './deps.ts';
import { HttpError } from '../errors/index.ts';

type TemplateRef = SandboxSpec['templateRef'];
const plurals = {
  ClusterSandboxTemplate: 'clustersandboxtemplates',
  SandboxTemplate: 'sandboxtemplates',
} as const;

/**
 * 400 `template_not_found` for a create whose template does not exist, naming the templates
 * the caller may use instead (those governance's `allowedTemplates` lets through). Only the
 * API refuses: a Sandbox applied with kubectl is still accepted and waits in `Error` until
 * its template appears, as GitOps tools expect.
 */
export async function templateNotFound(
  deps: SandboxesDeps,
  namespace: string,
  ref: TemplateRef,
): Promise<never> {
  const custom = deps.kc.makeApiClient(CustomObjectsApi);
  const scope = { group: GROUP, version: VERSION };
  const names = (list: unknown) =>
    ((list as { items?: { metadata?: { name?: string } }[] }).items ?? []).map((t) => t.metadata?.name ?? '');
  const [cluster, namespaced, policy] = await Promise.all([
    custom.listClusterCustomObject({ ...scope, plural: plurals.ClusterSandboxTemplate }).then(names),
    custom.listNamespacedCustomObject({ ...scope, plural: plurals.SandboxTemplate, namespace }).then(names),
    deps.governance.effective(namespace),
  ]);
  const allowed = (t: { kind: TemplateRef['kind']; name: string }) =>
    !policy.allowedTemplates || templateAllowed(policy.allowedTemplates, t);
  const templates = [
    ...cluster.map((name) => ({ kind: 'ClusterSandboxTemplate' as const, name })),
    ...namespaced.map((name) => ({ kind: 'SandboxTemplate' as const, name })),
  ]
    .filter(allowed)
    .sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind));
  const choice =
    templates.length === 0
      ? 'there is no template you may use'
      : `templates you may use: ${templates.map((t) => `${t.name} (${t.kind})`).join(', ')}`;
  throw new HttpError(
    400,
    'template_not_found',
    `${ref.kind} "${ref.name}" not found${ref.kind === 'SandboxTemplate' ? ` in namespace ${namespace}` : ''}; ${choice}`,
    { extra: { templates } },
  );
}
