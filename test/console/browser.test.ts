// The console in a real browser (Debian's chromium driven by playwright-core) against the
// real stack: the API in-process serving dist/console, the operator, devnode and sandboxd.
// Each page is checked with axe-core and screenshotted into dist/test-output/console/.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../stack/index.ts';
import {
  startTestApi,
  useClusterTemplate,
  useDevnode,
  useNamespace,
  useOperator,
  waitForSandboxPhase,
  type TestApi,
} from '../support/index.ts';

const root = resolve(import.meta.dirname, '../..');
export const SHOTS = join(root, 'dist/test-output/console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** A wait on the cluster (a sandbox starting) on a loaded two-core machine. */
const SLOW = 120_000;
/** A wait on the page alone (an API call and a render), generous for a loaded machine. */
const QUICK = 20_000;

const ns = useNamespace('console-ui');
useDevnode(ns);
const template = useClusterTemplate('console', ns, {});
// For the code sandbox: its own process writes a line on each stream, for the logs page.
const codeTemplate = useClusterTemplate('console-code', ns, {
  command: ['sh', '-c', 'echo console-started; echo console-warned >&2; exec sleep infinity'],
});
// For the preview: a small page served on port 8080 inside the sandbox.
const PAGE = '<!doctype html><html lang="en"><title>ui-web app</title><h1>hello from ui-web</h1></html>';
const webTemplate = useClusterTemplate('console-web', ns, {
  command: [
    'node',
    '-e',
    `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'text/html' }); s.end(${JSON.stringify(PAGE)}); }).listen(8080, '127.0.0.1')`,
  ],
});
useOperator(ns, { identity: 'console-test', logger: pino({ level: 'silent' }) });

let api: TestApi;
let base: string;
let browser: Browser;
/** Content-Security-Policy reports and page errors seen in any page: none are expected. */
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  api = await startTestApi(ns, { console: { dir: join(root, 'dist/console') }, statusWaitMs: SLOW });
  base = await api.serve();
  // --no-sandbox: the test runs as root, which chromium's own sandbox refuses.
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await api?.close();
}, 30_000);

async function newPage(
  opts: { width?: number; height?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return { context, page };
}

/** axe-core (from node_modules, evaluated in the page) with no serious or critical violation; then a screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<{ id: string; impact: string; help: string; nodes: string[] }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`,
  );
  expect(
    violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
    `axe on ${name}`,
  ).toEqual([]);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByLabel('API key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sandboxes', level: 1 }).waitFor();
}

/**
 * Runs `body`; when it fails, the error also says what the page showed (its main region's
 * text, and the sandbox's phase as the API sees it), so a timeout under load can be told
 * apart: the sandbox not yet in the list's watch ("Loading…"), not Running, or the view's own error.
 */
async function showingPage(page: Page, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    const shown = await page
      .locator('main')
      .innerText({ timeout: 2_000 })
      .catch(() => '(no main region)');
    const phase = await api
      .call('GET', '/sandboxes/ui-code', { key: api.keys.alice })
      .then(async (r) => ((await r.json()) as { status?: { phase?: string } }).status?.phase)
      .catch((e: unknown) => `unknown (${(e as Error).message})`);
    throw new Error(
      `${(err as Error).message}\nthe page showed: ${shown.slice(0, 1500)}\nui-code's phase: ${phase}`,
      { cause: err },
    );
  }
}

/** The code sandbox the logs, terminal and files tests share: made by the first that runs. */
async function codeSandbox(): Promise<void> {
  if ((await api.call('GET', '/sandboxes/ui-code', { key: api.keys.alice })).status === 404)
    await createThroughApi('ui-code', 'code', codeTemplate);
  await waitForSandboxPhase(ns, 'ui-code', 'Running', SLOW);
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

const badge = (page: Page, name: string) => page.locator(`tr[data-sandbox="${name}"] .badge`);

async function createThroughApi(name: string, mode: 'code' | 'agent', templateName: string): Promise<void> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, mode, templateRef: { name: templateName } },
  });
  expect(res.status).toBe(201);
}

describe('the console in chromium', () => {
  it('first load: ≤ 300 KB transferred (gzip) without the terminal; time to interactive measured', async () => {
    // Three cold loads (a fresh browser context each: empty cache). The bytes are checked; the
    // time to interactive is measured and printed, not asserted: performance is measured, and
    // on a two-core machine shared with another suite a wall-clock bound only measures the
    // neighbour (bench/README.md quotes the figure from a quiet run).
    const runs: { kb: number; ms: number; urls: string[] }[] = [];
    for (let i = 0; i < 3; i++) {
      const { context, page } = await newPage();
      // The context's renderer process is started first, on a page of the API that is not
      // the console: its start-up is the browser's cost, not the console's.
      await page.goto(`${base}/healthz`);
      const loaded: { url: string; bytes: number }[] = [];
      page.on('requestfinished', (req) => {
        void req
          .sizes()
          .then((s) => loaded.push({ url: req.url(), bytes: s.responseBodySize + s.responseHeadersSize }));
      });
      await page.goto(`${base}/`);
      await page.getByLabel('API key', { exact: true }).waitFor();
      await expect
        .poll(() => loaded.some((r) => r.url.endsWith('/console/config.json')), { timeout: QUICK })
        .toBe(true);
      // The app marks the moment its first render is done and its handlers attached.
      const ms = await page.evaluate<number>(`performance.getEntriesByName('svc-interactive')[0].startTime`);
      runs.push({ kb: loaded.reduce((n, r) => n + r.bytes, 0) / 1024, ms, urls: loaded.map((r) => r.url) });
      if (i === 2) await check(page, 'sign-in');
      await context.close();
    }
    const median = [...runs].sort((x, y) => x.ms - y.ms)[1]!;
    console.log(
      `console first load: ${median.kb.toFixed(1)} KB transferred (gzip) in ${median.urls.length} requests; interactive after ${runs
        .map((r) => r.ms.toFixed(0))
        .join(', ')} ms (median ${median.ms.toFixed(0)} ms)`,
    );
    for (const r of runs) {
      expect(r.urls.some((u) => /\/assets\/main-[A-Z0-9]+\.js$/.test(u))).toBe(true);
      expect(r.urls.filter((u) => /terminal/.test(u))).toEqual([]);
      expect(r.kb).toBeLessThanOrEqual(300);
    }
    expect(median.ms).toBeGreaterThan(0);
  });

  it('signs in with a key from the keyboard (kept in session storage, never in the URL); a wrong key is refused', async () => {
    const { context, page } = await newPage();
    await page.goto(`${base}/`);
    await page.getByLabel('API key', { exact: true }).fill('svc_not-a-key');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.getByRole('alert').textContent(), { timeout: QUICK })
      .toMatch(/401 unauthenticated: invalid API key/);
    await page.getByLabel('API key', { exact: true }).fill(api.keys.alice);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Sandboxes', level: 1 }).waitFor();
    expect(page.url()).not.toContain(api.keys.alice);
    expect(await page.evaluate<string>(`sessionStorage.getItem('svc.credential')`)).toContain(api.keys.alice);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key', { exact: true }).waitFor();
    expect(await page.evaluate<string | null>(`sessionStorage.getItem('svc.credential')`)).toBeNull();
    await context.close();
  });

  it(
    'creates a sandbox and its badge goes to Running without a reload; stop, resume, clone, delete',
    async () => {
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.getByRole('link', { name: 'New sandbox' }).first().click();
      await page.getByLabel('Name').fill('ui-one');
      // The picker lists the templates GET /templates returns; this test's is among them.
      await page.locator('select#template:not([disabled])').waitFor({ timeout: QUICK });
      await page.getByLabel('Template').selectOption(template);
      // No runtime class in the template nor the policy: shown, read-only, as the node's default.
      expect(await page.getByLabel('Runtime class').inputValue()).toBe('node default');
      await check(page, 'create');
      await page.getByRole('button', { name: 'Create' }).click();
      await page.getByRole('heading', { name: 'ui-one', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Sandboxes' }).click();
      // A mark on the window: were the page reloaded, it would be gone.
      await page.evaluate(`window.notReloaded = true`);
      await expect
        .poll(() => badge(page, 'ui-one').getAttribute('data-phase'), { timeout: QUICK })
        .toMatch(/Pending|Creating|Running/);
      await expect
        .poll(() => badge(page, 'ui-one').getAttribute('data-phase'), { timeout: SLOW })
        .toBe('Running');
      expect(await page.evaluate<boolean>(`window.notReloaded === true`)).toBe(true);
      await check(page, 'list');

      await page.getByRole('button', { name: 'Stop ui-one' }).click();
      await expect
        .poll(() => badge(page, 'ui-one').getAttribute('data-phase'), { timeout: SLOW })
        .toBe('Stopped');
      await page.getByRole('button', { name: 'Resume ui-one' }).click();
      await expect
        .poll(() => badge(page, 'ui-one').getAttribute('data-phase'), { timeout: SLOW })
        .toBe('Running');

      await page.getByRole('button', { name: 'Clone ui-one' }).click();
      // The clone's page opens; its name is the API's choice.
      await page.waitForURL(/#\/sandboxes\/(?!ui-one\/)[^/]+\/overview$/);
      const clone = decodeURIComponent(/#\/sandboxes\/([^/]+)\//.exec(page.url())![1]!);
      await expect.poll(() => page.locator('h1').textContent(), { timeout: QUICK }).toBe(clone);
      await expect
        .poll(() => page.locator('.title-row .badge').getAttribute('data-phase'), { timeout: SLOW })
        .toBe('Running');
      await check(page, 'sandbox-overview');
      await page.getByRole('link', { name: 'Ports' }).click();
      await check(page, 'sandbox-ports');

      await page.getByRole('link', { name: 'Sandboxes' }).click();
      for (const name of [clone, 'ui-one']) {
        await page.getByRole('button', { name: `Delete ${name}` }).click();
        await page.getByRole('button', { name: `Really delete ${name}` }).click();
        await expect
          .poll(() => page.locator(`tr[data-sandbox="${name}"]`).count(), { timeout: SLOW })
          .toBe(0);
      }
      expect(await page.evaluate<boolean>(`window.notReloaded === true`)).toBe(true);
      await context.close();
    },
    6 * 60_000,
  );

  it(
    'configures an agent (install output streamed) and invokes it: lines arrive before the end; a cancel ends one',
    async () => {
      await createThroughApi('ui-agent', 'agent', template);
      await waitForSandboxPhase(ns, 'ui-agent', 'Running', SLOW);
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.goto(`${base}/#/sandboxes/ui-agent/agent`);
      await page.getByLabel('Path').fill('/workspace/agent.sh');
      await page
        .getByLabel('Content')
        .fill(
          'read -r what\nif [ "$what" = wait ]; then echo waiting; exec sleep 300; fi\nfor i in 1 2 3; do echo "line $i"; sleep 1; done\necho oops >&2\nexit 3\n',
        );
      await page.getByLabel(/Install command/).fill('echo installing; echo done installing');
      await page.getByLabel(/Entrypoint/).fill('sh /workspace/agent.sh');
      await page.getByRole('button', { name: 'Configure', exact: true }).click();
      const install = page.getByLabel('Install output');
      await expect.poll(() => install.textContent(), { timeout: SLOW }).toContain('done installing');
      await expect
        .poll(() => page.locator('.result').first().textContent(), { timeout: SLOW })
        .toMatch(/install exit code 0/);

      await page.getByLabel('Input (stdin)').fill('go\n');
      await page.getByRole('button', { name: 'Invoke', exact: true }).click();
      const out = page.getByLabel('Invoke output');
      // The first line shows while the run is still going: no exit yet.
      await expect.poll(() => out.textContent(), { timeout: 30_000 }).toContain('line 1');
      expect(await page.locator('[data-exit-code]').count()).toBe(0);
      await expect
        .poll(() => page.locator('[data-exit-code]').getAttribute('data-exit-code'), { timeout: 30_000 })
        .toBe('3');
      expect(await out.textContent()).toBe('line 1\nline 2\nline 3\noops\n');
      expect(await page.locator('.output .stderr').textContent()).toBe('oops\n');
      await check(page, 'sandbox-agent');

      await page.getByLabel('Input (stdin)').fill('wait\n');
      await page.getByRole('button', { name: 'Invoke', exact: true }).click();
      await expect.poll(() => out.textContent(), { timeout: 30_000 }).toContain('waiting');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect
        .poll(() => page.locator('[data-exit-code]').textContent(), { timeout: 30_000 })
        .toMatch(/\(canceled\)/);
      await context.close();
    },
    5 * 60_000,
  );

  it(
    'starts a detached invoke; the runs list shows it and attaching shows its output and exit; stop ends a running one',
    async () => {
      await createThroughApi('ui-runs', 'agent', template);
      await waitForSandboxPhase(ns, 'ui-runs', 'Running', SLOW);
      const configured = await api.call('POST', '/sandboxes/ui-runs/configure', {
        key: api.keys.alice,
        body: {
          files: [
            {
              path: '/workspace/agent.sh',
              content:
                'read -r what\nif [ "$what" = wait ]; then exec sleep 300; fi\necho "detached $what"\n',
            },
          ],
          entrypoint: ['sh', '/workspace/agent.sh'],
        },
      });
      expect(configured.status).toBe(200);
      await configured.text();
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.goto(`${base}/#/sandboxes/ui-runs/agent`);
      await page.getByLabel(/Detached/).check();
      await page.getByLabel('Input (stdin)').fill('hello\n');
      await page.getByRole('button', { name: 'Invoke', exact: true }).click();
      const started = page.getByText(/^Started inv-/);
      await expect.poll(() => started.textContent(), { timeout: 30_000 }).toMatch(/^Started inv-\S+:/);
      const id = /^Started (inv-[^:]+):/.exec((await started.textContent()) ?? '')![1]!;
      await page.getByRole('button', { name: 'Refresh runs' }).click();
      await page.getByRole('button', { name: `Attach to ${id}` }).click();
      const out = page.getByLabel(`Output of ${id}`);
      await expect.poll(() => out.textContent(), { timeout: 30_000 }).toContain('detached hello\n');
      await expect.poll(() => out.textContent(), { timeout: 30_000 }).toMatch(/exit code 0 \(completed\)/);
      await check(page, 'sandbox-runs');

      await page.getByLabel('Input (stdin)').fill('wait\n');
      await page.getByRole('button', { name: 'Invoke', exact: true }).click();
      await expect.poll(() => started.textContent(), { timeout: 30_000 }).not.toContain(id);
      const waiting = /^Started (inv-[^:]+):/.exec((await started.textContent()) ?? '')![1]!;
      await page.getByRole('button', { name: 'Refresh runs' }).click();
      await page.getByRole('button', { name: `Stop ${waiting}` }).click();
      await expect
        .poll(
          async () =>
            (await api.call('GET', '/sandboxes/ui-runs/runs', { key: api.keys.alice })).json() as Promise<{
              items: { invokeId: string; reason?: string }[];
            }>,
          { timeout: 30_000 },
        )
        .toMatchObject({
          items: expect.arrayContaining([
            expect.objectContaining({ invokeId: waiting, reason: 'canceled' }),
          ]) as unknown,
        });
      await context.close();
    },
    5 * 60_000,
  );

  it(
    'refuses the policies page to alice; an admin’s edit shows the new effective value; the audit log filters',
    async () => {
      const alice = await newPage();
      await signIn(alice.page, api.keys.alice);
      // alice is no admin: her menu has no Policies, and the page itself is refused.
      await expect.poll(() => alice.page.locator('.who').textContent(), { timeout: QUICK }).toBe('alice');
      expect(await alice.page.getByRole('link', { name: 'Policies' }).count()).toBe(0);
      await alice.page.goto(`${base}/#/admin/policies`);
      await expect
        .poll(() => alice.page.getByRole('alert').textContent(), { timeout: QUICK })
        .toMatch(/^403 forbidden/);
      await alice.context.close();

      const { context, page } = await newPage();
      await signIn(page, api.keys.admin);
      await page.getByRole('link', { name: 'Policies' }).click();
      const effective = page.locator('td[data-effective="maxSandboxesPerUser"]');
      await expect.poll(() => effective.textContent(), { timeout: QUICK }).toBe('—');
      await page.locator('#cluster-maxSandboxesPerUser').fill('7');
      await page.getByRole('button', { name: 'Save cluster default' }).click();
      await expect.poll(() => effective.textContent(), { timeout: QUICK }).toBe('7');
      // The namespace overrides the field; the table says where the value comes from.
      await page.locator('#namespace-maxSandboxesPerUser').fill('3');
      await page.getByRole('button', { name: 'Save namespace override' }).click();
      await expect.poll(() => effective.textContent(), { timeout: QUICK }).toBe('3');
      expect(await page.locator('tr[data-field="maxSandboxesPerUser"] td').allTextContents()).toEqual([
        '7',
        '3',
        '3',
        'namespace',
      ]);
      // A refused value comes back as a readable error naming the field.
      await page.locator('#cluster-maxCpu').fill('lots');
      await page.getByRole('button', { name: 'Save cluster default' }).click();
      await expect
        .poll(() => page.getByRole('alert').first().textContent(), { timeout: QUICK })
        .toMatch(/400 invalid_request.*maxCpu/);
      await check(page, 'policies');

      await page.getByRole('link', { name: 'Audit log' }).click();
      // The audit page first (the policies page's "Max sandboxes…" fields also contain
      // "Sandbox"): the filter field is the one labelled exactly that.
      await page.getByRole('heading', { name: 'Audit log' }).waitFor({ timeout: QUICK });
      await page.getByLabel('Sandbox', { exact: true }).fill('ui-agent');
      await page.getByRole('button', { name: 'Filter' }).click();
      // Every row left after the filter is about ui-agent (its configure and invokes at least).
      await expect
        .poll(
          async () => [
            ...new Set(await page.locator('table.list tbody tr td:nth-child(3)').allTextContents()),
          ],
          { timeout: QUICK },
        )
        .toEqual(['ui-agent']);
      expect(await page.locator('table.list tbody tr td:nth-child(2)').allTextContents()).toContain(
        'AgentConfigured',
      );
      await check(page, 'audit');
      await context.close();
      // Leave no policy for other tests of this file.
      expect(
        (await api.call('DELETE', `/governance/policies/${ns.name}`, { key: api.keys.admin })).status,
      ).toBe(204);
      expect((await api.call('PUT', '/governance/policies', { key: api.keys.admin, body: {} })).status).toBe(
        200,
      );
    },
    2 * 60_000,
  );

  it(
    'shows the template process’s logs, stdout and stderr told apart',
    async () => {
      await codeSandbox();
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.goto(`${base}/#/sandboxes/ui-code/logs`);
      const logs = page.getByRole('log', { name: 'Logs' });
      await showingPage(page, () =>
        expect.poll(() => logs.textContent(), { timeout: QUICK }).toContain('console-started'),
      );
      await expect
        .poll(() => logs.locator('.stderr').allTextContents(), { timeout: QUICK })
        .toContain('console-warned\n');
      await check(page, 'sandbox-logs');
      await context.close();
    },
    3 * 60_000,
  );

  it(
    'opens a terminal (xterm.js, fetched only now): `echo hi` prints hi',
    async () => {
      await codeSandbox();
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      const chunks: string[] = [];
      page.on('request', (r) => {
        if (/\/assets\/terminal-/.test(r.url())) chunks.push(r.url());
      });
      await page.goto(`${base}/#/sandboxes/ui-code/terminal`);
      await showingPage(page, () =>
        expect
          .poll(() => page.getByRole('status').first().textContent(), { timeout: QUICK })
          .toBe('Connected'),
      );
      expect(chunks).toHaveLength(1);
      await page.locator('.term-box').click();
      await page.keyboard.type('echo hi');
      await page.keyboard.press('Enter');
      // The screen's rows as xterm.js draws them: the command's line, then one that is just `hi`.
      const rows = () => page.locator('.xterm-rows > div').allTextContents();
      await expect
        .poll(async () => (await rows()).map((r) => r.replace(/\u00a0/g, ' ').trim()), { timeout: QUICK })
        .toContain('hi');
      expect((await rows()).some((r) => r.includes('echo hi'))).toBe(true);
      await check(page, 'sandbox-terminal');
      await context.close();
    },
    3 * 60_000,
  );

  it(
    'uploads a file by drag and drop (with progress) and downloads the same bytes; mkdir and delete',
    async () => {
      await codeSandbox();
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.goto(`${base}/#/sandboxes/ui-code/files`);
      await showingPage(page, () => page.getByRole('heading', { name: /Files in/ }).waitFor());
      const bytes = randomBytes(3 * 1024 * 1024);
      // A drop as the browser makes it: a DataTransfer holding a File, on the drop zone.
      await page.evaluate(
        `(() => {
        const data = Uint8Array.from(atob(${JSON.stringify(bytes.toString('base64'))}), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([data], 'dropped.bin'));
        document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      })()`,
      );
      await expect
        .poll(() => page.locator('li[data-upload="dropped.bin"]').getAttribute('data-done'), {
          timeout: SLOW,
        })
        .toBe('true');
      expect(await page.locator('li[data-upload="dropped.bin"] progress').getAttribute('value')).toBe('1');
      await page.locator('tr[data-file="dropped.bin"]').waitFor({ timeout: QUICK });
      // The mode column as `ls -l` writes it (a PUT without ?mode= makes 0644).
      expect(await page.locator('tr[data-file="dropped.bin"] code').textContent()).toBe('-rw-r--r--');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download dropped.bin' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe('dropped.bin');
      const got = readFileSync(await download.path());
      expect(sha256(got)).toBe(sha256(bytes));
      expect(got.length).toBe(bytes.length);

      await page.getByLabel('New folder').fill('made-here');
      await page.getByRole('button', { name: 'Create folder' }).click();
      await page.locator('tr[data-file="made-here"]').waitFor({ timeout: QUICK });
      await check(page, 'sandbox-files');
      await page.getByRole('button', { name: 'Delete dropped.bin' }).click();
      await page.getByRole('button', { name: 'Really delete dropped.bin' }).click();
      await expect
        .poll(() => page.locator('tr[data-file="dropped.bin"]').count(), { timeout: QUICK })
        .toBe(0);
      await context.close();
    },
    3 * 60_000,
  );

  it(
    'opens a port’s preview in a new tab: a one-use ticket, then a cookie for that preview path alone',
    async () => {
      await createThroughApi('ui-web', 'code', webTemplate);
      await waitForSandboxPhase(ns, 'ui-web', 'Running', SLOW);
      const forwarded = await api.call('POST', '/sandboxes/ui-web/ports', {
        key: api.keys.alice,
        body: { port: 8080 },
      });
      expect(forwarded.status, await forwarded.clone().text()).toBe(201);
      const path = '/api/v1/sandboxes/ui-web/preview/8080';
      await eventually(
        async () => (await fetch(`${base}${path}/`, { headers: { 'x-api-key': api.keys.alice } })).ok,
        { timeoutMs: 30_000, describe: () => 'the page inside the sandbox to answer' },
      );
      const { context, page } = await newPage();
      await signIn(page, api.keys.alice);
      await page.goto(`${base}/#/sandboxes/ui-web/ports`);
      const open = page.getByRole('button', { name: 'Open preview of port 8080' });
      await open.waitFor({ timeout: QUICK });
      await check(page, 'sandbox-ports-preview');
      const [tab] = await Promise.all([context.waitForEvent('page', { timeout: QUICK }), open.click()]);
      await tab.getByRole('heading', { name: 'hello from ui-web', level: 1 }).waitFor({ timeout: QUICK });
      // The ticket was exchanged and dropped: the tab shows the preview path without it.
      expect(tab.url()).toBe(`${base}${path}/`);
      // noopener, and the page is a sandboxed document: no handle on the console, no storage.
      expect(await tab.evaluate<boolean>(`window.opener === null`)).toBe(true);
      expect(
        await tab.evaluate<string>(
          `(() => { try { return String(sessionStorage.length) } catch (e) { return e.name } })()`,
        ),
      ).toBe('SecurityError');
      const cookies = (await context.cookies()).filter((c) => c.name === 'svc_preview');
      expect(cookies.map(({ path: p, httpOnly, sameSite }) => ({ path: p, httpOnly, sameSite }))).toEqual([
        { path, httpOnly: true, sameSite: 'Lax' },
      ]);
      await tab.screenshot({ path: join(SHOTS, 'preview-tab.png') });
      // The browser sends the cookie to that preview path, and the API takes it nowhere else.
      expect((await context.request.get(`${base}${path}/`)).status()).toBe(200);
      expect((await context.request.get(`${base}/api/v1/sandboxes`)).status()).toBe(401);
      await context.close();
    },
    3 * 60_000,
  );

  it(
    'the overview plots the last minutes of CPU and memory, and shows disk, processes and runs',
    async () => {
      await codeSandbox();
      // A busy loop for 25 s, so the CPU chart has something to draw.
      const burning = api.call('POST', '/sandboxes/ui-code/exec', {
        key: api.keys.alice,
        body: {
          command: "timeout 25 sh -c 'while :; do :; done'; head -c 10485760 /dev/zero > /workspace/ten",
        },
      });
      const { context, page } = await newPage();
      await showingPage(page, async () => {
        await signIn(page, api.keys.alice);
        await page.goto(`${base}/#/sandboxes/ui-code/overview`);
        const usage = page.getByRole('region', { name: 'Usage' });
        await usage.waitFor({ timeout: QUICK });
        const cpu = usage.getByRole('img', { name: /^CPU \(cores\): now/ });
        const memory = usage.getByRole('img', { name: /^Memory \(working set\): now/ });
        // Samples arrive every 2 s: a line of a few points, and the loop's CPU in it.
        await expect
          .poll(async () => (await cpu.locator('polyline').getAttribute('points'))?.split(' ').length ?? 0, {
            timeout: QUICK,
          })
          .toBeGreaterThanOrEqual(5);
        await expect
          .poll(async () => Number(/peak ([\d.]+)/.exec((await cpu.getAttribute('aria-label')) ?? '')?.[1]), {
            timeout: QUICK,
          })
          .toBeGreaterThan(0.1);
        expect(await memory.getAttribute('aria-label')).toMatch(/now [\d.]+ (KiB|MiB|GiB)/);
        await expect
          .poll(() => usage.locator('dd').first().textContent())
          .toMatch(/^[\d.]+ \w+ used, [\d.]+ \w+ free$/);
        await expect
          .poll(() => usage.getByText(/^1 exec, 0 invoke, 0 configure$/).count(), { timeout: QUICK })
          .toBe(1);
        await check(page, 'sandbox-usage');
      });
      expect((await burning).status).toBe(200);
      await context.close();
    },
    4 * 60_000,
  );

  it('fits a 390-pixel phone: no sideways scrolling on the list, a sandbox and the policies', async () => {
    const { context, page } = await newPage({ width: 390, height: 844 });
    await signIn(page, api.keys.admin);
    for (const [hash, name] of [
      ['#/', 'phone-list'],
      ['#/sandboxes/ui-agent/overview', 'phone-sandbox'],
      ['#/sandboxes/ui-agent/agent', 'phone-agent'],
      ['#/admin/policies', 'phone-policies'],
    ] as const) {
      await page.goto(`${base}/${hash}`);
      await page.locator('h1').first().waitFor();
      // The page has drawn what it loads (the watch stream stays open: no network idle).
      await page
        .locator(name === 'phone-policies' ? 'table.policy' : 'main .badge, main table')
        .first()
        .waitFor();
      expect(await page.evaluate<number>(`document.documentElement.scrollWidth`), name).toBeLessThanOrEqual(
        390,
      );
      await check(page, name);
    }
    await context.close();
  });

  it('saw no Content-Security-Policy refusal and no page error', () => {
    expect(problems).toEqual([]);
  });
});
