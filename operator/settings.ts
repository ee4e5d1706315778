/** What the operator is told, parsed once in `cmd/operator.ts`. */
export interface OperatorSettings {
  /** Image that holds the sandboxd executable (the svc image). */
  sandboxdImage: string;
  /** Path of the sandboxd executable inside `sandboxdImage`. */
  sandboxdPath: string;
  /** `networking.previewDomain`: when set, forwarded ports also get an Ingress and a previewUrl. */
  previewDomain?: string;
  /** `networking.portForwardIngressClass`. */
  ingressClass: string;
  /** Namespace of the API's Pods, the only ones allowed to reach sandboxd. */
  apiNamespace: string;
  /** Labels that select the API's Pods in `apiNamespace`. */
  apiPodLabels: Record<string, string>;
  /** Namespace of the ingress controller, allowed to reach forwarded ports. */
  ingressNamespace?: string;
  /** How long a clone waits for its VolumeSnapshot to exist and be ready before `Error`. */
  snapshotWaitSeconds: number;
  /** Container restarts after which a sandbox is `Error` ("the Pod keeps failing"). */
  maxRestarts: number;
  /**
   * `optional.agentMemorySidecar`: when set, agent-mode Pods get a memory container on
   * 127.0.0.1:11434 (`MEM0_BASE_URL` for the agent), its data in `/workspace/.agenttier/memory/`.
   */
  agentMemorySidecar?: { image: string; command: string[] };
  /**
   * devnode mode (`make dev`, the tests): devnode's address annotation on a Pod is where its
   * sandboxd listens. Never in a cluster: the Pod's IP is, whatever a Pod's annotations say.
   */
  devnode?: boolean;
}
