// Issue 35, deliverable 3: a sandbox's egress decisions on its console page, in a real browser
// (Debian's chromium through playwright-core) against the real API and apiserver. The records
// are written by the gateway's own trail and recorder (egress/), as `svc egress` writes them.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pino } from 'pino';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressAudit, EgressTrail, type Outcome } from '../../egress/index.ts';
import { startTestApi, useClusterTemplate, useNamespace, type TestApi } from '../support/index.ts';

const root = resolve(import.meta.dirname, '../..');
const SHOTS = join(root, 'dist/test-output/console');
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** A wait on the page alone (an API call and a render; the tab asks again every 5 s). */
const QUICK = 20_000;

const ns = useNamespace('console-egress');
const allowlist = useClusterTemplate('console-allow', ns, {
  network: { egress: 'allowlist', allowedHosts: ['pypi.org', '*.pythonhosted.org'] },
});
const open = useClusterTemplate('console-open', ns, {});

let api: TestApi;
let base: string;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  api = await startTestApi(ns, { console: { dir: join(root, 'dist/console') } });
  base = await api.serve();
  // --no-sandbox: the test runs as root, which chromium's own sandbox refuses.
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await api?.close();
}, 30_000);

/** alice's sandbox, made through the API (no operator: its page and its records need none). */
async function sandbox(name: string, template: string): Promise<{ uid: string }> {
  const res = await api.call('POST', '/sandboxes', {
    key: api.keys.alice,
    body: { name, templateRef: { name: template } },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { metadata: { uid: string } }).metadata;
}

async function signedIn(width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/`);
  await page.getByLabel('API key', { exact: true }).fill(api.keys.alice);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sandboxes', level: 1 }).waitFor();
  return page;
}

/** axe-core with no serious or critical violation, then a screenshot. */
async function check(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: string[] }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
    })))`,
  );
  expect(
    violations.filter((v) => v.impact === 'serious' || v.impact === 'critical'),
    `axe on ${name}`,
  ).toEqual([]);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

interface Row {
  decision: string | undefined;
  denied: boolean;
  host: string;
  badge: string;
  reason: string;
  connections: string;
  out: string;
  in: string;
}

/** The table's rows as shown, top to bottom (evaluated in the page: the tests have no DOM types). */
const rows = (page: Page): Promise<Row[]> =>
  page.evaluate<Row[]>(`[...document.querySelectorAll('table.egress tbody tr')].map((tr) => {
    const text = (el) => (el ? el.innerText : '');
    const cell = (label) => text(tr.querySelector('td[data-label="' + label + '"]'));
    return {
      decision: tr.dataset.decision,
      denied: tr.classList.contains('denied'),
      host: cell('Host'),
      badge: text(tr.querySelector('.badge')),
      reason: text(tr.querySelector('.reason')),
      connections: cell('Connections'),
      out: cell('Bytes out'),
      in: cell('Bytes in'),
    };
  })`);

describe("a sandbox's egress decisions in the console", () => {
  it('lists the gateway’s records newest first as they are written: host, decision, connections, bytes; a denied row stands out', async () => {
    const { uid } = await sandbox('eg-web', allowlist);
    const page = await signedIn();
    await page.goto(`${base}/#/sandboxes/eg-web/egress`);
    // None yet: the empty state, and the list the sandbox goes through the gateway to.
    await expect
      .poll(() => page.locator('[data-empty]').getAttribute('data-empty'), { timeout: QUICK })
      .toBe('none-yet');
    expect(await page.locator('main .hint').first().innerText()).toMatch(
      /^Through the egress gateway, to pypi\.org, \*\.pythonhosted\.org\./,
    );
    await page.evaluate(`window.notReloaded = true`);

    // The gateway's trail and recorder, as `svc egress` runs them (egress/index.ts): the
    // first connection to a host is written at once, the like ones after it in the window
    // are one summary, written when the window closes (here: at flush).
    const audit = new EgressAudit(ns.kc, pino({ level: 'silent' }));
    const writes: Promise<void>[] = [];
    const trail = new EgressTrail({ windowMs: 600_000, write: (r) => writes.push(audit.write(r)) });
    const asker = {
      namespace: ns.name,
      sandbox: 'eg-web',
      template: `ClusterSandboxTemplate/${allowlist}`,
      allowedHosts: ['pypi.org', '*.pythonhosted.org'],
      uid,
      owner: 'alice',
    };
    const outcome = (o: Partial<Outcome>): Outcome => ({
      asker,
      source: '10.0.0.7',
      host: 'pypi.org',
      port: 443,
      allowed: true,
      bytesOut: 517,
      bytesIn: 4096,
      durationMs: 35,
      ...o,
    });
    // One at a time, each Event written before the next: the order is the API's to show.
    const add = async (o: Outcome) => {
      trail.add(o);
      await Promise.all(writes);
    };
    for (let i = 0; i < 4; i++) await add(outcome({}));
    await add(
      outcome({
        host: 'api.evil.com',
        allowed: false,
        reason: 'svc egress: api.evil.com is not allowed for sandbox eg-web',
        bytesOut: 0,
        bytesIn: 0,
        durationMs: 1,
      }),
    );
    await add(outcome({ host: 'files.pythonhosted.org', bytesOut: 300, bytesIn: 2 * 1024 * 1024 }));
    trail.flush();
    await Promise.all(writes);
    expect(writes).toHaveLength(4);

    // Shown without a reload, newest first, exactly.
    await expect
      .poll(() => rows(page), { timeout: QUICK })
      .toEqual([
        {
          decision: 'allowed',
          denied: false,
          host: 'pypi.org:443',
          badge: 'Allowed',
          reason: '',
          connections: '3 more\nsummed over the window',
          out: '1.5 KiB',
          in: '12.0 KiB',
        },
        {
          decision: 'allowed',
          denied: false,
          host: 'files.pythonhosted.org:443',
          badge: 'Allowed',
          reason: '',
          connections: '1',
          out: '300 B',
          in: '2.0 MiB',
        },
        {
          decision: 'denied',
          denied: true,
          host: 'api.evil.com:443',
          badge: 'Denied',
          reason: 'svc egress: api.evil.com is not allowed for sandbox eg-web',
          connections: '1',
          out: '0 B',
          in: '0 B',
        },
        {
          decision: 'allowed',
          denied: false,
          host: 'pypi.org:443',
          badge: 'Allowed',
          reason: '',
          connections: '1',
          out: '517 B',
          in: '4.0 KiB',
        },
      ]);
    expect(await page.evaluate<boolean>(`window.notReloaded === true`)).toBe(true);
    expect(await page.locator('[data-empty]').count()).toBe(0);

    // The denied row stands out: its word, the danger colour on its badge and a bar at its start.
    const style = await page.evaluate<{ badge: string; bar: string; allowedBar: string }>(`({
        badge: getComputedStyle(document.querySelector('tr[data-decision="denied"] .badge')).color,
        bar: getComputedStyle(document.querySelector('tr[data-decision="denied"] td')).boxShadow,
        allowedBar: getComputedStyle(document.querySelector('tr[data-decision="allowed"] td')).boxShadow,
      })`);
    expect(style).toEqual({
      badge: 'rgb(180, 35, 24)',
      bar: 'rgb(180, 35, 24) 4px 0px 0px 0px inset',
      allowedBar: 'none',
    });
    // For a screen reader: a table with a caption and column headers; the time as a <time>.
    expect(await page.getByRole('table', { name: 'Egress decisions, newest first' }).count()).toBe(1);
    expect(await page.getByRole('columnheader').allInnerTexts()).toEqual([
      'Time',
      'Host',
      'Decision',
      'Connections',
      'Bytes out',
      'Bytes in',
    ]);
    expect(await page.locator('table.egress tbody time[datetime]').count()).toBe(4);
    await check(page, 'sandbox-egress');

    // A 390-pixel phone: the table folds into one column, nothing scrolls sideways.
    const phone = await signedIn(390);
    await phone.goto(`${base}/#/sandboxes/eg-web/egress`);
    await expect.poll(() => rows(phone).then((r) => r.length), { timeout: QUICK }).toBe(4);
    expect(await phone.evaluate<number>(`document.documentElement.scrollWidth`)).toBeLessThanOrEqual(390);
    await check(phone, 'phone-sandbox-egress');
    await phone.context().close();
    await page.context().close();
  }, 120_000);

  it('says a sandbox whose template is not allowlist has no gateway decisions, and asks for none', async () => {
    await sandbox('eg-open', open);
    const page = await signedIn();
    const asked: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/audit/events')) asked.push(r.url());
    });
    await page.goto(`${base}/#/sandboxes/eg-open/egress`);
    await expect
      .poll(() => page.locator('[data-empty]').getAttribute('data-empty'), { timeout: QUICK })
      .toBe('not-allowlist');
    expect(await page.locator('[data-empty]').innerText()).toBe(
      `The template ${open} has egress internet: this sandbox connects without the egress gateway, so no decisions are recorded. Only a template with egress allowlist sends its sandboxes' connections through the gateway.`,
    );
    expect(asked).toEqual([]);
    await check(page, 'sandbox-egress-none');
    await page.context().close();
  });

  it('saw no Content-Security-Policy refusal and no page error', () => {
    expect(problems).toEqual([]);
  });
});
