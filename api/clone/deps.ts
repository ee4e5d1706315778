import type { ApiDeps } from '../deps.ts';

/**
 * What the clone routes touch of `ApiDeps` (built once in cmd/api.ts): its own uses and those of
 * the helpers it calls (api/request, tickets, admission). A field not named here is not used.
 */
export type CloneDeps = Pick<
  ApiDeps,
  | 'cache'
  | 'clock'
  | 'credentials'
  | 'defaultNamespace'
  | 'governance'
  | 'kc'
  | 'logger'
  | 'names'
  | 'namespaces'
  | 'sandboxes'
  | 'snapshots'
>;
