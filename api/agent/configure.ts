import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import {
  Annotations,
  installCommandHash,
  installRunId,
  type ConfigureResult,
  type Sandbox,
} from '../../core/index.ts';
import type { SandboxdClient } from '../../kube/index.ts';
import type { AgentDeps } from './deps.ts';
import { badRequest } from '../errors/index.ts';
import { readConfigureBody } from './configure-body.ts';
import { requireAgentMode, requireAllowed, throttled } from './checks.ts';
import {
  observed,
  requireRunning,
  sandboxdOf,
  unreachable,
  type CallEnd,
  type Observed,
  type ObservedCall,
  type OnSandbox,
} from '../request/index.ts';

const KEEPALIVE_MS = 15_000;

/**
 * `POST /sandboxes/{id}/configure`. The API checks, writes the files through sandboxd and
 * records the desired harness on the Sandbox; the operator runs the install and writes
 * `status.agentConfigure`. This stream follows both: the install's output as `log` events
 * (attached to the operator's run in sandboxd), then `result` from the status. One span,
 * `svc.configure`, a child of the caller's `traceparent`, covers the call.
 */
export function configure(c: Context<OnSandbox>, deps: AgentDeps): Promise<Response> {
  return observed(c, deps, 'configure', (call) => configured(c, deps, call));
}

async function configured(
  c: Context<OnSandbox>,
  deps: AgentDeps,
  call: ObservedCall,
): Promise<Observed<Response>> {
  const { caller, sandbox } = call;
  const { namespace = '', name = '' } = sandbox.metadata;
  requireAgentMode(sandbox);
  requireRunning(sandbox, 'configure and invoke', 'need');
  // One configure at a time per sandbox: a second one while an install runs is throttled.
  const { client: sandboxd, answer: runs } = await sandboxdOf(deps, sandbox, (c) => c.runs());
  const installing = runs.filter((r) => r.kind === 'install').length;
  if (installing > 0) throw throttled(1, installing);
  // Governance first: a refused sandbox is refused before its body is read.
  await requireAllowed(deps, sandbox);
  // The size limits are checked as the body streams in (403 the moment one is passed);
  // the files go to sandboxd from a spool on disk, so memory holds about one chunk.
  const request = await readConfigureBody(c.req.raw.body, Number(c.req.header('content-length') ?? NaN));
  // The cap under the policy in force: the result waits for the operator to record it.
  const cap = await deps.governance.invokeCap(sandbox);
  const written = await sandboxd
    .writeFileStream(
      request.files.map((f) => ({ path: f.path, size: f.size })),
      request.contents(),
    )
    .finally(() => request.close());
  if (written.status === 400)
    throw badRequest(`files: ${(written.body as { message?: string }).message ?? ''}`);
  if (written.status !== 200) throw unreachable(`writing the files failed: ${JSON.stringify(written.body)}`);

  const digest = request.digest;
  const hash = installCommandHash(request.installCommand, digest);
  const skipped = sandbox.status?.agentConfigure?.installCommandHash === hash;
  await deps.sandboxes.mergePatch(namespace, name, {
    metadata: { annotations: { [Annotations.configureFiles]: digest } },
    spec: {
      harness: {
        agent: { entrypoint: request.entrypoint, installCommand: request.installCommand ?? null },
      },
    },
  });

  // The call ends when the stream does, after the handler has returned its answer.
  const end = Promise.withResolvers<CallEnd>();
  const answer = streamSSE(c, async (out) => {
    const keepalive = setInterval(() => void out.write(': keepalive\n\n'), KEEPALIVE_MS);
    out.onAbort(() => clearInterval(keepalive));
    const done = (s: Sandbox | undefined) =>
      s?.status?.agentConfigure?.installCommandHash === hash &&
      JSON.stringify(s.status.agentConfigure.entrypoint) === JSON.stringify(request.entrypoint) &&
      s.status.agentConfigure.maxConcurrentInvokes === cap();
    try {
      if (!skipped && request.installCommand)
        await followInstall(deps, sandboxd, sandbox, hash, done, (data) =>
          out.writeSSE({ event: 'log', data }),
        );
      const current = await deps.cache.until(namespace, name, done, deps.statusWaitMs).catch(() => undefined);
      const status = current?.status?.agentConfigure;
      if (!status) {
        await out.writeSSE({
          event: 'error',
          data: JSON.stringify({
            code: 'status_timeout',
            message: `the files are written, but the operator did not record the configure within ${deps.statusWaitMs / 1000} s; poll GET /api/v1/sandboxes/${name}`,
          }),
        });
        end.resolve({ outcome: 'error', attributes: { duration_ms: call.elapsed(), outcome: 'error' } });
        return;
      }
      const result: ConfigureResult = {
        installCommandHash: hash,
        installExitCode: status.installExitCode ?? 0,
        lastConfiguredAt: status.lastConfiguredAt ?? new Date().toISOString(),
        entrypoint: status.entrypoint ?? request.entrypoint,
        maxConcurrentInvokes: status.maxConcurrentInvokes ?? 1,
        skipped,
      };
      await out.writeSSE({ event: 'result', data: JSON.stringify(result) });
      const ok = result.installExitCode === 0;
      const outcome = ok ? 'completed' : 'failed';
      end.resolve({
        outcome,
        attributes: { exit_code: result.installExitCode, duration_ms: call.elapsed(), outcome },
        audit: {
          sandbox,
          reason: ok ? 'AgentConfigured' : 'AgentConfigureFailed',
          type: ok ? 'Normal' : 'Warning',
          message: `configure by ${caller.user}: ${request.files.length} files, ${
            skipped ? 'install skipped (unchanged)' : `install exit code ${result.installExitCode}`
          }, hash ${hash}`,
          actor: caller.user,
        },
      });
    } finally {
      clearInterval(keepalive);
      // A stream that broke off before its result: the span still ends (a settled end stays).
      end.resolve({
        attributes: { duration_ms: call.elapsed(), outcome: 'error' },
        error: 'stream ended early',
      });
      // The stream closes once the call is recorded, its audit record written.
      await call.recorded;
    }
  });
  return { answer, end: end.promise };
}

/**
 * Streams the output of the install the operator runs for `hash`, from sandboxd, which
 * replays it from the start however late we attach. Until the operator has started it,
 * sandboxd answers 404: look again shortly, up to the status wait.
 */
async function followInstall(
  deps: AgentDeps,
  sandboxd: SandboxdClient,
  sandbox: Sandbox,
  hash: string,
  done: (s: Sandbox | undefined) => boolean,
  log: (data: string) => Promise<void>,
): Promise<void> {
  const { namespace = '', name = '' } = sandbox.metadata;
  const deadline = Date.now() + deps.statusWaitMs;
  while (Date.now() < deadline) {
    // Attach first: a fast install may be over before we get here, and sandboxd replays it.
    const res = await sandboxd.attach(installRunId(hash));
    if (res.status === 200) {
      for await (const m of res.events) if (m.event === 'log') await log(m.data);
      return;
    }
    if (done(deps.cache.get(namespace, name))) return;
    await deps.cache.until(namespace, name, done, 200).catch(() => undefined);
  }
}
