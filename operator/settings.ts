/** Where a sandbox's egress may go besides what its template allows (`network.egress`). */
export interface EgressSettings {
  /**
   * The cluster's DNS Pods: the only destination of a sandbox's DNS (UDP and TCP 53), so
   * port 53 is no way out to anywhere else, even with `egress: none`.
   */
  dns: { namespace: string; podLabels: Record<string, string> };
  /**
   * IPv4 ranges `egress: internet` never reaches: the cluster's Pod and Service ranges,
   * private and link-local ranges (the cloud metadata address 169.254.169.254 included).
   */
  internetExcept: string[];
  /**
   * The egress gateway (`svc egress`), the only way out of an `allowlist` sandbox besides
   * DNS: its Pods (in the service namespace, by label), its port, and the proxy URL the
   * sandboxes are given. Unset: an `allowlist` sandbox reaches nothing but DNS.
   */
  gateway?: { podLabels: Record<string, string>; port: number; proxyUrl: string };
}

/** What the operator is told, parsed once in `cmd/operator.ts`. */
export interface OperatorSettings {
  /** Image that holds the sandboxd executable (the svc image). */
  sandboxdImage: string;
  /** Path of the sandboxd executable inside `sandboxdImage`. */
  sandboxdPath: string;
  /**
   * How sandboxd gets into a sandbox Pod: copied by an init container (the default; any
   * runtime), or `imageVolume`: `sandboxdImage` mounted as an image volume, no init container
   * (the runtime must support image volumes: containerd 2.1+, CRI-O 1.31+), or `csi`: a
   * read-only CSI ephemeral inline volume of the chart's node plugin (sandboxd-csi), no init
   * container, any runtime (`sandboxdCsi` says which driver and which sandboxd).
   */
  sandboxdDelivery?: 'initContainer' | 'imageVolume' | 'csi';
  /**
   * With `sandboxdDelivery: csi`: the node plugin's CSI driver name and the sha256 (lower-case
   * hex) of the sandboxd Pods ask it for, which is the operator's own image's
   * (`sandboxdPath`, hashed once at start): the node serves that digest's copy or, until its
   * plugin has it, fails the mount (the kubelet retries).
   */
  sandboxdCsi?: { driver: string; sha256: string };
  /** `networking.previewDomain`: when set, forwarded ports also get an Ingress and a previewUrl. */
  previewDomain?: string;
  /** `networking.portForwardIngressClass`. */
  ingressClass: string;
  /** Namespace of the API's and the operator's Pods, the only ones allowed to reach sandboxd. */
  apiNamespace: string;
  /** Labels that select the API's Pods in `apiNamespace`. */
  apiPodLabels: Record<string, string>;
  /**
   * Labels that select the operator's own Pods in `apiNamespace`: it calls sandboxd too
   * (agent installs, readiness, warm-pool handover). Unset: no operator peer in the policy.
   */
  operatorPodLabels?: Record<string, string>;
  /** DNS and `internet` exclusions of every sandbox's NetworkPolicy; `DEFAULT_EGRESS` when unset. */
  egress?: EgressSettings;
  /** Namespace of the ingress controller, allowed to reach forwarded ports. */
  ingressNamespace?: string;
  /** How long a clone waits for its VolumeSnapshot to exist and be ready before `Error`. */
  snapshotWaitSeconds: number;
  /** Container restarts after which a sandbox is `Error` ("the Pod keeps failing"). */
  maxRestarts: number;
  /**
   * sandboxd's keeping of runs (`SANDBOXD_RUN_BUFFER_BYTES`, `SANDBOXD_RUN_RETENTION_SECONDS`):
   * each run's event buffer and how long an ended run's events stay readable; unset: its
   * defaults (8 MiB, 15 minutes).
   */
  runs?: { bufferBytes?: number; retentionSeconds?: number };
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
