// hack/cluster/install.sh's API keys: admin, alice and bob in the installed svc's key store
// (Secret svc-api-keys in the service namespace), those of ENV_FILE when they still work, as
// `make dev` does. Prints them as JSON.
//   node hack/cluster/keys.ts --kubeconfig FILE --namespace NS --env ENV_FILE
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiKeyStore } from '../../api/index.ts';
import { apiKeys } from '../dev/keys.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    namespace: { type: 'string', default: 'svc-system' },
    env: { type: 'string' },
  },
});
if (!values.kubeconfig || !values.env) {
  process.stderr.write('usage: keys.ts --kubeconfig FILE --namespace NS --env ENV_FILE\n');
  process.exit(2);
}
const kc = new KubeConfig();
kc.loadFromFile(values.kubeconfig);
const keys = await apiKeys(new ApiKeyStore({ kc, namespace: values.namespace }), values.env);
process.stdout.write(`${JSON.stringify(keys)}\n`);
