// SIGKILL of the API process in the middle of an invoke: sandboxd sees its connection
// drop, which is a disconnect, so the entrypoint gets SIGTERM and nothing of the run is
// left; `make dev` starts the API again, which serves the sandbox at once; and the cut
// invoke has its audit record (its one Event is written as `AgentInvokeStarted` before the
// stream begins, and only an invoke that ends has it turned into its outcome).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import { FAULT_AGENT } from './scripts.ts';
import { DevStack, alive } from './stack.ts';

let stack: DevStack;
beforeAll(async () => {
  stack = await DevStack.create('fault-api');
  await stack.start();
}, 200_000);
afterAll(() => stack.remove(), 90_000);

test('the API killed mid-invoke: SIGTERM to the entrypoint, nothing left, a new API serves at once, the invoke is audited', async () => {
  const name = 'kill-api';
  await stack.agent(name, FAULT_AGENT);
  const [apiPid, ...others] = await stack.pidsOf('api');
  expect(others).toEqual([]);

  const serving = await stack.invoke(name, 'serve\n');
  await serving.waitForOutput(/^ready \d+ \d+$/m);
  const invokeId = serving.invokeId!;
  const [, shell, child] = /^ready (\d+) (\d+)$/m.exec(serving.stdout)!;
  process.kill(apiPid!, 'SIGKILL');
  await serving.ended;
  expect(await alive(apiPid!)).toBe(false);

  // make dev starts a new API on the same port, as a kubelet restarts a container.
  let newPids: number[] = [];
  await eventually(
    async () => {
      newPids = await stack.pidsOf('api');
      const res = await stack.call('GET', `/sandboxes/${name}`);
      return newPids.length === 1 && res.status === 200;
    },
    { timeoutMs: 30_000, describe: () => `a new API serving ${name} (api pids: ${newPids.join(' ')})` },
  );
  expect(newPids[0]).not.toBe(apiPid);
  expect(stack.output).toMatch(/api exited \(SIGKILL\); restarting it/);

  // The entrypoint got SIGTERM (its trap wrote the marker once), and soon neither it nor
  // its child runs. (A child that died after its parent may show as a zombie for a moment,
  // until sandboxd, pid 1 of the Pod, reaps it; a zombie runs nothing.)
  let check = '';
  await eventually(
    async () => {
      check = (await stack.invokeToEnd(name, `alive ${shell} ${child}\n`)).stdout;
      return check.endsWith('term\n') && !/^alive \d+ [^Z]/m.test(check);
    },
    { timeoutMs: 30_000, describe: () => `only the SIGTERM marker; the sandbox says: ${check}` },
  );
  expect(check.split('\n').filter((l) => l === 'term')).toEqual(['term']);

  // The cut invoke left its record.
  const res = await stack.call('GET', `/audit/events?sandbox=${name}&reason=AgentInvokeStarted`, {
    key: stack.env.SVC_ADMIN_KEY,
  });
  expect(res.status).toBe(200);
  const records = ((await res.json()) as { items: { message: string; actor: string }[] }).items;
  expect(records.filter((r) => r.message.includes(invokeId))).toEqual([
    { ...records.find((r) => r.message.includes(invokeId)), actor: 'alice' },
  ]);
  expect(records.find((r) => r.message.includes(invokeId))?.message).toBe(
    `invoke ${invokeId} by alice started`,
  );
}, 300_000);
