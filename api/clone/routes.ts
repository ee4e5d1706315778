import { Hono } from 'hono';
import {
  Annotations,
  CloneRequest,
  GROUP,
  Labels,
  SandboxName,
  VERSION,
  cloneName,
  snapshotName,
  workspaceClaimName,
  type CloneResponse,
} from '../../core/index.ts';
import { HttpError, conflict, validationError } from '../errors/index.ts';
import type { ApiDeps } from '../deps.ts';
import { admitCreate, ownedSandbox, readJson } from '../sandboxes/index.ts';

/**
 * `POST /sandboxes/{id}/clone`: snapshot the source's workspace, then create a Sandbox in
 * the same namespace with the source's spec that hydrates from that snapshot. 202: the
 * clone is `Pending` until the operator has hydrated its volume.
 */
export function cloneRoutes(deps: ApiDeps): Hono {
  const app = new Hono();
  app.post('/:id/clone', async (c) => {
    const source = await ownedSandbox(c, deps);
    const parsed = CloneRequest.safeParse(await readJson(c.req.raw));
    if (!parsed.success) throw validationError(parsed.error);
    const { namespace = '', name: sourceName = '' } = source.metadata;
    if (parsed.data.namespace !== undefined && parsed.data.namespace !== namespace) {
      throw new HttpError(
        400,
        'cross_namespace_clone',
        `clones stay in the source's namespace (${namespace})`,
      );
    }
    const phase = source.status?.phase;
    if (phase !== 'Running' && phase !== 'Stopped') {
      throw new HttpError(
        400,
        'source_not_ready',
        `sandbox ${sourceName} has no workspace volume to clone yet: it has never reached Running or Stopped (phase: ${phase ?? 'none'})`,
      );
    }
    const ts = Math.floor(deps.clock().getTime() / 1000);
    const name = parsed.data.name ?? cloneName(sourceName, ts);
    const named = SandboxName.safeParse(name);
    if (!named.success) throw validationError(named.error, 'name');
    if (deps.cache.get(namespace, name) ?? (await deps.sandboxes.read(namespace, name))) {
      throw conflict(`sandbox ${name} already exists in namespace ${namespace}`);
    }

    const { createdBy: _, ...copied } = structuredClone(source.spec);
    const spec = { ...copied, stopped: false, createdBy: c.var.caller.user };
    // Quotas apply to clones as to creates.
    await admitCreate(deps, { user: c.var.caller.user, namespace, name, spec });

    const snapshot = snapshotName(sourceName, ts);
    await deps.snapshots.create({
      namespace,
      name: snapshot,
      claim: workspaceClaimName(sourceName),
      snapshotClass: parsed.data.snapshotClass,
      labels: { [Labels.sandbox]: sourceName },
    });
    const configured = source.metadata.annotations?.[Annotations.configureFiles];
    try {
      await deps.sandboxes.create(namespace, {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'Sandbox',
        metadata: {
          name,
          namespace,
          annotations: {
            [Annotations.clonedFrom]: sourceName,
            // The configure travels with the spec, so the clone's installCommandHash is the
            // source's. Its install runs once more in the clone: what it put outside
            // /workspace (system packages, caches) is not in the snapshot.
            ...(configured === undefined ? {} : { [Annotations.configureFiles]: configured }),
          },
        },
        spec: { ...spec, cloneFromSnapshot: snapshot },
      });
    } catch (err) {
      // A clone that could not be created must not leave a snapshot nobody asked to keep.
      await deps.snapshots.delete(namespace, snapshot);
      throw err;
    }
    const body: CloneResponse = {
      name,
      namespace,
      snapshot,
      clonedFrom: sourceName,
      phase: 'Pending',
      message: `clone accepted; poll GET /api/v1/sandboxes/${name} until status.phase is Running`,
    };
    return c.json(body, 202);
  });
  return app;
}
