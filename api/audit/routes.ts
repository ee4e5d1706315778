import { CoreV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { Hono } from 'hono';
import { EgressReasons } from '../../core/index.ts';
import type { AuditDeps } from './deps.ts';
import { route } from '../openapi/index.ts';
import { egressFigures, type EgressFigures } from './egress.ts';
import { listAuditEvents } from './operations.ts';
import { AuditAnnotations } from './recorder.ts';
import { requireNamespace } from '../request/index.ts';

export interface AuditRecord {
  /** The Event's name. */
  id: string;
  time: string;
  reason: string;
  type: string;
  sandbox: string;
  namespace: string;
  actor: string | null;
  message: string;
  count: number;
  involvedObject: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
  /** On the egress gateway's records: its decision as fields (host, port, bytes…). */
  egress?: EgressFigures;
}

/**
 * `GET /api/v1/audit/events`: the Events of Sandboxes, newest first. Admins see all of a
 * namespace; others only those of their own sandboxes (by the owner recorded on the Event,
 * else by the owner of the sandbox with the Event's uid). `sandbox=` names the sandbox of
 * that name now (its uid) while one exists, else every Event under the name.
 */
export function auditRoutes(deps: AuditDeps): Hono {
  const app = new Hono();
  const core = deps.kc.makeApiClient(CoreV1Api);
  route(app, listAuditEvents, async (c, { query: q }, reply) => {
    const namespace = q.namespace ?? deps.defaultNamespace;
    const selectors = ['involvedObject.kind=Sandbox'];
    if (q.sandbox) {
      selectors.push(`involvedObject.name=${q.sandbox}`);
      // A name is reused when a sandbox is deleted and made again: while one of that name
      // exists, its Events are those about its uid, never its predecessors'.
      const uid = deps.cache.get(namespace, q.sandbox)?.metadata.uid;
      if (uid) selectors.push(`involvedObject.uid=${uid}`);
    }
    if (q.reason) selectors.push(`reason=${q.reason}`);
    const list = await core.listNamespacedEvent({ namespace, fieldSelector: selectors.join(',') });
    if (list.items.length === 0) await requireNamespace(deps, namespace);
    const caller = c.var.caller;
    const since = q.since ? Date.parse(q.since) : 0;
    const records = list.items
      .filter((e) => caller.isAdmin || ownerOf(e, deps) === caller.user)
      .filter((e) => q.category !== 'egress' || EGRESS_REASONS.has(e.reason ?? ''))
      // Event times have second resolution; within a second, the resourceVersion (which
      // etcd hands out in increasing order) says which was written last.
      .sort(
        (a, b) =>
          time(b) - time(a) || Number(b.metadata.resourceVersion) - Number(a.metadata.resourceVersion),
      )
      .map(toRecord)
      .filter((r) => Date.parse(r.time) >= since);
    const offset = q.continue ? Number(Buffer.from(q.continue, 'base64url').toString()) || 0 : 0;
    const items = records.slice(offset, offset + q.limit);
    const next =
      offset + q.limit < records.length
        ? Buffer.from(String(offset + q.limit)).toString('base64url')
        : undefined;
    return reply.json(200, { items, ...(next ? { continue: next } : {}) });
  });
  return app;
}

const EGRESS_REASONS = new Set<string>(Object.values(EgressReasons));

/**
 * Whose Event it is: the owner recorded on it, else the owner of the sandbox it is about,
 * found by name and taken only when the uids match. A sandbox made again under a deleted
 * one's name is another sandbox, whoever owns it; its predecessor's unrecorded Events are
 * then an admin's to read.
 */
function ownerOf(event: CoreV1Event, deps: AuditDeps): string | undefined {
  const recorded = event.metadata.annotations?.[AuditAnnotations.owner];
  if (recorded) return recorded;
  const { namespace = '', name = '', uid } = event.involvedObject;
  const sandbox = deps.cache.get(namespace, name);
  return uid && sandbox?.metadata.uid === uid ? sandbox.spec.createdBy : undefined;
}

function time(e: CoreV1Event): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return t ? new Date(t).getTime() : 0;
}

function toRecord(e: CoreV1Event): AuditRecord {
  const egress = egressFigures(e.reason ?? '', e.message ?? '');
  return {
    id: e.metadata.name ?? '',
    time: new Date(time(e)).toISOString(),
    reason: e.reason ?? '',
    type: e.type ?? 'Normal',
    sandbox: e.involvedObject.name ?? '',
    namespace: e.involvedObject.namespace ?? e.metadata.namespace ?? '',
    actor: e.metadata.annotations?.[AuditAnnotations.actor] ?? null,
    message: e.message ?? '',
    count: e.count ?? 1,
    involvedObject: {
      apiVersion: e.involvedObject.apiVersion,
      kind: e.involvedObject.kind,
      name: e.involvedObject.name,
      namespace: e.involvedObject.namespace,
      uid: e.involvedObject.uid ?? e.metadata.uid,
    },
    ...(egress ? { egress } : {}),
  };
}
