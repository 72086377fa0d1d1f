// The console (issue 44) driven in headless Chromium against a running product (real dev server, real
// scheduler worker, the HTTP API with the console on): a user enters a key, creates a schedule from words,
// sees its next runs, pauses it and sees the status change, and opens the fire forecast; no console errors.
// And as a hostile tenant would try it: another tenant's schedule by its ID (404, nothing of it shown),
// markup in a job type, a payload reference and a pause note (shown as text, never run), the key in a URL
// or in storage that outlives the tab, the console in a frame of another page, paths outside its files.
import { request } from 'node:http';
import type { Client } from '@temporalio/client';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleStack, startConsoleStack } from '../../scripts/console-stack.js';
import { ensureChromium, launchChromium } from '../../scripts/toolchain.mjs';
import { KeyRing } from '../../src/api/auth.js';
import { CONSOLE_CSP, consoleEnabled } from '../../src/api/http/console.js';
import { buildApi } from '../../src/api/http/server.js';
import { TenantPolicy } from '../../src/model/tenant-policy.js';

const MARKUP_JOB = '<img src=x onerror="window.__pwned=1">';
const MARKUP_PAYLOAD = 'state://x/<script>window.__pwned=2</script>';
const MARKUP_NOTE = '<b>paused</b><img src=y onerror="window.__pwned=3">';
const TRIGGER_REASON = 'run by hand before the console opened';

let s: ConsoleStack;
let browser: Browser;

/** GET of a raw path, unnormalized (fetch would resolve `..` before sending it). */
function rawGet(base: string, path: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

const cron = (expression: string, timezone = 'Europe/Riga') => ({ kind: 'CRON', expression, timezone });
const job = (job_type: string) => ({ type: 'JOB', job_type });

beforeAll(async () => {
  const executablePath = ensureChromium({ log: () => {} });
  s = await startConsoleStack('console-');
  const { acme, globex } = s.keys;
  const created = await Promise.all([
    s.call(globex, 'POST', '/v1/schedules', {
      schedule_id: 'globex-secret',
      timing: cron('0 2 * * *'),
      target: job('export.secret'),
    }),
    s.call(acme, 'POST', '/v1/schedules', {
      schedule_id: 'markup',
      timing: cron('30 3 * * *'),
      target: { type: 'JOB', job_type: MARKUP_JOB, payload_ref: MARKUP_PAYLOAD },
    }),
    // Two schedules on the hour: a herd the forecast should point at (in UTC: 24 fires in any 24 hours).
    s.call(acme, 'POST', '/v1/schedules', {
      schedule_id: 'hourly-a',
      timing: cron('0 * * * *', 'UTC'),
      target: job('report.a'),
      labels: { team: 'reports', env: 'prod' },
    }),
    s.call(acme, 'POST', '/v1/schedules', {
      schedule_id: 'hourly-b',
      timing: cron('0 * * * *', 'UTC'),
      target: job('report.b'),
    }),
  ]);
  expect(created.map((c) => c.status)).toEqual([201, 201, 201, 201]);
  expect((await s.call(acme, 'POST', '/v1/schedules/markup/pause', { note: MARKUP_NOTE })).status).toBe(200);
  // A run the list shows as hourly-b's last outcome (the others have not run).
  const triggered = await s.call(acme, 'POST', '/v1/schedules/hourly-b/trigger', { reason: TRIGGER_REASON });
  expect(triggered.status).toBe(200);
  browser = await launchChromium(executablePath);
});

afterAll(async () => {
  await browser?.close();
  await s?.stop();
});

// The browser side is written as expressions (the project compiles without the DOM's types).
const js = (value: unknown) => JSON.stringify(value);

/** Evaluates an expression in the page. */
const inPage = <T>(page: Page, expression: string) => page.evaluate(expression) as Promise<T>;

/** Waits until an element matching `selector` has `text` in its text. */
async function waitText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    `Array.from(document.querySelectorAll(${js(selector)})).some((el) => el.textContent.includes(${js(text)}))`,
    { timeout: 60_000 },
  );
}

/** The text of the first element matching `selector` (null: none). */
const textOf = (page: Page, selector: string) =>
  inPage<string | null>(page, `document.querySelector(${js(selector)})?.textContent ?? null`);

/** The texts of every element matching `selector`. */
const textsOf = (page: Page, selector: string) =>
  inPage<string[]>(page, `Array.from(document.querySelectorAll(${js(selector)}), (el) => el.textContent)`);

describe('the console', () => {
  it('is served from a fixed list of files, each with a strict CSP, without a key', async () => {
    const index = await fetch(`${s.base}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = index.headers.get('content-security-policy')!;
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(index.headers.get('x-frame-options')).toBe('DENY');
    expect(index.headers.get('x-content-type-options')).toBe('nosniff');
    // No inline script or style in the page itself.
    const html = await index.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const uplot = await fetch(`${s.base}/console/vendor/uPlot.esm.js`);
    expect(uplot.status).toBe(200);
    expect(uplot.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${s.base}/console`, { redirect: 'manual' })).headers.get('location')).toBe(
      '/console/',
    );
    // Nothing but the list: no traversal, no source, no node_modules, and the 404 carries the CSP too.
    for (const path of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/..%2fpackage.json',
      '/console/console.ts',
      '/console/vendor/uPlot.cjs.js',
      '/console/vendor/../../config.ts',
      '/console/__proto__',
      '/console/constructor',
    ]) {
      const answer = await rawGet(s.base, path);
      expect([path, answer.status]).toEqual([path, 404]);
    }
    const missing = await rawGet(s.base, '/console/nope.js');
    expect(missing.headers['content-security-policy']).toBe(CONSOLE_CSP);
    // The files are public; the API behind them is not.
    expect((await fetch(`${s.base}/v1/schedules`)).status).toBe(401);
  });

  it('is not served unless enabled, and is off by default in production', async () => {
    const unreachable = new Proxy({} as Client, {
      get: () => {
        throw new Error('not needed');
      },
    });
    const app = await buildApi({
      client: unreachable,
      taskQueue: 'q',
      jobTaskQueue: 'jobs',
      keys: () => KeyRing.fromConfig({ keys: `${s.keys.acme}=acme:ops` }),
      tenantPolicy: () => TenantPolicy.openToAll(),
    });
    try {
      // An unknown path: without a key 401 (as every path that is not public), with one 404.
      const authorization = `Bearer ${s.keys.acme}`;
      for (const url of ['/console/', '/console/app.js']) {
        expect((await app.inject({ url })).statusCode).toBe(401);
        expect((await app.inject({ url, headers: { authorization } })).statusCode).toBe(404);
      }
    } finally {
      await app.close();
    }
    expect(consoleEnabled(undefined, false)).toBe(true);
    expect(consoleEnabled(undefined, true)).toBe(false);
    expect(consoleEnabled('on', true)).toBe(true);
    expect(consoleEnabled('off', false)).toBe(false);
  });

  it('cannot be framed by another page', async () => {
    const page = await browser.newPage();
    try {
      // The same page frames a route without the policy (the control: framing works and is seen) and the
      // console; setContent resolves once both frames have loaded.
      await page.setContent(
        `<iframe name="control" src="${s.base}/healthz"></iframe><iframe name="console" src="${s.base}/console/"></iframe>`,
      );
      const frame = (name: string) => page.frames().find((f) => f.name() === name);
      await frame('control')!.waitForFunction('document.body?.textContent.includes("ok")', {
        timeout: 30_000,
      });
      // The browser refuses the console in a frame (frame-ancestors 'none'): an error page instead, no key form.
      const framed = frame('console')!;
      await framed.waitForFunction('document.readyState === "complete"', { timeout: 30_000 }).catch(() => {});
      expect(framed.url()).toBe('chrome-error://chromewebdata/');
      expect(await framed.$('#key').catch(() => null)).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('takes a key, creates a schedule from words, pauses it, forecasts, and shows no other tenant', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`${msg.text()} @ ${msg.location().url ?? ''}`);
    });
    page.on('pageerror', (err) => errors.push(`page error: ${(err as Error).message}`));
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    let confirmDialogs = true;
    page.on('dialog', (dialog) => void (confirmDialogs ? dialog.accept() : dialog.dismiss()));

    // The key, typed once, with the keyboard.
    await page.goto(`${s.base}/console/`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#key');
    // A key the API refuses is said so, and kept nowhere.
    await page.type('#key', 'sk_not-a-key-of-anyone');
    await page.keyboard.press('Enter');
    await waitText(page, '[role=alert]', 'did not accept');
    expect(await inPage(page, 'sessionStorage.length + localStorage.length')).toBe(0);
    await page.type('#key', s.keys.acme);
    await page.keyboard.press('Enter');
    await waitText(page, 'h1', 'Schedules');
    await waitText(page, 'table.schedules', 'hourly-a');
    const listed = await textOf(page, 'table.schedules');
    expect(listed).toContain('markup');
    expect(listed).toContain('PAUSED');
    expect(listed).not.toContain('globex-secret');
    expect(listed).toContain('team=reports');
    expect(await page.$('#key')).toBeNull();
    // The last outcome beside each schedule: the run triggered before, with its reason; none for the others.
    const rowOf = (id: string) =>
      inPage<string>(
        page,
        `Array.from(document.querySelectorAll('table.schedules tbody tr')).find((tr) => tr.querySelector('a')?.textContent === ${js(id)})?.textContent ?? ''`,
      );
    expect(await rowOf('hourly-b')).toContain(TRIGGER_REASON);
    expect(await rowOf('hourly-b')).toMatch(/DISPATCHING|RUNNING|HANDED_OFF|COMPLETED/);
    expect(await rowOf('hourly-a')).toContain('no run yet');
    expect(await rowOf('hourly-a')).not.toContain(TRIGGER_REASON);
    // Labels are searched too.
    await page.type('#search', 'env=prod');
    await waitText(page, 'main', '1 of 3 schedules');
    await inPage(page, "document.querySelector('#search').value = ''");

    // Markup a tenant wrote is text on the page: nothing of it runs or becomes an element.
    await page.type('#search', 'img src');
    await waitText(page, 'main', '1 of 3 schedules');
    await page.click('table.schedules a');
    await waitText(page, 'h1', 'markup');
    const definition = await textOf(page, 'pre.definition');
    expect(definition).toContain(MARKUP_JOB.replace(/"/g, '\\"'));
    expect(definition).toContain(MARKUP_PAYLOAD);
    expect(await textOf(page, '.status-line')).toContain(MARKUP_NOTE);
    expect(await textsOf(page, 'main img, main script, main b')).toEqual([]);
    expect(await inPage(page, 'typeof window.__pwned')).toBe('undefined');

    // Create from words: the reading, its explanation and next runs, then the schedule.
    await page.click('nav a[href="#/create"]');
    await page.waitForSelector('#words');
    await page.type('#words', 'every day at 9:00');
    await inPage(page, "document.querySelector('#zone').value = ''");
    await page.type('#zone', 'Europe/Riga');
    await page.click('#read');
    await page.waitForSelector('.reading .explanation, main .message.error', { timeout: 60_000 });
    expect(await textOf(page, 'main .message.error')).toBeNull();
    expect(await textOf(page, '.reading .explanation')).toMatch(/9:00|09:00/);
    expect(await textsOf(page, '.reading table.next-runs tbody tr')).toHaveLength(5);
    await page.type('#schedule-id', 'daily-report');
    await page.type('#job-type', 'report.daily');
    await page.click('#create');
    await waitText(page, 'h1', 'daily-report');
    expect(page.url()).toContain('#/schedules/daily-report');
    expect(await textOf(page, '#status')).toBe('ACTIVE');
    expect(await textOf(page, '.explanation')).toMatch(/9:00|09:00/);
    await page.waitForSelector('table.next-runs tbody tr');
    const nextRuns = await textsOf(page, 'table.next-runs tbody tr');
    expect(nextRuns.length).toBeGreaterThan(0);
    expect(nextRuns[0]).toMatch(/09:00/);

    // A trigger the user does not confirm sends nothing.
    confirmDialogs = false;
    await page.click('#trigger');
    confirmDialogs = true;
    const untouched = await s.call(s.keys.acme, 'GET', '/v1/schedules/daily-report/occurrences');
    expect(untouched.body?.items).toEqual([]);

    // Pause, confirmed; the page shows the new status.
    await page.type('#pause-note', 'from the console test');
    await page.click('#pause');
    await waitText(page, '#status', 'PAUSED');
    expect(await textOf(page, '.status-line')).toContain('from the console test');
    expect(await page.$('#resume')).not.toBeNull();
    const stored = await s.call(s.keys.acme, 'GET', '/v1/schedules/daily-report');
    expect(stored.body?.status).toBe('PAUSED');

    // The audit of the last 24 hours: the schedule was made just now, so nothing was due, and it says so.
    await page.click('#audit-run');
    await waitText(page, '#audit-counts', 'slots');
    expect(await textOf(page, '#audit-counts')).toBe('0 slots: none in the range');

    // The forecast: the two hourly schedules land on the same minutes.
    await page.click('nav a[href="#/forecast"]');
    await page.waitForSelector('.summary', { timeout: 120_000 });
    expect(await textOf(page, '.summary')).toMatch(/48 fires of 2 schedules/);
    expect(await page.$('.chart canvas')).not.toBeNull();
    const busiest = await textOf(page, 'table.busiest tbody tr');
    expect(busiest).toContain('hourly-a');
    expect(busiest).toContain('hourly-b');
    expect(busiest).toContain('candidate for jitter');
    // A chosen day: tomorrow in the viewer's zone (its own route), the same herd, 24 fires each.
    const tomorrow = await inPage<string>(
      page,
      '(() => { const d = new Date(Date.now() + 86400000); return new Date(d.getTime() - d.getTimezoneOffset() * 60000).toISOString().slice(0, 10); })()',
    );
    await inPage(page, `document.querySelector('#forecast-day').value = ${js(tomorrow)}`);
    await page.click('#forecast-go');
    await waitText(page, '.summary', `on ${tomorrow}`);
    expect(page.url()).toContain(`#/forecast/${tomorrow}`);
    expect(await textOf(page, '.summary')).toMatch(/^48 fires of 2 schedules on /);

    // Another tenant's schedule, by its ID: 404, and nothing of it on the page.
    await page.goto(`${s.base}/console/#/schedules/globex-secret`, { waitUntil: 'networkidle0' });
    await waitText(page, 'h1', '404');
    expect(await textOf(page, 'main')).not.toContain('export.secret');

    // Readable on a phone: nothing wider than the screen but the tables' own scrolling.
    await page.setViewport({ width: 390, height: 844 });
    await page.goto(`${s.base}/console/#/schedules/daily-report`, { waitUntil: 'networkidle0' });
    await waitText(page, 'h1', 'daily-report');
    expect(await inPage<number>(page, 'document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    // The key went nowhere but the Authorization header, and is kept only for this tab.
    for (const url of [page.url(), ...requested]) expect(url).not.toContain(s.keys.acme);
    expect(await inPage(page, 'localStorage.length')).toBe(0);
    expect(await inPage(page, 'Object.values(sessionStorage)')).toContain(s.keys.acme);
    expect(await inPage(page, 'document.cookie')).toBe('');
    await page.click('#forget');
    await page.waitForSelector('#key');
    expect(await inPage(page, 'Object.values(sessionStorage)')).not.toContain(s.keys.acme);

    // The only errors the browser reported are the refused key and the 404 the user asked for.
    const expected = [
      /status of 401.*@ .*\/v1\/schedules\?limit=1$/,
      /status of 404.*@ .*\/v1\/schedules\/globex-secret\/describe$/,
    ];
    expect(errors.filter((e) => !expected.some((pattern) => pattern.test(e)))).toEqual([]);
    await page.close();
  });
});
