import { ApiKeyList, CreateApiKeyRequest, CreatedApiKey } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { adminDelete, adminList, adminWrite } from '../openapi/shared.ts';

export const listApiKeys = operation({
  method: 'get',
  path: '/apikeys',
  operationId: 'listApiKeys',
  summary: 'List API keys, without the keys themselves (admin)',
  responses: { 200: ApiKeyList },
  errors: adminList,
});

export const createApiKey = operation({
  method: 'post',
  path: '/apikeys',
  operationId: 'createApiKey',
  summary: 'Create an API key; the answer is the only time the key is shown (admin)',
  request: CreateApiKeyRequest,
  responses: { 201: CreatedApiKey },
  errors: adminWrite,
});

export const revokeApiKey = operation({
  method: 'delete',
  path: '/apikeys/{keyId}',
  operationId: 'revokeApiKey',
  summary: 'Revoke an API key (admin)',
  responses: { 204: undefined },
  errors: adminDelete,
});

export const keyOperations = [listApiKeys, createApiKey, revokeApiKey];
