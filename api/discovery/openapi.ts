import { z } from 'zod';
import { ForwardedPort, NamespaceName } from '../../core/index.ts';
import type { Operation } from '../openapi/document.ts';

const Template = z
  .object({
    name: z.string(),
    kind: z.enum(['ClusterSandboxTemplate', 'SandboxTemplate']),
    description: z
      .string()
      .describe('The svc.io/description (or kubernetes.io/description) annotation; empty without'),
    image: z.string(),
    resourceVersion: z.string(),
    spec: z.record(z.string(), z.unknown()).describe("The template's spec as stored"),
    readyMembers: z
      .int()
      .min(0)
      .describe(
        "Warm-pool members ready in the namespace for this template (SandboxWarmPools' readyReplicas): a create that fits one starts at once",
      ),
  })
  .meta({ id: 'Template' });
const TemplateList = z.object({ templates: z.array(Template) }).meta({ id: 'TemplateList' });
const CurrentUser = z
  .object({
    sub: z.string().describe('The user name the API knows the caller by (owner of their sandboxes)'),
    name: z.string().describe("The token's name claim; the user name without one"),
    email: z.string().nullable().describe("The token's email claim; null without one"),
    groups: z.array(z.string()),
    isAdmin: z.boolean(),
  })
  .meta({ id: 'CurrentUser' });
const PortList = z.object({ ports: z.array(ForwardedPort) }).meta({ id: 'PortList' });

const InNamespace = z.object({ namespace: NamespaceName.optional() });

/** Discovery: templates, the caller, a sandbox's ports. */
export const discoveryOperations: Operation[] = [
  {
    method: 'get',
    path: '/templates',
    operationId: 'listTemplates',
    summary:
      "The ClusterSandboxTemplates and the namespace's SandboxTemplates the caller may use (governance's allowedTemplates)",
    query: InNamespace,
    responses: { 200: TemplateList },
    errors: [400, 401, 503],
  },
  {
    method: 'get',
    path: '/templates/{name}',
    operationId: 'getTemplate',
    summary:
      'One template the caller may use; a name that is both kinds gives the ClusterSandboxTemplate unless `kind` says',
    query: InNamespace.extend({ kind: z.enum(['ClusterSandboxTemplate', 'SandboxTemplate']).optional() }),
    responses: { 200: Template },
    errors: [400, 401, 404, 503],
  },
  {
    method: 'get',
    path: '/user/me',
    operationId: 'getCurrentUser',
    summary: 'The caller as the API sees it',
    responses: { 200: CurrentUser },
    errors: [401],
  },
  {
    method: 'get',
    path: '/sandboxes/{id}/ports',
    operationId: 'listPorts',
    summary: "The sandbox's forwarded ports (status.forwardedPorts)",
    query: InNamespace,
    responses: { 200: PortList },
    errors: [400, 401, 403, 404, 503],
  },
];
