// The one door of egress: host-name allowlists (the shape, and the matching the gateway and governance share).
export {
  AllowedHost,
  AllowedHosts,
  EgressReasons,
  HOST_PATTERN,
  covers,
  hostAllowed,
  normalizeHost,
  parseRule,
  ruleAllows,
  uncovered,
} from './hosts.ts';
export type { HostRule } from './hosts.ts';
