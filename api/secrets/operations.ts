import { CreateSecretRequest, NamespaceQuery, SecretList, SecretSummary } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { governed } from '../openapi/shared.ts';

export const createSecret = operation({
  method: 'post',
  path: '/secrets',
  operationId: 'createSecret',
  summary:
    "Store a Secret of the caller's own for spec.credentials, labelled svc.io/owner=<caller>; values are write-only",
  request: CreateSecretRequest,
  query: NamespaceQuery,
  responses: { 201: SecretSummary },
  errors: [400, 401, 403, 404, 409, 413, 503],
  refusals: governed,
});

export const listSecrets = operation({
  method: 'get',
  path: '/secrets',
  operationId: 'listSecrets',
  summary: "The caller's Secrets (an admin: every user's): names and keys, never values",
  query: NamespaceQuery,
  responses: { 200: SecretList },
  errors: [400, 401, 403, 404, 503],
  refusals: governed,
});

export const deleteSecret = operation({
  method: 'delete',
  path: '/secrets/{secretName}',
  operationId: 'deleteSecret',
  summary: "Delete one of the caller's Secrets (404 for another user's)",
  query: NamespaceQuery,
  responses: { 204: undefined },
  errors: [400, 401, 403, 404, 503],
  refusals: governed,
});

export const secretOperations = [createSecret, listSecrets, deleteSecret];
