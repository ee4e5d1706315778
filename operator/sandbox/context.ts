import type {
  CoreV1Api,
  CoreV1Event,
  KubernetesObject,
  NetworkingV1Api,
  V1Ingress,
  V1NetworkPolicy,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type {
  ForwardedPort,
  Policy,
  Sandbox,
  SandboxTemplateSpec,
  Stage,
  StepCondition,
} from '../../core/index.ts';
import type { Informer, PolicyStore, SandboxdLocator } from '../../kube/index.ts';
import type { OperatorSettings } from '../settings.ts';
import type { SandboxPatcher } from '../sandbox-patch.ts';
import type { SeenActivity } from './idle.ts';
import type { SandboxdReadiness } from './readiness.ts';
import type { Snapshots } from './snapshots.ts';
import type { WarmClaimer } from '../warmpool/index.ts';

/**
 * What the Sandbox controller reads at steady state, each from an informer shared with the
 * other controllers: a pass reads the cluster from here and writes only what differs.
 */
export interface SandboxCaches {
  sandboxes: Informer<KubernetesObject>;
  pods: Informer<V1Pod>;
  claims: Informer<V1PersistentVolumeClaim>;
  secrets: Informer<V1Secret>;
  services: Informer<V1Service>;
  ingresses: Informer<V1Ingress>;
  networkPolicies: Informer<V1NetworkPolicy>;
  clusterTemplates: Informer<KubernetesObject>;
  templates: Informer<KubernetesObject>;
  /** The kubelet's `Evicted` Events of Pods (see `evictions.ts`), by the Pod's uid. */
  evictions: Informer<CoreV1Event>;
  snapshots: Snapshots;
}

/** Everything a step may use, made once per controller. */
export interface SandboxDeps {
  core: CoreV1Api;
  net: NetworkingV1Api;
  patcher: SandboxPatcher;
  caches: SandboxCaches;
  settings: OperatorSettings;
  /** Governance policies: `maxConcurrentInvokesPerSandbox` lowers the agent's cap. */
  policies: PolicyStore<Policy>;
  locator: SandboxdLocator;
  now: () => Date;
  /** Records a Kubernetes Event on the Sandbox (never fails the pass). */
  event: (pass: Pass, type: 'Normal' | 'Warning', reason: string, message: string) => Promise<void>;
  /** Warm pools: a new sandbox claims a ready member instead of starting cold. */
  warm?: WarmClaimer;
  /** Whether a started sandboxd answers, before the Pod says Ready. */
  readiness: SandboxdReadiness;
  /**
   * The status each sandbox's last pass wrote (JSON, by key): a pass working from a cache
   * that has not caught up with that write yet does not write the same status again.
   */
  written: Map<string, { json: string; phase: string; ready?: string; resourceVersion: string }>;
  /** The agent harness pass of a Running agent sandbox (see `operator/agent.ts`). */
  agent: (pass: Pass, template: SandboxTemplateSpec, pod: V1Pod) => Promise<number | undefined>;
}

/** The volume as the volume step found it, for the steps after it. */
export interface VolumeState {
  bound: boolean;
  /** Why it is not bound yet (or that it is), for VolumeReady and the waiting message. */
  message: string;
  /** Look again this soon: a clone's snapshot is not ready yet. */
  waitMs?: number;
}

/**
 * One reconcile of one Sandbox: what it read. Read-only: what a step finds for the steps
 * after it is its return value (`Found`), passed to them as an argument.
 */
export interface Pass {
  /** The Sandbox; after a warm-pool claim, the one the claim wrote (see `StepResult.sandbox`). */
  readonly sandbox: Sandbox;
  readonly namespace: string;
  readonly name: string;
  /** `namespace/name`, the work queue's key. */
  readonly key: string;
  /** The pass's own logger (it carries the key). */
  readonly log: Logger;
  readonly d: SandboxDeps;
  /**
   * Work a step leaves for after the status write (a claimed member's bookkeeping, its pool's
   * refill): nothing the status waits on, kept off the machine until the status is written.
   * Run even when the pass fails before it; a failed one fails the pass.
   */
  readonly after: (() => Promise<unknown>)[];
}

/** What steps add to the status beside their conditions. */
export interface StatusPart extends Partial<SeenActivity> {
  forwardedPorts?: ForwardedPort[];
}

/**
 * What a step says: its conditions and when to look again. A step that returns a `stage`
 * ends the pass there (status follows from it, `sandboxVerdict`); a pass that runs every
 * step is Running.
 */
export interface StepResult {
  conditions?: StepCondition[];
  requeueMs?: number;
  stage?: Stage;
  /** Status fields it found (ports, activity), written even when a later step ends the pass. */
  status?: StatusPart;
  /**
   * The Sandbox as the step wrote it (a warm-pool claim annotates it): the steps after it
   * and the status write work on this one.
   */
  sandbox?: Sandbox;
}

/**
 * A step that finds something the steps after it take as an argument: `found`, unless it
 * ended the pass (then there is nothing to find, and no later step runs).
 */
export type Found<T> =
  (StepResult & { stage: Stage; found?: never }) | (StepResult & { stage?: undefined; found: T });
