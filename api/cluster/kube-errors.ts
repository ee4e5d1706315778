import { HttpError } from '../errors/index.ts';

interface Status {
  message?: string;
  reason?: string;
  details?: { causes?: { field?: string; message?: string }[] };
}

/** The apiserver's status code of a failed client-node call, if it was one. */
export function statusCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

function status(err: unknown): Status {
  const body = (err as { body?: unknown }).body;
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as Status;
    } catch {
      return { message: body };
    }
  }
  return (body as Status | undefined) ?? {};
}

/**
 * Turns an apiserver refusal into the API's error: a conflict stays 409, a schema or CEL
 * rejection (422) becomes 400 with the apiserver's field causes. Anything else is ours
 * to fix, so it is rethrown and becomes a logged 500.
 */
export function fromKube(err: unknown, what: string): Error {
  const code = statusCode(err);
  const s = status(err);
  if (code === 409) return new HttpError(409, 'conflict', `${what}: ${s.message ?? 'already exists'}`);
  if (code === 422 || code === 400) {
    const fields = (s.details?.causes ?? []).map((c) => ({ path: c.field ?? '', message: c.message ?? '' }));
    return new HttpError(400, 'invalid_request', `${what}: ${s.message ?? 'invalid'}`, { extra: { fields } });
  }
  if (code === 404) return new HttpError(404, 'not_found', `${what}: not found`);
  return err instanceof Error ? err : new Error(String(err));
}
