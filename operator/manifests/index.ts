// The objects a Sandbox owns, as pure functions of the Sandbox, its resolved template and
// the operator's settings. The reconciler creates them and keeps them correct.
export { SPEC_HASH } from './meta.ts';
export { tokenSecret, workspaceClaim } from './storage.ts';
export { sandboxPod, MEMORY_ADDRESS, MEMORY_DATA_DIR } from './pod.ts';
export { DEFAULT_EGRESS, networkPolicy, portService, portIngress } from './network.ts';
export { isolation, withPolicyDefaults } from './isolation.ts';
export { SANDBOXD_CAPABILITIES, sandboxUser } from './security.ts';
