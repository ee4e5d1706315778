import { z } from 'zod';
import { NamespaceQuery } from '../../core/index.ts';
import type { Operation } from '../openapi/document.ts';

const PreviewTicket = z
  .object({
    url: z
      .string()
      .describe(
        "The preview path with `?ticket=`, relative to the API's host: open it in a browser. Its first GET answers 303 with the preview's cookie and the same URL without the ticket",
      ),
    expiresAt: z.iso.datetime().describe('30 seconds after it was issued; the ticket is valid once'),
  })
  .meta({ id: 'PreviewTicket' });

/** The preview's sign-in for browsers (docs/ports.md, "Opening a preview in a browser"). */
export const previewOperations: Operation[] = [
  {
    method: 'post',
    path: '/sandboxes/{id}/ports/{port}/preview-ticket',
    operationId: 'createPreviewTicket',
    summary:
      "A one-use ticket that signs a browser in to one forwarded port's preview path (a cookie for that path only, 15 minutes)",
    query: NamespaceQuery,
    responses: { 200: PreviewTicket },
    errors: [400, 401, 403, 404, 409, 503],
  },
];
