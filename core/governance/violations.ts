/** Stable violation codes: the spec's nine, and ours for agent fields, ephemeral storage and configure limits. */
export type ViolationCode =
  | 'template_not_allowed'
  | 'image_registry_not_approved'
  | 'namespace_quota_exceeded'
  | 'user_quota_exceeded'
  | 'cpu_limit_exceeded'
  | 'memory_limit_exceeded'
  | 'storage_limit_exceeded'
  | 'ephemeral_storage_limit_exceeded'
  | 'timeout_exceeded'
  | 'idle_timeout_exceeded'
  | 'agent_sandbox_quota_exceeded'
  | 'agent_image_not_approved'
  | 'configure_file_too_large'
  | 'configure_request_too_large'
  | 'configure_too_many_files'
  | 'credential_not_allowed'
  | 'namespace_not_enabled'
  | 'runtime_class_not_allowed'
  | 'user_namespaces_unavailable'
  | 'root_sandbox_not_allowed'
  | 'egress_host_not_allowed';

export interface Violation {
  code: ViolationCode;
  message: string;
}

/** The spec's 403 body. */
export interface PolicyViolationBody {
  error: 'policy_violation';
  violations: Violation[];
}

export const policyViolationBody = (violations: Violation[]): PolicyViolationBody => ({
  error: 'policy_violation',
  violations,
});
