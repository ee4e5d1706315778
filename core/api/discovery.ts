import { z } from 'zod';
import { ForwardedPort, TemplateKind } from '../sandbox/index.ts';
import { NamespaceName } from './sandboxes.ts';

/** `GET /templates` and `GET /sandboxes/{id}/ports`: the namespace asked about. */
export const InNamespace = z.object({ namespace: NamespaceName.optional() });
/** `GET /templates/{name}`: a name that is both kinds is the ClusterSandboxTemplate unless `kind` says. */
export const TemplateQuery = InNamespace.extend({ kind: TemplateKind.optional() });

export const Template = z
  .object({
    name: z.string(),
    kind: TemplateKind,
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
export type Template = z.infer<typeof Template>;
export const TemplateList = z.object({ templates: z.array(Template) }).meta({ id: 'TemplateList' });

/** `GET /user/me`: the caller as the API sees it. */
export const CurrentUser = z
  .object({
    sub: z.string().describe('The user name the API knows the caller by (owner of their sandboxes)'),
    name: z.string().describe("The token's name claim; the user name without one"),
    email: z.string().nullable().describe("The token's email claim; null without one"),
    groups: z.array(z.string()),
    isAdmin: z.boolean(),
  })
  .meta({ id: 'CurrentUser' });
export type CurrentUser = z.infer<typeof CurrentUser>;

export const PortList = z.object({ ports: z.array(ForwardedPort) }).meta({ id: 'PortList' });

/** `GET /openapi.json`: the API's OpenAPI 3.1 document. */
export const OpenApiDocument = z.record(z.string(), z.unknown()).meta({ id: 'OpenApiDocument' });
