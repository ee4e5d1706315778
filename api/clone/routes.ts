import { Hono } from 'hono';
import {
  Annotations,
  GROUP,
  SANDBOX_FINALIZER,
  SandboxName,
  VERSION,
  cloneName,
  snapshotMarks,
  snapshotName,
  sandboxObjectsName,
  workspaceClaimName,
  type CloneResponse,
} from '../../core/index.ts';
import { HttpError, conflict, validationError } from '../errors/index.ts';
import type { CloneDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { admitCreate, releaseReservation } from '../sandboxes/index.ts';
import { cloneOperations, cloneSandbox } from './operations.ts';
import { onOwnedSandbox, type OnSandbox } from '../request/index.ts';

/**
 * `POST /sandboxes/{id}/clone`: snapshot the source's workspace, then create a Sandbox in
 * the same namespace with the source's spec that hydrates from that snapshot. 202: the
 * clone is `Pending` until the operator has hydrated its volume.
 */
export function cloneRoutes(deps: CloneDeps): Hono<OnSandbox> {
  const app = new Hono<OnSandbox>();
  onOwnedSandbox(app, deps, cloneOperations);
  route(app, cloneSandbox, async (c, { body }, reply) => {
    const source = c.var.sandbox;
    const { namespace = '', name: sourceName = '' } = source.metadata;
    if (body.namespace !== undefined && body.namespace !== namespace) {
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
    if (body.name !== undefined && (await exists(deps, namespace, body.name)))
      throw taken(body.name, namespace);
    const snapshotClass = body.snapshotClass;
    if (snapshotClass !== undefined && !(await deps.snapshots.classExists(snapshotClass))) {
      throw new HttpError(
        400,
        'snapshot_class_not_found',
        `VolumeSnapshotClass "${snapshotClass}" does not exist; omit snapshotClass for the cluster's default`,
      );
    }

    const { createdBy: _, ...copied } = structuredClone(source.spec);
    const spec = { ...copied, stopped: false, createdBy: c.var.caller.user };
    const configured = source.metadata.annotations?.[Annotations.configureFiles];
    // Snapshot names keep the spec's `<source>-snap-<unix-ts>`, so clones of one source in
    // the same second take the next free second (as do unnamed clones' default names):
    // forking several agents at once is normal and none of them gets a 409 for it.
    let ts = Math.floor(deps.clock().getTime() / 1000);
    let admitted: string | undefined;
    for (let tries = 0; ; tries++, ts++) {
      if (tries >= MAX_SECONDS_AHEAD) {
        throw new HttpError(
          503,
          'clone_busy',
          `no free snapshot name for ${sourceName} within ${MAX_SECONDS_AHEAD} s; retry`,
          { headers: { 'retry-after': '1' } },
        );
      }
      const name = body.name ?? cloneName(sourceName, ts);
      // A default name is ours, made from the source's: it may be too long to be a name.
      const named = SandboxName.safeParse(name);
      if (!named.success) throw validationError(named.error, 'name');
      if (body.name === undefined && (await exists(deps, namespace, name))) continue;
      if (admitted !== name) {
        // Quotas apply to clones as to creates; a changed name is reserved anew. So do
        // credentials: the clone keeps the source's references only if the cloning user may
        // use every one of them now (403 credential_not_allowed otherwise, nothing dropped).
        await admitCreate(deps, { user: c.var.caller.user, namespace, name, spec, caller: c.var.caller });
        admitted = name;
      }
      const snapshot = snapshotName(sourceName, ts);
      const free = await deps.snapshots.create({
        namespace,
        name: snapshot,
        // The Pod's name is the objects' name (a claimed member's): the status names it as soon
        // as the sandbox is Running, the member's annotation only a moment later.
        claim: workspaceClaimName(source.status?.podName ?? sandboxObjectsName(source)),
        snapshotClass,
        // Whose workspace it holds (the source's owner, whoever clones it) and where it came
        // from: the webhook admits a Sandbox naming it only from that owner (or the API).
        ...snapshotMarks(source.spec.createdBy ?? '', { name: sourceName, uid: source.metadata.uid }),
      });
      if (!free) continue;
      try {
        await deps.sandboxes.create(namespace, {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'Sandbox',
          metadata: {
            name,
            namespace,
            finalizers: [SANDBOX_FINALIZER],
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
        // A default name someone took since we looked: the next second's name.
        if (body.name === undefined && err instanceof HttpError && err.status === 409) continue;
        throw err;
      } finally {
        // Written or failed, the Sandbox counts itself now (or nothing does): see QuotaLedger.
        releaseReservation(deps, namespace, name);
      }
      return reply.json(202, accepted(name, namespace, snapshot, sourceName));
    }
  });
  return app;
}

/** How many seconds past now a clone looks for a free snapshot name before giving up. */
const MAX_SECONDS_AHEAD = 120;

const exists = async (deps: CloneDeps, namespace: string, name: string) =>
  !!(deps.cache.get(namespace, name) ?? (await deps.sandboxes.read(namespace, name)));

const taken = (name: string, namespace: string) =>
  conflict(`sandbox ${name} already exists in namespace ${namespace}`);

function accepted(name: string, namespace: string, snapshot: string, clonedFrom: string): CloneResponse {
  return {
    sandboxId: name,
    name,
    namespace,
    snapshot,
    clonedFrom,
    phase: 'Pending',
    message: `clone accepted; poll GET /api/v1/sandboxes/${name} until status.phase is Running`,
  };
}
