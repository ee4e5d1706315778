import { Hono, type Context } from 'hono';
import { Annotations, GROUP, SANDBOX_FINALIZER, VERSION, type Sandbox } from '../../core/index.ts';
import type { SandboxesDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import {
  canAccess,
  onOwnedSandbox,
  requestNamespace,
  requireNamespace,
  type OnSandbox,
} from '../request/index.ts';
import { admitCreate, present } from './access.ts';
import {
  createSandbox,
  deleteSandbox,
  getSandbox,
  listSandboxes,
  resumeSandbox,
  stopSandbox,
} from './operations.ts';
import { paginate } from './paginate.ts';
import { watchSandboxes } from './watch.ts';

/** Sandbox lifecycle: create, get, list, delete, stop and resume. */
export function sandboxRoutes(deps: SandboxesDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, [getSandbox, deleteSandbox, stopSandbox, resumeSandbox]);

  route(app, createSandbox, async (c, { body }, reply) => {
    const { name, namespace: bodyNamespace, ...spec } = body;
    const namespace = bodyNamespace ?? requestNamespace(c, deps);
    // createdBy comes from the authenticated caller, never from the request.
    const full = { ...spec, createdBy: c.var.caller.user };
    const { reserved } = await admitCreate(deps, {
      user: c.var.caller.user,
      namespace,
      name,
      spec: full,
      caller: c.var.caller,
    });
    const sandbox = await deps.sandboxes
      .create(namespace, {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        // The operator's finalizer from the start: it need not write it before it can begin.
        metadata: { name, namespace, finalizers: [SANDBOX_FINALIZER] },
        spec: full,
      })
      // Only a reservation made is released: without quotas the ledger is never touched.
      .finally(() => reserved && releaseReservation(deps, namespace, name));
    return reply.json(201, present(sandbox));
  });

  route(app, listSandboxes, async (c, { query }, reply) => {
    const { mode, phase, limit } = query;
    const namespace = query.namespace ?? deps.defaultNamespace;
    if (query.watch === 'true') {
      if (deps.cache.list(namespace).length === 0) await requireNamespace(deps, namespace);
      return watchSandboxes(c, deps, { namespace, mode, phase });
    }
    const all = deps.cache.list(namespace);
    if (all.length === 0) await requireNamespace(deps, namespace);
    const visible = all
      .filter((s) => !s.metadata.deletionTimestamp && canAccess(c.var.caller, s))
      .filter(
        (s) =>
          (mode ? s.spec.mode === mode : true) && (phase ? (s.status?.phase ?? 'Pending') === phase : true),
      );
    const page = paginate(visible, limit, query.continue);
    return reply.json(200, { items: page.items.map(present), continue: page.continue });
  });

  route(app, getSandbox, (c, _, reply) => reply.json(200, present(c.var.sandbox)));

  route(app, deleteSandbox, async (c, _, reply) => {
    const sandbox = c.var.sandbox;
    await deps.sandboxes.delete(sandbox.metadata.namespace!, sandbox.metadata.name!);
    return reply.json(202, {
      name: sandbox.metadata.name!,
      namespace: sandbox.metadata.namespace!,
      message: 'deletion started',
    });
  });

  const setStopped = async (c: Context<OnSandbox>, stopped: boolean) => {
    const sandbox = c.var.sandbox;
    const updated: Sandbox = await deps.sandboxes.mergePatch(
      sandbox.metadata.namespace!,
      sandbox.metadata.name!,
      stopped
        ? { spec: { stopped } }
        : {
            // The request time also resumes a sandbox its lifetime stopped (the operator
            // records an expiry in status only, so spec.stopped alone cannot undo it).
            metadata: { annotations: { [Annotations.resumeRequestedAt]: new Date().toISOString() } },
            spec: { stopped },
          },
    );
    return present(updated);
  };
  route(app, stopSandbox, async (c, _, reply) => reply.json(202, await setStopped(c, true)));
  route(app, resumeSandbox, async (c, _, reply) => reply.json(202, await setStopped(c, false)));

  return app;
}

/**
 * Ends the quota reservation of a create once its Sandbox is written or refused, without the
 * caller waiting: a written Sandbox already counts itself instead of its reservation, so
 * removing the entry is bookkeeping (an entry left behind by a failure expires on its own).
 */
export function releaseReservation(deps: SandboxesDeps, namespace: string, name: string): void {
  deps.governance
    .release(namespace, name)
    .catch((err: unknown) =>
      deps.logger.warn({ err, sandbox: `${namespace}/${name}` }, 'releasing a quota reservation failed'),
    );
}
