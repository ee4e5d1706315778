import { z } from 'zod';

const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
// The last label starts with a letter, as every top-level domain does: so an IPv4 literal
// (all digits) is never a name, and an IPv6 one (colons, brackets) never matches at all.
const LAST = '[a-z]([-a-z0-9]{0,61}[a-z0-9])?';
const PORT = '([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
const NAME = `(${LABEL}\\.)*${LAST}`;

/** `name`, `*.name`, each with an optional `:port`; lower case, no trailing dot. */
export const HOST_PATTERN = `^(\\*\\.)?${NAME}(:${PORT})?$`;

/**
 * One entry of an egress allowlist: an exact host name (`pypi.org`), or `*.` and a name
 * (`*.pythonhosted.org`: any name below it, not the name itself), each with an optional
 * port (`api.example.com:443`; without one, any port). Lower case, no trailing dot, never
 * an IP address: the gateway decides on names, and an address is what the NetworkPolicy is for.
 */
export const AllowedHost = z
  .string()
  .max(260)
  .regex(
    new RegExp(HOST_PATTERN),
    'must be a lower-case host name, or *. and a name, with an optional :port (never an IP address)',
  )
  .refine((entry) => hostName(entry).length <= 253, 'the host name is longer than 253 characters')
  .describe('A host name (pypi.org), or *. and a name (*.pythonhosted.org), with an optional :port');
export type AllowedHost = z.infer<typeof AllowedHost>;

export const AllowedHosts = z.array(AllowedHost).max(256).meta({ 'x-kubernetes-list-type': 'set' });

/** An entry taken apart. */
export interface HostRule {
  /** The name without `*.`. */
  name: string;
  /** `*.name`: names below `name`, not `name` itself. */
  wildcard: boolean;
  /** Absent: any port. */
  port?: number;
}

/** @example parseRule('*.example.com:443') // { name: 'example.com', wildcard: true, port: 443 } */
export function parseRule(entry: string): HostRule {
  const wildcard = entry.startsWith('*.');
  const rest = wildcard ? entry.slice(2) : entry;
  const colon = rest.lastIndexOf(':');
  const rule: HostRule = { name: (colon < 0 ? rest : rest.slice(0, colon)).toLowerCase(), wildcard };
  if (colon >= 0) rule.port = Number(rest.slice(colon + 1));
  return rule;
}

const hostName = (entry: string) => parseRule(entry).name;

/**
 * The host a client asked for, as the gateway compares it: lower case, without the one
 * trailing dot of a fully qualified name; undefined when it is no host name at all (an IP
 * literal, a bracketed IPv6 address, anything with a character a name cannot hold).
 * @example normalizeHost('PyPI.org.') // 'pypi.org'
 */
export function normalizeHost(host: string): string | undefined {
  const name = (host.endsWith('.') ? host.slice(0, -1) : host).toLowerCase();
  if (name.length === 0 || name.length > 253) return undefined;
  return NAME_RE.test(name) ? name : undefined;
}

const NAME_RE = new RegExp(`^${NAME}$`);

/** Whether `rule` lets a connection to `host:port` through (`host` normalized). */
export function ruleAllows(rule: HostRule, host: string, port: number): boolean {
  if (rule.port !== undefined && rule.port !== port) return false;
  return rule.wildcard ? host.endsWith(`.${rule.name}`) : host === rule.name;
}

/**
 * Whether any entry of `entries` allows `host` on `port`. A host that is no name (an IP
 * address) is never allowed.
 * @example hostAllowed(['*.pythonhosted.org'], 'files.pythonhosted.org', 443) // true
 */
export function hostAllowed(entries: readonly string[], host: string, port: number): boolean {
  const name = normalizeHost(host);
  if (name === undefined) return false;
  return entries.some((entry) => ruleAllows(parseRule(entry), name, port));
}

/**
 * Whether `outer` allows everything `inner` does: a Sandbox's entry inside its template's,
 * a template's inside the policy's ceiling.
 * @example covers('*.example.com', 'a.example.com:443') // true
 */
export function covers(outer: string, inner: string): boolean {
  const o = parseRule(outer);
  const i = parseRule(inner);
  if (o.port !== undefined && o.port !== i.port) return false;
  if (!o.wildcard) return !i.wildcard && i.name === o.name;
  return i.name.endsWith(`.${o.name}`) || (i.wildcard && i.name === o.name);
}

/** The entries of `inner` that no entry of `outer` covers, in order. */
export function uncovered(outer: readonly string[], inner: readonly string[]): string[] {
  return inner.filter((entry) => !outer.some((o) => covers(o, entry)));
}

/** The reasons of the egress gateway's audit Events: what `GET /audit/events?category=egress` selects. */
export const EgressReasons = { allowed: 'EgressAllowed', denied: 'EgressDenied' } as const;
