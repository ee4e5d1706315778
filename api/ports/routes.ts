import { Hono } from 'hono';
import { SandboxPod, type ForwardedPort, type PortSpec, type Sandbox } from '../../core/index.ts';
import { HttpError } from '../errors/index.ts';
import type { PortsDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { sandboxdPort } from '../preview/index.ts';
import { admitUpdate } from '../sandboxes/index.ts';
import { forwardPort, portOperations, unforwardPort } from './operations.ts';
import { onOwnedSandbox, type OnSandbox } from '../request/index.ts';

/**
 * Port forwarding: the API only edits `spec.ports`; the operator creates the Service (and
 * Ingress) and publishes `status.forwardedPorts`, which these endpoints wait for.
 */
export function portRoutes(deps: PortsDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, portOperations);

  route(app, forwardPort, async (c, { body }, reply) => {
    const sandbox = c.var.sandbox;
    const { port, protocol } = body;
    if (port === SandboxPod.port) throw sandboxdPort();
    const existed = (sandbox.spec.ports ?? []).some((p) => p.port === port && p.protocol === protocol);
    // A new port's Service must not take someone else's object's name (409 name_conflict).
    if (!(sandbox.spec.ports ?? []).some((p) => p.port === port))
      await deps.names.requireFreePort({
        namespace: sandbox.metadata.namespace!,
        name: sandbox.metadata.name!,
        port,
      });
    await editPorts(deps, sandbox, (ports) => [...ports.filter((p) => p.port !== port), { port, protocol }]);
    const published = await waitForStatus(deps, sandbox, (entries) =>
      entries.find((e) => e.port === port && e.protocol === protocol),
    );
    return reply.json(existed ? 200 : 201, published);
  });

  route(app, unforwardPort, async (c, _, reply) => {
    const sandbox = c.var.sandbox;
    // `{port}` was checked before any route (api/validation's pathParams): digits, 1–65535.
    const port = Number(c.req.param('port'));
    await editPorts(deps, sandbox, (ports) => ports.filter((p) => p.port !== port));
    await waitForStatus(deps, sandbox, (entries) =>
      entries.some((e) => e.port === port) ? undefined : true,
    );
    return reply.empty(204);
  });

  return app;
}

/** Rewrites `spec.ports` guarded by the resourceVersion; re-reads and retries on a conflict. */
async function editPorts(
  deps: PortsDeps,
  sandbox: Sandbox,
  edit: (ports: PortSpec[]) => PortSpec[],
): Promise<void> {
  const { namespace = '', name = '' } = sandbox.metadata;
  let current: Sandbox | undefined = sandbox;
  for (let attempt = 0; current; attempt++) {
    const before = current.spec.ports ?? [];
    const after = edit(before);
    if (JSON.stringify(before) === JSON.stringify(after)) return;
    // Judged as the webhook judges a kubectl patch of spec.ports (which passes the API's own).
    await admitUpdate(deps, current, { ...current.spec, ports: after });
    try {
      await deps.sandboxes.mergePatch(namespace, name, {
        metadata: { resourceVersion: current.metadata.resourceVersion },
        spec: { ports: after },
      });
      return;
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 409) || attempt >= 4) throw err;
      current = await deps.sandboxes.read(namespace, name);
    }
  }
}

async function waitForStatus<T>(
  deps: PortsDeps,
  sandbox: Sandbox,
  pick: (entries: ForwardedPort[]) => T | undefined,
): Promise<T> {
  const { namespace = '', name = '' } = sandbox.metadata;
  const found = (s: Sandbox | undefined) => (s ? pick(s.status?.forwardedPorts ?? []) : undefined);
  try {
    const current = await deps.cache.until(namespace, name, (s) => found(s) !== undefined, deps.statusWaitMs);
    return found(current)!;
  } catch {
    throw new HttpError(
      504,
      'status_timeout',
      `sandbox ${name}: spec.ports was updated, but the operator did not publish the change within ${deps.statusWaitMs / 1000} s; poll GET /api/v1/sandboxes/${name}`,
    );
  }
}
