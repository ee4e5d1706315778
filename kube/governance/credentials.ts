import { AuthorizationV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import {
  Labels,
  mayUseSecret,
  namespaceRefusal,
  neverEnabled,
  referencedSecrets,
  reservedSecretReason,
  type SandboxSpec,
  type SecretUser,
  type Violation,
} from '../../core/index.ts';
import { isStatus } from '../controller/index.ts';

/** What a credential check found: refusals (403) and references to nothing (400). */
export interface CredentialVerdict {
  violations: Violation[];
  /** "Secret x does not exist in namespace n", "Secret x has no key k". */
  missing: string[];
}

const refuse = (message: string): Violation => ({ code: 'credential_not_allowed', message });

/**
 * The API's rule for `spec.credentials`: every Secret named must exist in the sandbox's
 * namespace, carry the keys named, and be the caller's (owner label, allowed users or
 * groups) unless the caller is an admin. The service's own Secrets and sandboxes' token
 * Secrets are refused for everyone. Refusals come before existence, so a Secret that is not
 * the caller's is refused whether or not the keys named are in it.
 */
export class CredentialGate {
  readonly #core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
  }

  async check(who: SecretUser, namespace: string, spec: Pick<SandboxSpec, 'credentials'>) {
    const verdict: CredentialVerdict = { violations: [], missing: [] };
    for (const ref of referencedSecrets(spec)) {
      const reserved = reservedSecretReason(ref.secretName);
      if (reserved) {
        verdict.violations.push(refuse(`${reserved}; no sandbox may use it`));
        continue;
      }
      let secret;
      try {
        secret = await this.#core.readNamespacedSecret({ name: ref.secretName, namespace });
      } catch (err) {
        if (!isStatus(err, 404)) throw err;
        verdict.missing.push(`Secret ${ref.secretName} does not exist in namespace ${namespace}`);
        continue;
      }
      if (!mayUseSecret(secret.metadata ?? {}, who, Labels.sandbox)) {
        verdict.violations.push(
          refuse(
            `Secret ${ref.secretName} is not ${who.user}'s to use (it is not labelled or annotated for them)`,
          ),
        );
        continue;
      }
      for (const key of ref.keys) {
        if (secret.data?.[key] === undefined && secret.stringData?.[key] === undefined)
          verdict.missing.push(`Secret ${ref.secretName} has no key ${key}`);
      }
    }
    return verdict;
  }
}

/**
 * The webhook's rule for `spec.credentials` written straight to the apiserver: the
 * requesting user must be allowed to `get` each Secret named (a SubjectAccessReview), and
 * reserved names are refused for everyone. The webhook itself reads no Secret.
 */
export class SecretAccessReviewer {
  readonly #authz: AuthorizationV1Api;

  constructor(kc: KubeConfig) {
    this.#authz = kc.makeApiClient(AuthorizationV1Api);
  }

  async check(
    who: { user: string; groups: string[]; uid?: string; extra?: Record<string, string[]> },
    namespace: string,
    spec: Pick<SandboxSpec, 'credentials'>,
  ): Promise<Violation[]> {
    const violations: Violation[] = [];
    for (const ref of referencedSecrets(spec)) {
      const reserved = reservedSecretReason(ref.secretName);
      if (reserved) {
        violations.push(refuse(`${reserved}; no sandbox may use it`));
        continue;
      }
      const review = await this.#authz.createSubjectAccessReview({
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: who.user,
            groups: who.groups,
            ...(who.uid ? { uid: who.uid } : {}),
            ...(who.extra ? { extra: who.extra } : {}),
            resourceAttributes: { namespace, verb: 'get', resource: 'secrets', name: ref.secretName },
          },
        },
      });
      if (!review.status?.allowed)
        violations.push(refuse(`${who.user} may not get Secret ${ref.secretName} in namespace ${namespace}`));
    }
    return violations;
  }
}

/** Namespaces opt in to sandboxes with a label; see `namespaceRefusal`. */
export class NamespaceGate {
  readonly #core: CoreV1Api;
  readonly #serviceNamespace: string;

  constructor(kc: KubeConfig, serviceNamespace: string) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#serviceNamespace = serviceNamespace;
  }

  /** `missing` when the namespace does not exist; else a refusal, or undefined when enabled. */
  async check(namespace: string): Promise<{ missing: true } | { missing: false; refusal?: Violation }> {
    // Refused without a read, so a name that cannot be enabled never reaches the apiserver.
    if (neverEnabled(namespace, this.#serviceNamespace))
      return {
        missing: false,
        refusal: notEnabled(namespaceRefusal(namespace, {}, this.#serviceNamespace)!),
      };
    let labels: Record<string, string> | undefined;
    try {
      labels = (await this.#core.readNamespace({ name: namespace })).metadata?.labels;
    } catch (err) {
      if (isStatus(err, 404)) return { missing: true };
      throw err;
    }
    const refusal = namespaceRefusal(namespace, labels, this.#serviceNamespace);
    return refusal ? { missing: false, refusal: notEnabled(refusal) } : { missing: false };
  }
}

const notEnabled = (message: string): Violation => ({ code: 'namespace_not_enabled', message });
