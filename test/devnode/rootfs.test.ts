// What a sandbox on devnode sees of the machine it runs on: the system's programs and
// libraries, as a container image would hold them, and nothing of the person's own files
// (their home, /tmp, the checkout, `.dev`, devnode's state), since `make dev` runs there.
import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  shIn,
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  type TestApi,
  waitForSandboxPhase,
} from '../support/index.ts';

const ns = useNamespace('rootfs');
const node = useDevnode(ns);
const template = useClusterTemplate('rootfs', ns, {});
useOperator(ns, { identity: 'rootfs-test', logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }) });
const checkout = resolve(import.meta.dirname, '../..');
const marker = `svc-rootfs-${randomBytes(6).toString('hex')}`;
/** Files of the host's, which the sandbox must not see. */
const planted = [`/root/.${marker}`, `/tmp/${marker}`];
let api: TestApi;

beforeAll(async () => {
  for (const path of planted) await writeFile(path, 'host only\n');
  api = await startTestApi(ns);
}, 60_000);

afterAll(async () => {
  await api?.close();
  for (const path of planted) await rm(path, { force: true });
}, 30_000);

describe('a sandbox on devnode', () => {
  test('sees the system (/usr, /bin, /lib, /etc) but not /root, /home, /tmp, the checkout or .dev', async () => {
    const created = await api.call('POST', '/sandboxes', {
      key: api.keys.alice,
      body: { name: 'box', templateRef: { name: template } },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await waitForSandboxPhase(ns, 'box', 'Running');
    const sandboxd = await api.deps.sandboxd.client(ns.name, 'box');
    const sh = (script: string) => shIn(sandboxd, script);

    // The system: programs, libraries and configuration run as they do on the host.
    expect(await sh('test -x /bin/sh && test -d /usr/lib && test -d /lib && echo ok')).toBe('ok\n');
    expect(await sh('grep -c ^ID= /etc/os-release')).toBe('1\n');
    expect(await sh('ls /usr/bin | grep -cx sh')).toBe('1\n');

    // The person's files: each path is absent or an empty folder of the sandbox's own.
    const hidden = [
      '/root',
      '/home',
      '/tmp',
      '/work',
      checkout,
      `${checkout}/.dev`,
      node.dataDir,
      ...planted,
    ];
    const seen = await sh(
      hidden.map((p) => `printf '%s %s\\n' '${p}' "$(ls -A '${p}' 2>/dev/null | wc -l)"`).join('; '),
    );
    expect(seen).toBe(hidden.map((p) => `${p} 0\n`).join(''));
    expect(await sh(`cat /root/.${marker} /tmp/${marker} 2>/dev/null; echo end`)).toBe('end\n');
    // /tmp is the sandbox's own, writable by anyone in it, as a container's is.
    expect(await sh('stat -c %a /tmp; echo x > /tmp/mine && cat /tmp/mine')).toBe('1777\nx\n');
    expect(await sh(`test -e /tmp/${marker} || echo absent`)).toBe('absent\n');
  }, 180_000);
});
