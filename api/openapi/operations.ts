import { OpenApiDocument } from '../../core/index.ts';
import { operation } from './route.ts';

export const getOpenApiDocument = operation({
  method: 'get',
  path: '/openapi.json',
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  responses: { 200: OpenApiDocument },
  errors: [401],
});
