// The template's own process dies (kill -9) in a running sandbox: sandboxd, its supervisor,
// starts it again, and the operator says so with a TemplateProcessRestarted event and the
// TemplateProcess condition. Before the Go sandboxd, the sandbox stayed Running with no
// process at all and nothing said so.
import { execFile } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { expect, test } from 'vitest';
import { GROUP, VERSION, type Sandbox } from '../../core/index.ts';
import { eventually } from '../../stack/index.ts';
import {
  createSandbox,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
} from '../support/index.ts';

const ns = useNamespace('tplproc');
useDevnode(ns);
useOperator(ns, { identity: 'tplproc', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
// A number no other process on this machine sleeps for, so pgrep finds this sandbox's alone.
const marker = String(900_000 + randomInt(99_999));
const template = useClusterTemplate('tplproc', ns, { command: ['sleep', marker] });
const sandboxes = { group: GROUP, version: VERSION, plural: 'sandboxes' };

const get = async (name: string) =>
  (await ns.custom.getNamespacedCustomObject({ ...sandboxes, namespace: ns.name, name })) as Sandbox;

async function templatePids(): Promise<number[]> {
  const { stdout } = await promisify(execFile)('pgrep', ['-x', '-f', `sleep ${marker}`]).catch(() => ({
    stdout: '',
  }));
  return stdout.split('\n').filter(Boolean).map(Number);
}

test('kill -9 of the template process: restarted by sandboxd, reported as an event and a condition', async () => {
  const name = `tp-${randomBytes(3).toString('hex')}`;
  await createSandbox(ns, name, { templateRef: { name: template } });
  let s: Sandbox | undefined;
  await eventually(
    async () => {
      s = await get(name);
      return (
        s.status?.phase === 'Running' &&
        s.status.conditions?.some((c) => c.type === 'TemplateProcess') === true
      );
    },
    {
      timeoutMs: 60_000,
      describe: () => `${name} Running with a TemplateProcess condition: ${JSON.stringify(s?.status)}`,
    },
  );
  expect(s!.status!.conditions!.find((c) => c.type === 'TemplateProcess')).toMatchObject({
    status: 'True',
    reason: 'Running',
    message: "the template's process restarted 0 times",
  });
  const [first, ...others] = await templatePids();
  expect(first).toBeGreaterThan(0);
  expect(others).toEqual([]);

  process.kill(first!, 'SIGKILL');
  let pids: number[] = [];
  await eventually(
    async () => {
      pids = await templatePids();
      return pids.length === 1 && pids[0] !== first;
    },
    { timeoutMs: 30_000, describe: () => `the template process restarted (pids ${pids.join(',')})` },
  );
  await eventually(
    async () => {
      s = await get(name);
      return (
        s.status?.conditions?.some((c) => c.type === 'TemplateProcess' && c.reason === 'Restarted') === true
      );
    },
    {
      timeoutMs: 30_000,
      describe: () => `the TemplateProcess condition says Restarted: ${JSON.stringify(s?.status)}`,
    },
  );
  expect(s!.status!.phase).toBe('Running');
  expect(s!.status!.conditions!.find((c) => c.type === 'TemplateProcess')).toMatchObject({
    status: 'True',
    reason: 'Restarted',
    message: "the template's process restarted 1 time",
  });
  const events = await ns.core.listNamespacedEvent({ namespace: ns.name });
  const restarted = events.items.filter(
    (e) => e.involvedObject.name === name && e.reason === 'TemplateProcessRestarted',
  );
  expect(restarted).toHaveLength(1);
  expect(restarted[0]).toMatchObject({
    type: 'Warning',
    message: "the template's process restarted 1 time; sandboxd restarted it",
  });
}, 150_000);
