import { AuditList, AuditQuery } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';

export const listAuditEvents = operation({
  method: 'get',
  path: '/audit/events',
  operationId: 'listAuditEvents',
  summary: 'Audit records (Sandbox Events), newest first; non-admins see their own sandboxes only',
  query: AuditQuery,
  responses: { 200: AuditList },
  errors: [400, 401, 403, 404, 503],
});
