import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';

const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * A container's environment as the kubelet builds it: literal values, `secretKeyRef` and
 * `configMapKeyRef` (read from the API server now), and the `fieldRef`s the tests use.
 */
export async function containerEnvironment(
  c: V1Container,
  pod: V1Pod,
  deps: { core: CoreV1Api; podIP: string },
): Promise<Record<string, string>> {
  const meta = pod.metadata!;
  const env: Record<string, string> = {
    PATH,
    HOME: '/root',
    HOSTNAME: pod.spec?.hostname ?? meta.name!,
  };
  for (const e of c.env ?? []) {
    const from = e.valueFrom;
    if (!from) env[e.name] = e.value ?? '';
    else if (from.secretKeyRef) {
      const s = await deps.core.readNamespacedSecret({
        name: from.secretKeyRef.name!,
        namespace: meta.namespace!,
      });
      const v = s.data?.[from.secretKeyRef.key];
      if (v === undefined && !from.secretKeyRef.optional)
        throw new Error(`secret ${from.secretKeyRef.name} has no key ${from.secretKeyRef.key}`);
      if (v !== undefined) env[e.name] = Buffer.from(v, 'base64').toString();
    } else if (from.configMapKeyRef) {
      const m = await deps.core.readNamespacedConfigMap({
        name: from.configMapKeyRef.name!,
        namespace: meta.namespace!,
      });
      const v = m.data?.[from.configMapKeyRef.key];
      if (v !== undefined) env[e.name] = v;
    } else if (from.fieldRef) {
      const fields: Record<string, string> = {
        'metadata.name': meta.name!,
        'metadata.namespace': meta.namespace!,
        'metadata.uid': meta.uid!,
        'spec.nodeName': pod.spec?.nodeName ?? '',
        'status.podIP': deps.podIP,
        'status.hostIP': '127.0.0.1',
      };
      env[e.name] = fields[from.fieldRef.fieldPath] ?? '';
    }
  }
  return env;
}

/**
 * As much of a container's securityContext as the tests need: `runAsUser`/`runAsGroup`
 * other than root start the command through setpriv as that user (leaving root clears every
 * capability, as a runtime's non-root container has none); a root container with
 * `capabilities.drop: [ALL]` keeps exactly `capabilities.add`. bwrap always sets no_new_privs.
 */
export function containerSecurity(c: V1Container, pod: V1Pod): { prefix: string[]; capabilities?: string[] } {
  const uid = c.securityContext?.runAsUser ?? pod.spec?.securityContext?.runAsUser ?? 0;
  const gid = c.securityContext?.runAsGroup ?? pod.spec?.securityContext?.runAsGroup ?? uid;
  if (uid !== 0) return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'] };
  const caps = c.securityContext?.capabilities;
  if (!caps?.drop?.includes('ALL')) return { prefix: [] };
  return { prefix: [], capabilities: (caps.add ?? []).map((a) => `CAP_${a.replace(/^CAP_/, '')}`) };
}
