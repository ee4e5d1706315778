import { CloneRequest, CloneResponse, NamespaceQuery } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { governed, onSandbox } from '../openapi/shared.ts';

export const cloneSandbox = operation({
  method: 'post',
  path: '/sandboxes/{id}/clone',
  operationId: 'cloneSandbox',
  summary: 'Clone a sandbox from a VolumeSnapshot of its workspace',
  request: CloneRequest,
  query: NamespaceQuery,
  responses: { 202: CloneResponse },
  errors: [...onSandbox, 409, 413, 500],
  refusals: governed,
});

export const cloneOperations = [cloneSandbox];
