import { z } from 'zod';

/** `POST /sandboxes/{id}/ports/{port}/preview-ticket`: the URL that signs a browser in. */
export const PreviewTicket = z
  .object({
    url: z
      .string()
      .describe(
        "The preview path with `?ticket=`, relative to the API's host: open it in a browser. Its first GET answers 303 with the preview's cookie and the same URL without the ticket",
      ),
    expiresAt: z.iso.datetime().describe('30 seconds after it was issued; the ticket is valid once'),
  })
  .meta({ id: 'PreviewTicket' });
