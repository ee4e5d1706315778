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

/**
 * Public host of a forwarded port: `sandbox-<sandbox>-<port>.<namespace>.<preview_domain>`.
 * The spec's `sandbox-<sandbox>-<port>` label, under a label of the namespace: sandboxes of
 * the same name in two namespaces would otherwise share a host, and whichever Ingress the
 * controller picked would serve the other's users. A namespace is a DNS label (no dot), so
 * the label before the domain is always it, and no two sandboxes' ports share a host.
 */
export const previewHost = (
  sandbox: { namespace: string; name: string },
  port: number,
  previewDomain: string,
) => `sandbox-${sandbox.name}-${port}.${sandbox.namespace}.${previewDomain}`;

/** `https://sandbox-<sandbox>-<port>.<namespace>.<preview_domain>/` */
export const previewUrl = (
  sandbox: { namespace: string; name: string },
  port: number,
  previewDomain: string,
) => `https://${previewHost(sandbox, port, previewDomain)}/`;

/** Secret holding the sandbox's sandboxd token (key `token`). */
export const sandboxdSecretName = (sandbox: string) => `${sandbox}-sandboxd`;

/** The sandbox's NetworkPolicy: `sandbox-<sandbox>`. */
export const networkPolicyName = (sandbox: string) => `sandbox-${sandbox}`;
