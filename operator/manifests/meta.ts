import { GROUP, Labels, VERSION, type Sandbox } from '../../core/index.ts';

/** Hash of what the operator wrote into an object's spec, so an unchanged one is not rewritten. */
export const SPEC_HASH = 'svc.io/spec-hash';

/** Metadata every owned object carries: its name, the sandbox label, a controller reference. */
export function owned(sandbox: Sandbox, name: string) {
  return {
    name,
    namespace: sandbox.metadata.namespace!,
    labels: { [Labels.sandbox]: sandbox.metadata.name! },
    ownerReferences: [
      {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        name: sandbox.metadata.name!,
        uid: sandbox.metadata.uid!,
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  };
}
