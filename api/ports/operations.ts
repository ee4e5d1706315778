import { ForwardedPort, NamespaceQuery, PortRequest } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { onSandbox } from '../openapi/shared.ts';

export const forwardPort = operation({
  method: 'post',
  path: '/sandboxes/{id}/ports',
  operationId: 'forwardPort',
  summary: 'Forward a container port',
  request: PortRequest,
  query: NamespaceQuery,
  responses: { 200: ForwardedPort, 201: ForwardedPort },
  errors: [...onSandbox, 409, 413, 504],
});

export const unforwardPort = operation({
  method: 'delete',
  path: '/sandboxes/{id}/ports/{port}',
  operationId: 'unforwardPort',
  summary: 'Stop forwarding a port (idempotent)',
  query: NamespaceQuery,
  responses: { 204: undefined },
  errors: [...onSandbox, 409, 504],
});

export const portOperations = [forwardPort, unforwardPort];
