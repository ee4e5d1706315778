import { CustomObjectsApi } from '@kubernetes/client-node';
import { Hono } from 'hono';
import {
  GROUP,
  VERSION,
  templateAllowed,
  type CurrentUser,
  type SandboxWarmPool,
  type Template,
} from '../../core/index.ts';
import type { Caller } from '../auth/index.ts';
import type { DiscoveryDeps } from './deps.ts';
import { notFound } from '../errors/index.ts';
import { route } from '../openapi/index.ts';
import { namespaceQuery, pathParams } from '../validation/index.ts';
import { getCurrentUser, getTemplate, listPorts, listTemplates } from './operations.ts';
import { onOwnedSandbox, requestNamespace, type OnSandbox } from '../request/index.ts';

const KINDS = {
  ClusterSandboxTemplate: 'clustersandboxtemplates',
  SandboxTemplate: 'sandboxtemplates',
} as const;
type Kind = keyof typeof KINDS;

/** Where a template's one-line description is read from, first found wins. */
const DESCRIPTION_ANNOTATIONS = ['svc.io/description', 'kubernetes.io/description'];

interface TemplateObject {
  metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
  spec?: { image?: string } & Record<string, unknown>;
}

/**
 * What a client needs to discover before it acts: the templates it may use, who it is, and
 * a sandbox's forwarded ports. Read-only; every route authenticated (the v1 middleware).
 */
export function discoveryRoutes(deps: DiscoveryDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, [listPorts]);
  app.use('/templates', namespaceQuery());
  app.use('/templates/*', namespaceQuery());
  app.use('/templates/:name', pathParams('name'));

  route(app, listTemplates, async (c, _, reply) => {
    const templates = await usableTemplates(deps, requestNamespace(c, deps));
    return reply.json(200, { templates });
  });

  route(app, getTemplate, async (c, { query }, reply) => {
    const name = c.req.param('name');
    const kind = query.kind;
    const namespace = requestNamespace(c, deps);
    const found = (await usableTemplates(deps, namespace)).filter(
      (t) => t.name === name && (kind === undefined || t.kind === kind),
    );
    // A name that is both: the ClusterSandboxTemplate, as a templateRef without a kind means.
    const template = found.find((t) => t.kind === 'ClusterSandboxTemplate') ?? found[0];
    if (!template) throw notFound(`no template ${name} you may use in namespace ${namespace}`);
    return reply.json(200, template);
  });

  route(app, getCurrentUser, (c, _, reply) => reply.json(200, me(c.var.caller)));

  route(app, listPorts, (c, _, reply) =>
    reply.json(200, { ports: c.var.sandbox.status?.forwardedPorts ?? [] }),
  );

  return app;
}

/** `GET /user/me`: the caller as the API sees it. */
export function me(caller: Caller): CurrentUser {
  return {
    sub: caller.user,
    name: caller.name ?? caller.user,
    email: caller.email ?? null,
    groups: caller.groups,
    isAdmin: caller.isAdmin,
  };
}

/**
 * The ClusterSandboxTemplates and the namespace's SandboxTemplates that governance's
 * `allowedTemplates` lets the caller create from, by name then kind.
 */
async function usableTemplates(deps: DiscoveryDeps, namespace: string): Promise<Template[]> {
  const custom = deps.kc.makeApiClient(CustomObjectsApi);
  const scope = { group: GROUP, version: VERSION };
  const items = (list: unknown) => (list as { items?: TemplateObject[] }).items ?? [];
  const [cluster, namespaced, policy, pools] = await Promise.all([
    custom.listClusterCustomObject({ ...scope, plural: KINDS.ClusterSandboxTemplate }).then(items),
    custom.listNamespacedCustomObject({ ...scope, plural: KINDS.SandboxTemplate, namespace }).then(items),
    deps.governance.effective(namespace),
    custom
      .listNamespacedCustomObject({ ...scope, plural: 'sandboxwarmpools', namespace })
      .then((list) => (list as { items?: SandboxWarmPool[] }).items ?? []),
  ]);
  const readyMembers = (name: string, kind: Kind) =>
    pools
      .filter(
        (p) =>
          p.spec.templateRef.name === name && (p.spec.templateRef.kind ?? 'ClusterSandboxTemplate') === kind,
      )
      .reduce((n, p) => n + (p.status?.readyReplicas ?? 0), 0);
  const allowed = (t: Template) => !policy.allowedTemplates || templateAllowed(policy.allowedTemplates, t);
  return [
    ...cluster.map((t) => view(t, 'ClusterSandboxTemplate', readyMembers)),
    ...namespaced.map((t) => view(t, 'SandboxTemplate', readyMembers)),
  ]
    .filter(allowed)
    .sort((a, b) => a.name.localeCompare(b.name) || a.kind.localeCompare(b.kind));
}

function view(t: TemplateObject, kind: Kind, readyMembers: (name: string, kind: Kind) => number): Template {
  const annotations = t.metadata?.annotations ?? {};
  const description = DESCRIPTION_ANNOTATIONS.map((a) => annotations[a]).find((d) => d !== undefined);
  return {
    name: t.metadata?.name ?? '',
    kind,
    description: description ?? '',
    image: t.spec?.image ?? '',
    resourceVersion: t.metadata?.resourceVersion ?? '',
    spec: t.spec ?? {},
    readyMembers: readyMembers(t.metadata?.name ?? '', kind),
  };
}
