/** Name of the PVC that holds a sandbox's `/workspace`. */
export const workspaceClaimName = (sandbox: string) => `${sandbox}-workspace`;

/** Default name of a clone: `<source>-clone-<unix-ts>`. */
export const cloneName = (source: string, unixSeconds: number) => `${source}-clone-${unixSeconds}`;

/** Name of the VolumeSnapshot a clone is made from: `<source>-snap-<unix-ts>`. */
export const snapshotName = (source: string, unixSeconds: number) => `${source}-snap-${unixSeconds}`;

/** The ClusterIP Service of a forwarded port: `pf-<sandbox>-<port>`. */
export const forwardedServiceName = (sandbox: string, port: number) => `pf-${sandbox}-${port}`;

/** `http://pf-<sandbox>-<port>.<namespace>.svc.cluster.local:<port>` */
export const internalUrl = (sandbox: string, namespace: string, port: number) =>
  `http://${forwardedServiceName(sandbox, port)}.${namespace}.svc.cluster.local:${port}`;

/** Public host of a forwarded port: `sandbox-<sandbox>-<port>.<preview_domain>`. */
export const previewHost = (sandbox: string, port: number, previewDomain: string) =>
  `sandbox-${sandbox}-${port}.${previewDomain}`;

/** `https://sandbox-<sandbox>-<port>.<preview_domain>/` */
export const previewUrl = (sandbox: string, port: number, previewDomain: string) =>
  `https://${previewHost(sandbox, port, previewDomain)}/`;

/** Secret holding the sandbox's sandboxd token (key `token`). */
export const sandboxdSecretName = (sandbox: string) => `${sandbox}-sandboxd`;

/** The sandbox's NetworkPolicy: `sandbox-<sandbox>`. */
export const networkPolicyName = (sandbox: string) => `sandbox-${sandbox}`;
