import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, useAction } from '../errors.tsx';
import { startOidc, type OidcConfig } from '../oidc.ts';
import { clientFor, type Credential } from '../session.ts';

/** An API key (checked with one call before it is kept), or the OIDC issuer when there is one. */
export function SignIn({ onSignedIn }: { onSignedIn: (c: Credential) => void }) {
  const [key, setKey] = useState('');
  const [oidc, setOidc] = useState<OidcConfig | null>(null);
  const { error, setError, busy, act } = useAction();
  useEffect(() => {
    fetch('/console/config.json')
      .then((r) => r.json() as Promise<{ oidc: OidcConfig | null }>)
      .then((c) => setOidc(c.oidc))
      .catch(() => setOidc(null));
  }, []);
  const submit = async (e: Event) => {
    e.preventDefault();
    const credential: Credential = { kind: 'key', value: key.trim() };
    await act(async () => {
      await clientFor(credential).listSandboxes({ limit: 1 });
      onSignedIn(credential);
    });
  };
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to svc</h1>
      {oidc ? (
        <section aria-labelledby="oidc-heading">
          <h2 id="oidc-heading">With your organisation</h2>
          <button type="button" class="primary" onClick={() => void startOidc(oidc).catch(setError)}>
            Sign in with single sign-on
          </button>
        </section>
      ) : null}
      <section aria-labelledby="key-heading">
        <h2 id="key-heading">With an API key</h2>
        <form onSubmit={(e) => void submit(e)}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autocomplete="off"
            required
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
          <p class="hint">Kept in this tab's session storage only, until you sign out or close the tab.</p>
          <button type="submit" class="primary" disabled={busy}>
            Sign in
          </button>
        </form>
        <ErrorBox error={error} />
      </section>
    </main>
  );
}
