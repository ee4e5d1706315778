import type { V1Pod } from '@kubernetes/client-node';
import type { Sandbox, SandboxTemplateSpec, StepCondition } from '../../core/index.ts';
import type { Pass, StepResult } from './context.ts';
import { resumedCondition } from './lifetime.ts';

/** How often a running sandbox's template process is looked at through sandboxd. */
const TEMPLATE_PROCESS_CHECK_MS = 5_000;

/** What a Running sandbox adds: the agent harness, its template process, a resume noted. */
export async function whileRunning(
  pass: Pass,
  template: SandboxTemplateSpec,
  pod: V1Pod,
): Promise<StepResult> {
  const agentMs = await pass.d.agent(pass, template, pod).catch((err: unknown) => {
    // Configure trouble never takes a running sandbox down: log it and look again soon.
    pass.log.warn({ err }, 'agent configure pass failed');
    return 5_000;
  });
  const process = await templateProcess(pass, template, pod);
  const requeues = [agentMs, process?.requeueMs].filter((x): x is number => x !== undefined);
  return {
    conditions: [...(process ? [process.condition] : []), ...(resumedCondition(pass).conditions ?? [])],
    requeueMs: requeues.length > 0 ? Math.min(...requeues) : undefined,
    ...(installPending(pass.sandbox) ? { stage: { kind: 'Installing', message: INSTALLING } } : {}),
  };
}

const INSTALLING = 'installing the agent harness its spec names; Running once the install has run';

/**
 * Whether the sandbox is held short of Running for its agent install: an agent sandbox
 * whose spec names an entrypoint (a clone's, copied from its configured source) and whose
 * status records no install yet. Only on the way to Running: a sandbox Running already
 * stays so while a first configure installs (the configure call waits for that itself), so
 * the hold is for a clone (or a resume after an install that never finished), whose callers
 * would otherwise get `424 not_configured` for an entrypoint that is configured. The install
 * writes `status.agentConfigure` (`operator/agent.ts`), whose watch event reconciles again.
 */
export function installPending(sandbox: Sandbox): boolean {
  return (
    sandbox.spec.mode === 'agent' &&
    !!sandbox.spec.harness?.agent?.entrypoint?.length &&
    !sandbox.status?.agentConfigure &&
    sandbox.status?.phase !== 'Running'
  );
}

/**
 * The template's own process, as sandboxd (its supervisor) reports it: a restart count that
 * grew since the last look becomes a `TemplateProcessRestarted` event, and the count stays
 * on the `TemplateProcess` condition. The Pod says nothing of it (sandboxd, its PID 1, stays
 * up), so a sandbox with a template command is looked at again every few seconds.
 */
async function templateProcess(
  pass: Pass,
  template: SandboxTemplateSpec,
  pod: V1Pod,
): Promise<{ condition: StepCondition; requeueMs: number } | undefined> {
  if ([...(template.command ?? []), ...(template.args ?? [])].length === 0) return undefined;
  const health = await pass.d.locator
    .forPod(pod)
    .then((c) => c.status())
    .catch(() => undefined);
  const restarts = health?.template?.restarts;
  if (restarts === undefined) return undefined;
  const previous = pass.sandbox.status?.conditions?.find((c) => c.type === 'TemplateProcess');
  const before = Number(/restarted (\d+) time/.exec(previous?.message ?? '')?.[1] ?? 0);
  const message = `the template's process restarted ${restarts} time${restarts === 1 ? '' : 's'}`;
  if (restarts > before)
    await pass.d.event(pass, 'Warning', 'TemplateProcessRestarted', `${message}; sandboxd restarted it`);
  return {
    condition: {
      type: 'TemplateProcess',
      ok: health!.template!.running,
      reason: restarts > 0 ? 'Restarted' : 'Running',
      message,
    },
    requeueMs: TEMPLATE_PROCESS_CHECK_MS,
  };
}
