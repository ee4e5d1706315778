import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BringUp } from './index.ts';

// Stand-ins for hack/cluster's scripts: each appends its name and arguments to LOG; up.sh
// makes a state folder as the real one does (env, svc.env) and prints it last.
const fake = {
  'up.sh': `echo "up NODES=$NODES" >>"$LOG"; s="$DIR/state"; mkdir -p "$s"
printf "RUN=ab12\\nNODES='n1 n2'\\n" >"$s/env"
printf 'export SVC_BASE_URL=http://127.0.0.1:1\\nexport SVC_ADMIN_KEY=a\\nexport SVC_ALICE_KEY=b\\nexport SVC_BOB_KEY=c\\nexport SVC_NAMESPACE=default\\nexport KUBECONFIG=%s/kc\\nexport SVC_CLUSTER_STATE=%s\\n' "$s" "$s" >"$s/svc.env"
sleep "\${UP_SLEEP:-0}"; echo progress >&2; echo "$s"`,
  'images.sh': `echo "images $1" >>"$LOG"`,
  'install.sh': `echo "install $1" >>"$LOG"; exit "\${INSTALL_EXIT:-0}"`,
  'down.sh': `echo "down $1" >>"$LOG"`,
};

describe('BringUp', () => {
  let dir: string;
  let said: string[];
  const log = async () => (await readFile(join(dir, 'log'), 'utf8').catch(() => '')).trim().split('\n');
  const bringUp = (env: NodeJS.ProcessEnv = {}) =>
    new BringUp({
      nodes: 2,
      say: (line) => said.push(line),
      scripts: dir,
      env: { LOG: join(dir, 'log'), DIR: dir, SVC_E2E_STATE: '', ...env },
    });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-bringup-'));
    said = [];
    for (const [name, body] of Object.entries(fake)) await writeFile(join(dir, name), body);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('brings up, images and installs in that order, says each phase, and goes down once', async () => {
    const c = bringUp();
    const got = await c.up();
    expect(got).toEqual({
      state: join(dir, 'state'),
      run: 'ab12',
      nodes: ['n1', 'n2'],
      env: {
        baseUrl: 'http://127.0.0.1:1',
        keys: { admin: 'a', alice: 'b', bob: 'c' },
        namespace: 'default',
        kubeconfig: join(dir, 'state/kc'),
        state: join(dir, 'state'),
      },
    });
    await Promise.all([c.down(), c.down()]);
    await c.down();
    const state = join(dir, 'state');
    expect(await log()).toEqual(['up NODES=2', `images ${state}`, `install ${state}`, `down ${state}`]);
    // The e2e tier's phase lines, as CI logs and the notes quote them.
    expect(said.map((l) => l.replace(/[\d.]+ s$/, 'T s'))).toEqual([
      'cluster up (NODES=2): T s',
      'images: T s',
      'install (helm, Pods Ready, API forwarder): T s',
      `svc at http://127.0.0.1:1 on ${state}`,
      'cluster down: T s',
    ]);
  });

  it('takes down what it brought up when a step fails, and throws', async () => {
    const c = bringUp({ INSTALL_EXIT: '3' });
    await expect(c.up()).rejects.toThrow(/install\.sh .* exited with 3/);
    const state = join(dir, 'state');
    expect(await log()).toEqual(['up NODES=2', `images ${state}`, `install ${state}`, `down ${state}`]);
  });

  it('leaves a given cluster up and skips the steps it is told to', async () => {
    const state = join(dir, 'given');
    const up = bringUp({ SVC_E2E_STATE: '', DIR: join(dir, 'made') });
    // A state folder made by the fake up.sh stands for a running cluster.
    await up.up();
    await writeFile(join(dir, 'log'), '');
    await rm(state, { recursive: true, force: true });
    const given = bringUp({ SVC_E2E_STATE: `${join(dir, 'made/state')}/`, SVC_E2E_IMAGES: '0' });
    expect(given.ours).toBe(false);
    await given.up();
    await given.down();
    expect(await log()).toEqual([`install ${join(dir, 'made/state')}`]);
  });

  it('asked to go down while up.sh runs (a signal), waits for its state folder and takes it down', async () => {
    const c = bringUp({ UP_SLEEP: '1' });
    const up = c.up();
    await new Promise((r) => setTimeout(r, 200));
    await c.down();
    // up() goes no further than up.sh: no images or install on a cluster going down.
    await expect(up).rejects.toThrow('went down while it was brought up');
    expect(await log()).toEqual(['up NODES=2', `down ${join(dir, 'state')}`]);
  });
});
