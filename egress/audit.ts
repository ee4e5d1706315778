import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { AuditAnnotations, EgressReasons, GROUP, VERSION } from '../core/index.ts';
import type { EgressRecord } from './trail.ts';

/** What the gateway's Events and log lines name as the actor. */
export const EGRESS_ACTOR = 'svc-egress';

/**
 * The record's Event message: host, port, decision, connections, bytes each way and time;
 * never a path, a header or a body (the gateway never reads them from a tunnel, and does not
 * keep them from a plain request).
 * @example describeRecord(r) // 'pypi.org:443 allowed: 1 connection, 517 bytes out, 4096 bytes in, 35 ms'
 */
export function describeRecord(r: EgressRecord): string {
  const n = r.summary
    ? `${r.connections} more connections in the window`
    : `${r.connections} connection${r.connections === 1 ? '' : 's'}`;
  const head = `${r.host}:${r.port} ${r.allowed ? 'allowed' : 'denied'}: ${n}, ${r.bytesOut} bytes out, ${r.bytesIn} bytes in, ${r.durationMs} ms`;
  return r.reason === undefined ? head : `${head}; ${r.reason}`;
}

/**
 * Writes each record as the API's audit does: an Event on the Sandbox (what `GET
 * /audit/events` and `kubectl describe` show) and one JSON log line (Events expire).
 */
export class EgressAudit {
  readonly #core: CoreV1Api;
  readonly #logger: Logger;

  constructor(kc: KubeConfig, logger: Logger) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#logger = logger;
  }

  write(record: EgressRecord): Promise<void> {
    const reason = record.allowed ? EgressReasons.allowed : EgressReasons.denied;
    const message = describeRecord(record);
    this.#logger.info(
      {
        audit: true,
        reason,
        type: record.allowed ? 'Normal' : 'Warning',
        sandbox: record.sandbox,
        namespace: record.namespace,
        actor: EGRESS_ACTOR,
        message,
        egress: record,
      },
      'audit',
    );
    const now = new Date();
    const { namespace, sandbox: name } = record;
    return this.#core
      .createNamespacedEvent({
        namespace,
        body: {
          metadata: {
            generateName: `${name}.`,
            namespace,
            annotations: {
              [AuditAnnotations.actor]: EGRESS_ACTOR,
              [AuditAnnotations.owner]: record.owner ?? '',
            },
          },
          involvedObject: {
            apiVersion: `${GROUP}/${VERSION}`,
            kind: 'Sandbox',
            name,
            namespace,
            uid: record.uid,
          },
          reason,
          message,
          type: record.allowed ? 'Normal' : 'Warning',
          source: { component: EGRESS_ACTOR },
          reportingComponent: EGRESS_ACTOR,
          reportingInstance: EGRESS_ACTOR,
          firstTimestamp: now,
          lastTimestamp: now,
          count: record.connections,
        },
      })
      .then(
        () => undefined,
        (err: unknown) => {
          // The log line is the record then; a lost Event never stops the traffic.
          this.#logger.warn(
            { err, sandbox: `${namespace}/${name}`, reason },
            'writing the egress Event failed',
          );
        },
      );
  }
}
