import { hostAllowed, normalizeHost } from '../core/index.ts';

/** The sandbox behind a source address, and the list it may reach. */
export interface Asker {
  namespace: string;
  sandbox: string;
  /** `Kind/name` of its template, for the metrics' `template` label. */
  template: string;
  /** Its effective list: its own `network.allowedHosts`, else its template's; empty when the template's egress is not allowlist. */
  allowedHosts: readonly string[];
  /** The Sandbox's uid and owner, for its audit Events. */
  uid?: string;
  owner?: string;
}

/** What a client asked the gateway for. */
export interface Ask {
  /** The CONNECT target's or the request's host, as sent. */
  host: string;
  port: number;
  /** The TLS ClientHello's server name, where there was one. */
  sni?: string;
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether `asker` may reach `ask`: the host (and, where the client sent one, the SNI) must be
 * on its list, and the two must name the same host, so a tunnel opened to an allowed name
 * cannot carry a handshake for another. The reason is the one line a refused tool shows.
 * @example decide(undefined, { host: 'pypi.org', port: 443 }) // refused: no sandbox
 */
export function decide(asker: Asker | undefined, ask: Ask, source: string): Decision {
  if (asker === undefined) {
    return {
      allowed: false,
      reason: `svc egress: ${ask.host} is not allowed for ${source}: no sandbox has that address`,
    };
  }
  const refused = (host: string) => ({
    allowed: false as const,
    reason: `svc egress: ${host} is not allowed for sandbox ${asker.sandbox}`,
  });
  if (!hostAllowed(asker.allowedHosts, ask.host, ask.port)) return refused(ask.host);
  if (ask.sni !== undefined && normalizeHost(ask.sni) !== normalizeHost(ask.host)) {
    return {
      allowed: false,
      reason: `svc egress: TLS server name ${ask.sni} is not ${ask.host}, the host the tunnel was opened to, for sandbox ${asker.sandbox}`,
    };
  }
  return { allowed: true };
}
