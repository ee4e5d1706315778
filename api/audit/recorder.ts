import { CoreV1Api, type CoreV1Event, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { AuditAnnotations, type Sandbox } from '../../core/index.ts';
import { mergePatch } from '../../kube/index.ts';

export { AuditAnnotations };

export interface AuditEntry {
  sandbox: Sandbox;
  /** CamelCase Event reason: `AgentConfigured`, `ConfigureDenied`, `AgentInvokeCompleted`… */
  reason: string;
  type: 'Normal' | 'Warning';
  /** Human text. Never argv, stdin or secret values. */
  message: string;
  actor: string;
  /** For a call the API refused or failed: its HTTP status and error code. */
  refusal?: { status: number; error: string };
}

/**
 * Writes each audit entry twice: as a Kubernetes Event on the Sandbox (what `kubectl
 * describe` and the audit endpoint show) and as one JSON log line, because cluster Events
 * expire and log stores keep them.
 */
export class AuditRecorder {
  readonly #core: CoreV1Api;
  readonly #logger: Logger;
  readonly #component: string;

  constructor(kc: KubeConfig, logger: Logger, component = 'svc-api') {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#logger = logger;
    this.#component = component;
  }

  async record(entry: AuditEntry): Promise<void> {
    this.#log(entry);
    await this.#create(entry);
  }

  /**
   * Opens the one audit record of a call whose outcome comes later (an invoke): its Event is
   * written now, and `end` turns that same Event into the outcome and writes the audit log
   * line. A call cut short by this process's death (SIGKILL, OOM) so keeps its record, with
   * the reason it was opened with; a call that ends has exactly one record, as any other.
   */
  async open(entry: AuditEntry): Promise<{ end(outcome: AuditEntry): Promise<void> }> {
    // An ordinary log line: the audit line is the outcome's, written once by `end`.
    this.#logger.info(
      {
        reason: entry.reason,
        sandbox: entry.sandbox.metadata.name,
        actor: entry.actor,
        message: entry.message,
      },
      'audit record opened',
    );
    const opened = await this.#create(entry);
    return {
      end: async (outcome) => {
        this.#log(outcome);
        if (!opened) {
          await this.#create(outcome);
          return;
        }
        try {
          await withRetry(() =>
            this.#core.patchNamespacedEvent(
              {
                name: opened.metadata.name ?? '',
                namespace: opened.metadata.namespace ?? '',
                body: {
                  reason: outcome.reason,
                  message: outcome.message,
                  type: outcome.type,
                  lastTimestamp: new Date(),
                },
              },
              mergePatch,
            ),
          );
        } catch (err) {
          this.#logger.warn(
            { err, event: opened.metadata.name, reason: outcome.reason },
            'updating the audit Event failed',
          );
        }
      },
    };
  }

  #log(entry: AuditEntry): void {
    const { name = '', namespace = '' } = entry.sandbox.metadata;
    this.#logger.info(
      {
        audit: true,
        reason: entry.reason,
        type: entry.type,
        sandbox: name,
        namespace,
        actor: entry.actor,
        message: entry.message,
        ...(entry.refusal ? { status: entry.refusal.status, error: entry.refusal.error } : {}),
      },
      'audit',
    );
  }

  /** The entry's Event, or undefined when it could not be written (the log line is the record then). */
  async #create(entry: AuditEntry): Promise<CoreV1Event | undefined> {
    const { name = '', namespace = '', uid } = entry.sandbox.metadata;
    const now = new Date();
    try {
      return await withRetry(() =>
        this.#core.createNamespacedEvent({
          namespace,
          body: {
            metadata: {
              generateName: `${name}.`,
              namespace,
              annotations: {
                [AuditAnnotations.actor]: entry.actor,
                [AuditAnnotations.owner]: entry.sandbox.spec.createdBy ?? '',
              },
            },
            involvedObject: { apiVersion: 'svc.io/v1alpha1', kind: 'Sandbox', name, namespace, uid },
            reason: entry.reason,
            message: entry.message,
            type: entry.type,
            source: { component: this.#component },
            reportingComponent: this.#component,
            reportingInstance: this.#component,
            firstTimestamp: now,
            lastTimestamp: now,
            count: 1,
          },
        }),
      );
    } catch (err) {
      // The log line is already written; a lost Event must not fail the user's call.
      this.#logger.warn(
        { err, sandbox: `${namespace}/${name}`, reason: entry.reason },
        'writing the audit Event failed',
      );
      return undefined;
    }
  }
}

/** Retries what the apiserver asks to be retried (429), a few times, then gives up. */
async function withRetry<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if ((err as { code?: number }).code !== 429 || attempt >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}
