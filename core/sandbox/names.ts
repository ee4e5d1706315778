/** Name of the PVC that holds a sandbox's `/workspace`. */
export const workspaceClaimName = (sandbox: string) => `${sandbox}-workspace`;

/** Default name of a clone: `<source>-clone-<unix-ts>`. */
export const cloneName = (source: string, unixSeconds: number) => `${source}-clone-${unixSeconds}`;

/** Name of the VolumeSnapshot a clone is made from: `<source>-snap-<unix-ts>`. */
export const snapshotName = (source: string, unixSeconds: number) => `${source}-snap-${unixSeconds}`;
