import type { CoreV1Api, CustomObjectsApi, V1Pod } from '@kubernetes/client-node';
import {
  GROUP,
  Labels,
  SandboxPod,
  VERSION,
  WarmPool,
  sandboxdSecretName,
  workspaceClaimName,
  type Sandbox,
} from '../../core/index.ts';
import { mergePatch } from '../../kube/index.ts';
import { ownerOf } from './fit.ts';

/**
 * The rest of a claim once the member's Pod is the sandbox's, each write idempotent (a pass
 * after a crash repeats it): the member's name on the Sandbox, its workspace claim and token
 * Secret moved over, the Secret holding the sandbox's `token`.
 */
export async function moveToSandbox(
  api: { core: CoreV1Api; custom: CustomObjectsApi },
  sandbox: Sandbox,
  pod: V1Pod,
  token: string,
): Promise<void> {
  const { namespace, name } = sandbox.metadata as { namespace: string; name: string };
  const member = pod.metadata!.name!;
  const moved = {
    metadata: {
      labels: { [WarmPool.poolLabel]: null, [Labels.sandbox]: name },
      ownerReferences: [ownerOf(sandbox)],
    },
  };
  await Promise.all([
    api.custom.patchNamespacedCustomObject(
      {
        group: GROUP,
        version: VERSION,
        plural: 'sandboxes',
        namespace,
        name,
        body: { metadata: { annotations: { [WarmPool.memberAnnotation]: member } } },
      },
      mergePatch,
    ),
    api.core.patchNamespacedPersistentVolumeClaim(
      { name: workspaceClaimName(member), namespace, body: moved },
      mergePatch,
    ),
    // A restart of the container (or a kubelet resync) reads the new token from here.
    api.core.patchNamespacedSecret(
      {
        name: sandboxdSecretName(member),
        namespace,
        body: { ...moved, stringData: { [SandboxPod.tokenKey]: token } },
      },
      mergePatch,
    ),
  ]);
}
