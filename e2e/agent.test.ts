// Agent mode on a real cluster, through the public HTTP API only: configure writes files and
// runs the install, invoke streams the entrypoint's output, cancel ends a running invoke.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../clients/typescript/index.ts';
import { sandboxName, svcClient } from './support/index.ts';

const alice = svcClient('alice');
const name = sandboxName('e2e-agent');

beforeAll(async () => {
  await alice.createSandbox({ name, mode: 'agent', templateRef: { name: 'default' } });
  await alice.waitForPhase(name, 'Running', { timeoutMs: 240_000 });
}, 300_000);

afterAll(async () => {
  await alice.deleteSandbox(name).catch((err: unknown) => {
    if (!(err instanceof NotFoundError)) throw err;
  });
});

describe('an agent sandbox on a real cluster', () => {
  it('configure: the files are written and the install runs once, its output streamed', async () => {
    const events = await (
      await alice.configureSandbox(name, {
        files: [
          // Reads lines until stdin ends; "sleep" makes it wait (for cancel below).
          {
            path: '/workspace/agent.sh',
            content: 'while read -r line; do [ "$line" = sleep ] && sleep 600; echo "you said $line"; done\n',
          },
        ],
        entrypoint: ['sh', '/workspace/agent.sh'],
        installCommand: ['sh', '-c', 'echo installed > /workspace/installed; echo install-ok'],
      })
    ).toArray();
    const logs = events.flatMap((e) => (e.event === 'log' ? [e.data.data] : [])).join('');
    expect(logs).toBe('install-ok\n');
    const result = events.find((e) => e.event === 'result');
    expect(result?.data).toMatchObject({ installExitCode: 0 });
  });

  it('invoke: stdin in, the entrypoint’s stdout out, exit 0 completed', async () => {
    const events = await (await alice.invokeSandbox(name, 'hello\nworld\n')).toArray();
    const stdout = events.flatMap((e) =>
      e.event === 'log' && e.data.stream === 'stdout' ? [e.data.data] : [],
    );
    expect(stdout.join('')).toBe('you said hello\nyou said world\n');
    const exit = events.find((e) => e.event === 'exit');
    expect(exit?.data).toMatchObject({ exitCode: 0, reason: 'completed' });
  });

  it('cancel: a running invoke ends with exit -1, canceled', async () => {
    const stream = await alice.invokeSandbox(name, 'sleep\n');
    const seen: { event: string; data: unknown }[] = [];
    for await (const e of stream) {
      seen.push(e);
      if (e.event === 'start') await alice.cancelInvoke(name, e.data.invokeId);
      if (e.event === 'exit') break;
    }
    expect(seen.find((e) => e.event === 'exit')?.data).toMatchObject({ exitCode: -1, reason: 'canceled' });
  });
});
