import {
  Accepted,
  CreateSandboxRequest,
  ListQuery,
  NamespaceQuery,
  PresentedSandbox,
  SandboxList,
} from '../../core/index.ts';
import { governed, onSandbox } from '../openapi/shared.ts';
import { operation } from '../openapi/route.ts';

export const createSandbox = operation({
  method: 'post',
  path: '/sandboxes',
  operationId: 'createSandbox',
  summary: 'Create a sandbox',
  request: CreateSandboxRequest,
  query: NamespaceQuery,
  responses: { 201: PresentedSandbox },
  errors: [400, 401, 403, 404, 409, 413, 503],
  refusals: governed,
});

export const listSandboxes = operation({
  method: 'get',
  path: '/sandboxes',
  operationId: 'listSandboxes',
  summary:
    'List sandboxes (non-admins see their own); `watch=true` with `Accept: text/event-stream` streams `added` for each, then `added`, `modified`, `deleted` as they change',
  query: ListQuery,
  responses: { 200: SandboxList },
  events: { added: PresentedSandbox, modified: PresentedSandbox, deleted: PresentedSandbox },
  errors: [400, 401, 404, 503],
});

export const getSandbox = operation({
  method: 'get',
  path: '/sandboxes/{id}',
  operationId: 'getSandbox',
  summary: 'Get a sandbox',
  query: NamespaceQuery,
  responses: { 200: PresentedSandbox },
  errors: onSandbox,
});

export const deleteSandbox = operation({
  method: 'delete',
  path: '/sandboxes/{id}',
  operationId: 'deleteSandbox',
  summary: 'Delete a sandbox',
  query: NamespaceQuery,
  responses: { 202: Accepted },
  errors: [...onSandbox, 409],
});

export const stopSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/stop',
  operationId: 'stopSandbox',
  summary: 'Stop a sandbox (keeps its workspace)',
  query: NamespaceQuery,
  responses: { 202: PresentedSandbox },
  errors: [...onSandbox, 409],
});

export const resumeSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/resume',
  operationId: 'resumeSandbox',
  summary: 'Resume a stopped sandbox, or one its timeout or idleTimeout stopped',
  query: NamespaceQuery,
  responses: { 202: PresentedSandbox },
  errors: [...onSandbox, 409],
});

/** Sandbox lifecycle, in the document's order. */
export const sandboxOperations = [
  createSandbox,
  listSandboxes,
  getSandbox,
  deleteSandbox,
  stopSandbox,
  resumeSandbox,
];
