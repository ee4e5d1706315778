import { ApiKeyList, CreateApiKeyRequest, CreatedApiKey } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

export const listApiKeys = operation({
  method: 'get',
  path: '/apikeys',
  operationId: 'listApiKeys',
  summary: 'List API keys, without the keys themselves (admin)',
  responses: { 200: ApiKeyList },
  errors: [401, 403, 503],
});

export const createApiKey = operation({
  method: 'post',
  path: '/apikeys',
  operationId: 'createApiKey',
  summary: 'Create an API key; the answer is the only time the key is shown (admin)',
  request: CreateApiKeyRequest,
  responses: { 201: CreatedApiKey },
  errors: [400, 401, 403, 409, 413, 503],
});

export const revokeApiKey = operation({
  method: 'delete',
  path: '/apikeys/{keyId}',
  operationId: 'revokeApiKey',
  summary: 'Revoke an API key (admin)',
  responses: { 204: undefined },
  errors: [400, 401, 403, 404, 409, 503],
});

export const keyOperations = [listApiKeys, createApiKey, revokeApiKey];
