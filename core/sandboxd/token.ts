import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The per-installation key every sandboxd token is derived from: a Secret in the service's
 * namespace holding `bytes` random bytes under `dataKey`. The operator creates it at start-up.
 */
export const SandboxdKey = { secretName: 'svc-sandboxd-key', dataKey: 'key', bytes: 32 } as const;

/**
 * A sandbox's sandboxd token: base64url (no padding) of HMAC-SHA256(key,
 * `<namespace>/<name>/<uid>`). Whoever holds the key can work out any sandbox's token, so
 * neither the API nor the operator needs to read the token Secrets in sandbox namespaces;
 * the uid gives a sandbox re-created under the same name a new token.
 *
 * @example sandboxdToken(key, { namespace: 'team-a', name: 'hello', uid: sandbox.metadata.uid })
 */
export function sandboxdToken(
  key: Uint8Array,
  sandbox: { namespace: string; name: string; uid: string },
): string {
  if (key.length === 0) throw new Error('the sandboxd key is empty');
  if (!sandbox.namespace || !sandbox.name || !sandbox.uid)
    throw new Error('a sandboxd token needs the sandbox namespace, name and uid');
  // Namespaces and names are DNS labels/subdomains: a `/` cannot occur in either.
  return createHmac('sha256', key)
    .update(`${sandbox.namespace}/${sandbox.name}/${sandbox.uid}`)
    .digest('base64url');
}

/**
 * The key the API signs its tickets of `purpose` with: HKDF-SHA256 of the installation's key
 * under a label of its own. No sandbox can work it out: a sandbox holds only its own token,
 * an HMAC of the key over `<namespace>/<name>/<uid>`, from which neither the key nor any
 * other value keyed by it follows, and the label (spaces, `ticket`) is no such string.
 */
export function ticketKey(key: Uint8Array, purpose: string): Buffer {
  if (key.length === 0) throw new Error('the installation key is empty');
  return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `svc ticket key v2 ${purpose}`, 32));
}
