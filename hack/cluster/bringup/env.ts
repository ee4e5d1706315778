/** Where the installed svc is and who may call it: hack/cluster/install.sh's STATE/svc.env. */
export interface ClusterEnv {
  baseUrl: string;
  keys: { admin: string; alice: string; bob: string };
  /** The namespace sandboxes run in (the chart's sandboxNamespaces). */
  namespace: string;
  /** An admin kubeconfig reaching the apiserver through 127.0.0.1, for checks only. */
  kubeconfig: string;
  state: string;
}

/** Reads the `export NAME=value` lines of svc.env; throws naming a variable it lacks. */
export function parseEnvFile(text: string): ClusterEnv {
  const vars = new Map<string, string>();
  for (const m of text.matchAll(/^export ([A-Z_]+)=(.*)$/gm)) vars.set(m[1]!, m[2]!);
  const get = (name: string) => {
    const v = vars.get(name);
    if (!v) throw new Error(`svc.env has no ${name}`);
    return v;
  };
  return {
    baseUrl: get('SVC_BASE_URL'),
    keys: { admin: get('SVC_ADMIN_KEY'), alice: get('SVC_ALICE_KEY'), bob: get('SVC_BOB_KEY') },
    namespace: get('SVC_NAMESPACE'),
    kubeconfig: get('KUBECONFIG'),
    state: get('SVC_CLUSTER_STATE'),
  };
}
