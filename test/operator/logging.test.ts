// The operator's logs per reconcile: every line a pass writes, and every line of the agent
// install it starts, carries the controller and the Sandbox's namespace and name, so one
// object's story can be read out of a shared log.
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  createSandbox,
} from '../support/index.ts';

const ns = useNamespace('oplog');
useDevnode(ns);
const template = useClusterTemplate('oplog', ns, {});
const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'debug' },
  { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
);
useOperator(ns, { identity: 'oplog-test', logger });
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };
/** In the install command only: it must reach no log line. */
const argvMarker = `argv-marker-${Date.now()}`;

async function read(name: string): Promise<Sandbox | undefined> {
  return (await ns.custom
    .getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })
    .catch(() => undefined)) as Sandbox | undefined;
}

/** The last log lines, for a failure message. */
const tail = () =>
  lines
    .slice(-20)
    .map((l) => JSON.stringify(l))
    .join('\n');

describe('operator logs', () => {
  test('a reconcile and the install it starts log with the controller, namespace, name and pass id', async () => {
    const name = 'logged';
    await createSandbox(ns, name, {
      templateRef: { name: template },
      mode: 'agent',
      harness: { agent: { entrypoint: ['cat'], installCommand: ['sh', '-c', `: ${argvMarker}`] } },
    });
    let s: Sandbox | undefined;
    await eventually(async () => (s = await read(name))?.status?.agentConfigure?.installExitCode === 0, {
      timeoutMs: 60_000,
      describe: () => `${name} configured: ${JSON.stringify(s?.status)}`,
    });
    await ns.custom.deleteNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name });
    // Gone, and its last pass has logged: the operator writes 'sandbox deleted' after its
    // finalizer patch returns, and this read can see the Sandbox gone a moment before that
    // (one process, two sockets: the 404 may be read first).
    await eventually(
      async () => (await read(name)) === undefined && lines.some((l) => l.msg === 'sandbox deleted'),
      { timeoutMs: 60_000, describe: () => `${name} deleted and its deletion logged\n${tail()}` },
    );

    const key = { controller: 'sandbox', namespace: ns.name, name };
    const byMsg = (msg: string) => lines.filter((l) => l.msg === msg);
    for (const msg of ['reconciled', 'agent install starting', 'agent install recorded', 'sandbox deleted']) {
      expect(byMsg(msg).length, msg).toBeGreaterThan(0);
      for (const l of byMsg(msg)) expect(l, msg).toMatchObject(key);
    }
    // The install logs under the id of the pass that started it.
    const started = byMsg('agent install starting')[0]!;
    expect(started.reconcileId).toMatch(/^[0-9a-f]{8}$/);
    expect(byMsg('agent install recorded')[0]).toMatchObject({
      reconcileId: started.reconcileId,
      installExitCode: 0,
    });
    // Every line that names this Sandbox names it the one way, and no line carries the argv.
    for (const l of lines.filter((l) => l.name === name)) expect(l).toMatchObject(key);
    expect(JSON.stringify(lines)).not.toContain(argvMarker);
  }, 120_000);
});
