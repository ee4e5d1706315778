import { RETRY_AFTER_SECONDS, concurrencyExceeded, type Sandbox } from '../../core/index.ts';
import type { AgentDeps } from './deps.ts';
import { HttpError, policyViolation } from '../errors/index.ts';

/**
 * The agent endpoints' checks, in the spec's order: authentication (middleware) → mode →
 * phase → configure prerequisite → concurrency cap → governance. Each helper is one step,
 * so each route reads as that list.
 */
export function requireAgentMode(sandbox: Sandbox): void {
  if (sandbox.spec.mode !== 'agent') {
    throw new HttpError(
      400,
      'not_agent_mode',
      `sandbox ${sandbox.metadata.name} is mode: code; configure and invoke are for mode: agent sandboxes. ` +
        'Use the file-transfer and exec APIs to put files into a code sandbox and run commands in it.',
    );
  }
}

export function requireConfigured(sandbox: Sandbox): string[] {
  const entrypoint = sandbox.status?.agentConfigure?.entrypoint;
  if (!entrypoint?.length) {
    throw new HttpError(
      424,
      'not_configured',
      `sandbox ${sandbox.metadata.name} has no entrypoint: POST /api/v1/sandboxes/${sandbox.metadata.name}/configure first`,
    );
  }
  return entrypoint;
}

export function throttled(limit: number, inflight: number): HttpError {
  const body = concurrencyExceeded(limit, inflight);
  return new HttpError(429, body.error, body.message, {
    extra: { limit, inflight },
    headers: { 'retry-after': String(RETRY_AFTER_SECONDS) },
  });
}

/** Governance again: the template or agent image may have been disallowed since create. */
export async function requireAllowed(
  deps: AgentDeps,
  sandbox: Sandbox,
  extra: { code: string; message: string }[] = [],
) {
  const violations = [...extra, ...(await deps.governance.checkConfigure(sandbox))];
  if (violations.length > 0) throw policyViolation(violations);
}
