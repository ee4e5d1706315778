import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Schemas, SvcClient } from '../../clients/typescript/index.ts';
import { ErrorBox } from './errors.tsx';
import { finishOidc } from './oidc.ts';
import { AuditPage } from './pages/audit.tsx';
import { CreatePage } from './pages/create.tsx';
import { ListPage } from './pages/list.tsx';
import { PoliciesPage } from './pages/policies.tsx';
import { SandboxPage } from './pages/sandbox.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { href, useRoute } from './router.ts';
import { clearCredential, clientFor, loadCredential, saveCredential, type Credential } from './session.ts';
import './styles.css';

export interface Session {
  client: SvcClient;
  credential: Credential;
}

function App() {
  const [credential, setCredential] = useState<Credential | undefined>(loadCredential);
  const [returning, setReturning] = useState(() => new URLSearchParams(location.search).has('code'));
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!returning) return;
    finishOidc()
      .then((c) => {
        if (c) {
          saveCredential(c);
          setCredential(c);
        }
      })
      .catch(setError)
      .finally(() => setReturning(false));
  }, [returning]);
  const session = useMemo(
    () => (credential ? { client: clientFor(credential), credential } : undefined),
    [credential],
  );
  const signOut = () => {
    clearCredential();
    setCredential(undefined);
    location.hash = '';
  };
  if (returning)
    return (
      <main id="main">
        <p>Signing in…</p>
      </main>
    );
  if (!session) {
    return (
      <>
        <ErrorBox error={error} />
        <SignIn
          onSignedIn={(c) => {
            saveCredential(c);
            setCredential(c);
          }}
        />
      </>
    );
  }
  return <Shell session={session} onSignOut={signOut} />;
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const [me, setMe] = useState<Schemas['CurrentUser'] | undefined>();
  useEffect(() => {
    session.client.getCurrentUser().then(setMe, () => setMe(undefined));
  }, [session]);
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href.list()}>
          svc
        </a>
        <nav aria-label="Main">
          <a href={href.list()} aria-current={route.page === 'list' ? 'page' : undefined}>
            Sandboxes
          </a>
          <a href={href.create()} aria-current={route.page === 'create' ? 'page' : undefined}>
            New sandbox
          </a>
          {me?.isAdmin ? (
            <a href={href.policies()} aria-current={route.page === 'policies' ? 'page' : undefined}>
              Policies
            </a>
          ) : null}
          <a href={href.audit()} aria-current={route.page === 'audit' ? 'page' : undefined}>
            Audit log
          </a>
          {me ? (
            <span class="who">
              {me.name}
              {me.isAdmin ? ' (admin)' : ''}
            </span>
          ) : null}
          <button type="button" class="link" onClick={onSignOut}>
            Sign out
          </button>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'list' ? <ListPage session={session} /> : null}
        {route.page === 'create' ? <CreatePage session={session} /> : null}
        {route.page === 'sandbox' ? (
          <SandboxPage session={session} name={route.name} tab={route.tab} />
        ) : null}
        {route.page === 'policies' ? <PoliciesPage session={session} /> : null}
        {route.page === 'audit' ? <AuditPage session={session} /> : null}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
// The first render is done and its handlers attached: the browser test reads this mark.
performance.mark('svc-interactive');
