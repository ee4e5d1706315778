import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { ApiKeyStore, AuthOptions } from './auth/index.ts';
import type { SandboxCache, SandboxWriter, SnapshotWriter } from './cluster/index.ts';
import type { PreviewTargets } from './preview/index.ts';
import type { AuditRecorder } from './audit/index.ts';
import type { ConsoleOptions } from './console/index.ts';
import type { ApiMetrics } from './metrics/index.ts';
import type {
  CredentialGate,
  Governance,
  NamespaceGate,
  SandboxdKeySource,
  SandboxdLocator,
} from '../kube/index.ts';
import type { UserSecrets } from './secrets/index.ts';
import type { NameGate } from './sandboxes/index.ts';
import type { Tracing } from '../telemetry/index.ts';

/** Everything the routes need, built once in `cmd/api.ts` and passed down. */
export interface ApiDeps {
  kc: KubeConfig;
  cache: SandboxCache;
  sandboxes: SandboxWriter;
  snapshots: SnapshotWriter;
  previews: PreviewTargets;
  audit: AuditRecorder;
  metrics: ApiMetrics;
  keys: ApiKeyStore;
  auth: AuthOptions;
  defaultNamespace: string;
  logger: Logger;
  clock: () => Date;
  /** `networking.previewDomain`, when public preview URLs are configured. */
  previewDomain?: string;
  /** How long an endpoint waits for the operator to publish a change in status. */
  statusWaitMs: number;
  /** Policies, and their enforcement at create (and clone) and configure time. */
  governance: Governance;
  /** Which namespaces may hold sandboxes (`svc.io/sandboxes=enabled`, never the service's own). */
  namespaces: NamespaceGate;
  /** Which Secrets a caller may name in `spec.credentials`. */
  credentials: CredentialGate;
  /** Whether the names a sandbox (or a port's Service) needs are free: 409 `name_conflict`. */
  names: NameGate;
  /** Users' own Secrets: `/api/v1/secrets`. */
  secrets: UserSecrets;
  /** Where each sandbox's sandboxd answers: the data path of configure and invoke. */
  sandboxd: SandboxdLocator;
  /**
   * The installation's key (the `svc-sandboxd-key` Secret): tickets are signed with keys
   * derived from it (`ticketKey`), which no sandbox can read or work out.
   */
  installationKey: SandboxdKeySource;
  /** Spans of configure and invoke (a no-op tracer when no exporter is configured). */
  tracing: Tracing;
  /**
   * `limits.perUserConcurrency`: the most exec, invoke, configure and file-transfer calls one
   * user may have in flight through this replica at once.
   */
  limits: { perUserConcurrency: number };
  /** The browser console at `/`, when its built files are there (`make console`). */
  console?: ConsoleOptions;
}
