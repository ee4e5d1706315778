import { Hono, type Context } from 'hono';
import {
  Annotations,
  CreateSandboxRequest,
  GROUP,
  ListQuery,
  SANDBOX_FINALIZER,
  VERSION,
  type Sandbox,
} from '../../core/index.ts';
import { badRequest, validationError } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';
import {
  admitCreate,
  canAccess,
  ownedSandbox,
  present,
  requestNamespace,
  requireNamespace,
} from './access.ts';
import { paginate } from './paginate.ts';
import { watchSandboxes } from './watch.ts';

/** Sandbox lifecycle: create, get, list, delete, stop and resume. */
export function sandboxRoutes(deps: ApiDeps): Hono {
  const app = new Hono();

  app.post('/', async (c) => {
    const parsed = CreateSandboxRequest.safeParse(await readJson(c.req.raw));
    if (!parsed.success) throw validationError(parsed.error);
    const { name, namespace: bodyNamespace, ...spec } = parsed.data;
    const namespace = bodyNamespace ?? requestNamespace(c, deps);
    // createdBy comes from the authenticated caller, never from the request.
    const full = { ...spec, createdBy: c.var.caller.user };
    await admitCreate(deps, { user: c.var.caller.user, namespace, name, spec: full, caller: c.var.caller });
    const sandbox = await deps.sandboxes
      .create(namespace, {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        // The operator's finalizer from the start: it need not write it before it can begin.
        metadata: { name, namespace, finalizers: [SANDBOX_FINALIZER] },
        spec: full,
      })
      .finally(() => releaseReservation(deps, namespace, name));
    return c.json(present(sandbox), 201);
  });

  app.get('/', async (c) => {
    const query = ListQuery.safeParse(c.req.query());
    if (!query.success) throw validationError(query.error);
    const { mode, phase, limit } = query.data;
    const namespace = query.data.namespace ?? deps.defaultNamespace;
    if (query.data.watch === 'true') {
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
    const page = paginate(visible, limit, query.data.continue);
    return c.json({ items: page.items.map(present), continue: page.continue });
  });

  app.get('/:id', async (c) => c.json(present(await ownedSandbox(c, deps))));

  app.delete('/:id', async (c) => {
    const sandbox = await ownedSandbox(c, deps);
    await deps.sandboxes.delete(sandbox.metadata.namespace!, sandbox.metadata.name!);
    return c.json(
      { name: sandbox.metadata.name, namespace: sandbox.metadata.namespace, message: 'deletion started' },
      202,
    );
  });

  const setStopped = (stopped: boolean) => async (c: Context) => {
    const sandbox = await ownedSandbox(c, deps);
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
    return c.json(present(updated), 202);
  };
  app.post('/:id/stop', setStopped(true));
  app.post('/:id/resume', setStopped(false));

  return app;
}

/**
 * Ends the quota reservation of a create once its Sandbox is written or refused, without the
 * caller waiting: a written Sandbox already counts itself instead of its reservation, so
 * removing the entry is bookkeeping (an entry left behind by a failure expires on its own).
 */
export function releaseReservation(deps: ApiDeps, namespace: string, name: string): void {
  deps.governance
    .release(namespace, name)
    .catch((err: unknown) =>
      deps.logger.warn({ err, sandbox: `${namespace}/${name}` }, 'releasing a quota reservation failed'),
    );
}

/** The JSON body, or a 400 that says it is not JSON (an empty body counts as `{}`). */
export async function readJson(req: Request): Promise<unknown> {
  const text = await req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}
