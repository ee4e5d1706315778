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
import type { Adopted, WarmClaimer } from '../warmpool/index.ts';

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

/** One reconcile of one Sandbox: what it read, and what earlier steps found for later ones. */
export interface Pass {
  /** The Sandbox; the warm-pool step puts the member it claimed in its annotations. */
  sandbox: Sandbox;
  readonly namespace: string;
  readonly name: string;
  /** `namespace/name`, the work queue's key. */
  readonly key: string;
  /** The pass's own logger (it carries the key). */
  readonly log: Logger;
  readonly d: SandboxDeps;
  template?: SandboxTemplateSpec;
  volume?: VolumeState;
  forwardedPorts?: ForwardedPort[];
  /** The sandbox Pod in the cache (undefined: none), once the lifetime step looked. */
  pod?: V1Pod;
  /** Activity sandboxd reported, for status (see `idle.ts`); undefined: status keeps its own. */
  activity?: SeenActivity;
  /** The warm-pool member this pass claimed, for the steps after it (see `Adopted`). */
  adopted?: Adopted;
  /**
   * Work a step leaves for after the status write (a claimed member's bookkeeping, its pool's
   * refill): nothing the status waits on, kept off the machine until the status is written.
   * Run even when the pass fails before it; a failed one fails the pass.
   */
  after: (() => Promise<unknown>)[];
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
}

export type Step = (pass: Pass) => Promise<StepResult | void> | StepResult | void;

/** The template a step after the template step may rely on. */
export function templateOf(pass: Pass): SandboxTemplateSpec {
  if (!pass.template) throw new Error('the template step has not run');
  return pass.template;
}
