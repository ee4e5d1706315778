// Refusals as people read them: the API's message, its error code and each violation code.
import { useState } from 'preact/hooks';
import { ApiError, ForbiddenError } from '../../clients/typescript/index.ts';

/**
 * What a button or form does: `act` runs it, `busy` while it runs (to disable the button),
 * its failure kept in `error` for an ErrorBox and cleared when it runs again.
 */
export function useAction() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const act = async (what: () => Promise<unknown>): Promise<void> => {
    setBusy(true);
    setError(undefined);
    try {
      await what();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { error, setError, busy, act };
}

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
