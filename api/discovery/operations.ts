import {
  CurrentUser,
  InNamespace,
  PortList,
  Template,
  TemplateList,
  TemplateQuery,
} from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

export const listTemplates = operation({
  method: 'get',
  path: '/templates',
  operationId: 'listTemplates',
  summary:
    "The ClusterSandboxTemplates and the namespace's SandboxTemplates the caller may use (governance's allowedTemplates)",
  query: InNamespace,
  responses: { 200: TemplateList },
  errors: [400, 401, 503],
});

export const getTemplate = operation({
  method: 'get',
  path: '/templates/{name}',
  operationId: 'getTemplate',
  summary:
    'One template the caller may use; a name that is both kinds gives the ClusterSandboxTemplate unless `kind` says',
  query: TemplateQuery,
  responses: { 200: Template },
  errors: [400, 401, 404, 503],
});

export const getCurrentUser = operation({
  method: 'get',
  path: '/user/me',
  operationId: 'getCurrentUser',
  summary: 'The caller as the API sees it',
  responses: { 200: CurrentUser },
  errors: [401],
});

export const listPorts = operation({
  method: 'get',
  path: '/sandboxes/{id}/ports',
  operationId: 'listPorts',
  summary: "The sandbox's forwarded ports (status.forwardedPorts)",
  query: InNamespace,
  responses: { 200: PortList },
  errors: [400, 401, 403, 404, 503],
});

/** Discovery: templates, the caller, a sandbox's ports. */
export const discoveryOperations = [listTemplates, getTemplate, getCurrentUser, listPorts];
