// STATE/svc.env is read by the one bring-up module the benches share (hack/cluster/bringup).
export { parseEnvFile, type ClusterEnv as E2eEnv } from '../../hack/cluster/bringup/index.ts';
