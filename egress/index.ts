// The one door of egress: the gateway that lets allowlist sandboxes reach only their hosts.
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { EgressAudit } from './audit.ts';
import { startGateway, type Gateway } from './gateway.ts';
import { Identities } from './identity.ts';
import type { EgressMetrics } from './metrics.ts';
import { EgressTrail } from './trail.ts';

export { EGRESS_ACTOR, EgressAudit, describeRecord } from './audit.ts';
export { decide, type Ask, type Asker, type Decision } from './decide.ts';
export { parseAuthority, startGateway, type Gateway, type GatewayOptions, type Outcome } from './gateway.ts';
export { readHello, type Hello } from './hello.ts';
export { Identities } from './identity.ts';
export { EgressMetrics } from './metrics.ts';
export { EgressTrail, type EgressRecord, type TrailOptions } from './trail.ts';

export interface EgressOptions {
  kc: KubeConfig;
  logger: Logger;
  listen: { host: string; port: number };
  /** The namespaces whose sandboxes it serves (a watch in each); unset: every namespace. */
  namespaces?: readonly string[];
  /** Like connections after a first one are summed over this long (see `EgressTrail`). */
  summaryWindowMs: number;
  metrics: EgressMetrics;
}

/** The gateway as `svc egress` runs it: identities from informers, every decision audited and counted. */
export async function startEgress(opts: EgressOptions): Promise<Gateway> {
  const identities = new Identities(opts.kc, opts.logger, opts.namespaces);
  await identities.start();
  const audit = new EgressAudit(opts.kc, opts.logger);
  const trail = new EgressTrail({
    windowMs: opts.summaryWindowMs,
    write: (record) => void audit.write(record),
  });
  const gateway = await startGateway({
    listen: opts.listen,
    logger: opts.logger,
    lookup: (ip) => identities.lookup(ip),
    onOutcome: (outcome) => {
      opts.metrics.observe(outcome);
      if (!outcome.asker) {
        // No sandbox to hang an Event on: the log line is the record.
        opts.logger.warn(
          { audit: true, source: outcome.source, host: outcome.host, port: outcome.port },
          'egress from no sandbox refused',
        );
        return;
      }
      trail.add(outcome);
    },
  });
  return {
    port: gateway.port,
    close: async () => {
      await gateway.close();
      trail.flush();
      await identities.stop();
    },
  };
}
