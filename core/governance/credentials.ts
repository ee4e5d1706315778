import { SandboxdKey } from '../sandboxd/index.ts';
import type { SandboxSpec } from '../sandbox/index.ts';

/** How a Secret says who may name it in `spec.credentials`. */
export const CredentialMarks = {
  /** Label: the user the Secret belongs to (set by `POST /api/v1/secrets`). */
  owner: 'svc.io/owner',
  /** Annotations, comma-separated: further users and groups who may use it. */
  allowedUsers: 'svc.io/allowed-users',
  allowedGroups: 'svc.io/allowed-groups',
} as const;

/** The namespace label that opts a namespace in to sandboxes. */
export const SandboxNamespaces = {
  label: 'svc.io/sandboxes',
  enabled: 'enabled',
  /** Never enabled, whatever their labels say (besides the service's own namespace). */
  neverEnabled: ['kube-system'],
} as const;

/**
 * The service's own Secrets: the key every sandboxd token derives from and the API key
 * records. Refused by name in every namespace, for everyone, admins too.
 */
export const RESERVED_SECRET_NAMES: readonly string[] = [SandboxdKey.secretName, 'svc-api-keys'];

export interface SecretReference {
  secretName: string;
  /** The data keys env entries read from it (files mount the whole Secret). */
  keys: string[];
}

export interface SecretUser {
  user: string;
  groups: string[];
  isAdmin: boolean;
}

/** Every Secret the spec's credentials name, once each, with the keys read from it. */
export function referencedSecrets(spec: Pick<SandboxSpec, 'credentials'>): SecretReference[] {
  const refs = new Map<string, SecretReference>();
  const at = (secretName: string) => {
    let ref = refs.get(secretName);
    if (!ref) refs.set(secretName, (ref = { secretName, keys: [] }));
    return ref;
  };
  for (const e of spec.credentials?.env ?? []) {
    const ref = at(e.secretName);
    if (!ref.keys.includes(e.key)) ref.keys.push(e.key);
  }
  for (const f of spec.credentials?.files ?? []) at(f.secretName);
  return [...refs.values()];
}

/**
 * Why no one may reference `name`, judged on the name alone: the service's own Secrets, and
 * sandboxes' token Secrets (`<sandbox>-sandboxd`, the operator's naming). Undefined: the
 * name alone does not forbid it (the Secret's labels may still).
 */
export function reservedSecretReason(name: string): string | undefined {
  if (RESERVED_SECRET_NAMES.includes(name)) return `Secret ${name} is one of the service's own Secrets`;
  if (name.endsWith('-sandboxd')) return `Secret ${name} is a sandbox's sandboxd token Secret`;
  return undefined;
}

/**
 * Whether `who` may name a Secret with these labels and annotations: its owner, a user or
 * group it lists, or an admin. Secrets a sandbox owns (its token) are nobody's to use.
 */
export function mayUseSecret(
  secret: { labels?: Record<string, string>; annotations?: Record<string, string> },
  who: SecretUser,
  sandboxLabel: string,
): boolean {
  if (secret.labels?.[sandboxLabel] !== undefined) return false;
  if (who.isAdmin) return true;
  if (secret.labels?.[CredentialMarks.owner] === who.user) return true;
  const list = (key: string) =>
    (secret.annotations?.[key] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  if (list(CredentialMarks.allowedUsers).includes(who.user)) return true;
  const groups = list(CredentialMarks.allowedGroups);
  return who.groups.some((g) => groups.includes(g));
}

/** The service's own namespace and system namespaces: never sandboxes, whatever their labels. */
export function neverEnabled(namespace: string, serviceNamespace: string): boolean {
  return (
    namespace === serviceNamespace ||
    (SandboxNamespaces.neverEnabled as readonly string[]).includes(namespace)
  );
}

/**
 * Why sandboxes may not be created in `namespace` (labels: the Namespace's), or undefined
 * when they may. The service's own namespace and kube-system are refused even if labelled.
 */
export function namespaceRefusal(
  namespace: string,
  labels: Record<string, string> | undefined,
  serviceNamespace: string,
): string | undefined {
  if (neverEnabled(namespace, serviceNamespace))
    return `namespace ${namespace} can never hold sandboxes (it is the service's own or a system namespace)`;
  if (labels?.[SandboxNamespaces.label] !== SandboxNamespaces.enabled)
    return `namespace ${namespace} is not enabled for sandboxes (label it ${SandboxNamespaces.label}=${SandboxNamespaces.enabled})`;
  return undefined;
}
