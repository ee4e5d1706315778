import { NamespaceQuery, PreviewTicket } from '../../core/index.ts';
import { operation } from '../openapi/route.ts';
import { onSandbox } from '../openapi/shared.ts';

export const previewPort = operation({
  method: 'get',
  anyMethod: true,
  path: '/sandboxes/{id}/preview/{port}/{path}',
  operationId: 'previewPort',
  summary: 'Reverse-proxy to a forwarded port (any method; WebSocket upgrades pass through)',
  query: NamespaceQuery,
  responses: {},
  errors: [...onSandbox, 409, 502],
  anyStatus: "The app's own response, passed through",
});

/** The preview's sign-in for browsers (docs/ports.md, "Opening a preview in a browser"). */
export const createPreviewTicket = operation({
  method: 'post',
  path: '/sandboxes/{id}/ports/{port}/preview-ticket',
  operationId: 'createPreviewTicket',
  summary:
    "A one-use ticket that signs a browser in to one forwarded port's preview path (a cookie for that path only, 15 minutes)",
  query: NamespaceQuery,
  responses: { 200: PreviewTicket },
  errors: [400, 401, 403, 404, 409, 503],
});
