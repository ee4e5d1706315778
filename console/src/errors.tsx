// Refusals as people read them: the API's message, its error code and each violation code.
import { ApiError, ForbiddenError } from '../../clients/typescript/index.ts';

export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  if (error instanceof ApiError) {
    const violations = error instanceof ForbiddenError ? error.violations : [];
    const fields = fieldsOf(error.body);
    return (
      <div class="error" role="alert">
        <strong>
          {error.status} {error.code}
        </strong>
        {violations.length === 0 ? <span>: {error.message}</span> : null}
        {violations.length > 0 ? (
          <ul>
            {violations.map((v) => (
              <li key={v.code + v.message}>
                <code>{v.code}</code> {v.message}
              </li>
            ))}
          </ul>
        ) : null}
        {fields.length > 0 ? (
          <ul>
            {fields.map((f) => (
              <li key={f.path}>
                <code>{f.path || 'body'}</code> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    );
  }
  return (
    <div class="error" role="alert">
      {error instanceof Error ? error.message : JSON.stringify(error)}
    </div>
  );
}

function fieldsOf(body: unknown): { path: string; message: string }[] {
  const fields = (body as { fields?: unknown } | null)?.fields;
  return Array.isArray(fields) ? (fields as { path: string; message: string }[]) : [];
}
