// SIGKILL of a sandbox's sandboxd (pid 1 of its Pod's container, found through the Pod's
// status as devnode reports it) while an invoke writes into /workspace: devnode restarts
// the container, the sandbox is Running again, every file completed before the kill is
// intact, and the cut invoke's stream ends with `error` then `exit` reason `error`.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { eventually } from '../../stack/index.ts';
import { FAULT_AGENT } from './scripts.ts';
import { DevStack, alive } from './stack.ts';

let stack: DevStack;
beforeAll(async () => {
  stack = await DevStack.create('fault-sandboxd');
  await stack.start();
}, 200_000);
afterAll(() => stack.remove(), 90_000);

test('sandboxd killed mid-invoke: the Pod restarts, the files are intact, the stream ends with error then exit', async () => {
  const name = 'kill-sandboxd';
  await stack.agent(name, FAULT_AGENT);
  const before = await stack.sandboxdPid(name);

  const writing = await stack.invoke(name, 'write\n');
  await writing.waitForOutput(/done f10 /);
  process.kill(before.pid, 'SIGKILL');

  // The stream ends by itself, and says how.
  await Promise.race([
    writing.ended,
    new Promise((_, reject) => setTimeout(() => reject(new Error('the invoke stream hangs')), 30_000)),
  ]);
  const names = writing.events.map((e) => e.event);
  expect(names[0]).toBe('start');
  expect(names.slice(-2)).toEqual(['error', 'exit']);
  expect(names.filter((n) => n === 'exit')).toHaveLength(1);
  expect(JSON.parse(writing.events.at(-2)!.data)).toMatchObject({ code: 'sandbox_unreachable' });
  expect(JSON.parse(writing.events.at(-1)!.data)).toMatchObject({
    invokeId: writing.invokeId,
    exitCode: -1,
    reason: 'error',
  });
  // The stream ends once the dying sandboxd's sockets close; as pid 1 of its pid namespace
  // it is a zombie only after the kernel has killed and waited out the rest of the
  // namespace (the agent's writer among them), which a loaded machine takes a while to do.
  await eventually(async () => !(await alive(before.pid)), {
    timeoutMs: 15_000,
    describe: () => `the killed sandboxd (pid ${before.pid}) gone`,
  });

  // The container was restarted by devnode (a new pid 1, one more restart) and the sandbox is Running.
  let after = before;
  await eventually(
    async () => {
      after = await stack.sandboxdPid(name);
      return after.restartCount > before.restartCount;
    },
    { timeoutMs: 60_000, describe: () => `a restart of ${name}'s sandbox container` },
  );
  expect(after.restartCount).toBe(before.restartCount + 1);
  expect(after.pid).not.toBe(before.pid);
  await stack.running(name);

  // Every file the stream reported complete is there, byte for byte.
  const completed = new Map(
    [...writing.stdout.matchAll(/^done (f\d+) ([0-9a-f]{64})$/gm)].map((m) => [m[1]!, m[2]!]),
  );
  expect(completed.size).toBeGreaterThanOrEqual(10);
  let check = { stdout: '', events: [] as { event: string }[] };
  await eventually(
    async () => {
      check = await stack.invokeToEnd(name, 'check\n');
      return check.events.at(-1)?.event === 'exit';
    },
    { timeoutMs: 60_000, describe: () => `a check invoke after the restart: ${JSON.stringify(check)}` },
  );
  const found = new Map(
    [...check.stdout.matchAll(/^(f\d+) (\d+) ([0-9a-f]{64})$/gm)].map((m) => [
      m[1]!,
      { size: m[2], sum: m[3] },
    ]),
  );
  for (const [file, sum] of completed) expect(found.get(file)).toEqual({ size: '262144', sum });
  // And nothing complete-looking is torn: every renamed file is whole.
  for (const f of found.values()) expect(f.size).toBe('262144');
}, 300_000);
