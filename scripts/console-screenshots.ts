// Screenshots of the console (docs/console/*.png, referenced from docs/console.md): a tenant's schedules at
// 1280×800 and at a phone's 390 px, a schedule's page (next runs, occurrences with lateness), create from
// words with its reading, and the fire forecast.
//
//   node --import tsx scripts/console-screenshots.ts
//   (needs Chromium: node scripts/bootstrap.mjs --chromium installs Debian's; CHROMIUM_PATH overrides)
//
// It runs the product (a dev server, the scheduler worker, the API with the console on: console-stack.ts)
// with two tenants, creates schedules through the HTTP API, then drives headless Chromium as a user would.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { startConsoleStack } from './console-stack.js';
import { ensureChromium, launchChromium, repoRoot } from './toolchain.mjs';

const out = join(repoRoot, 'docs', 'console');
const executablePath = ensureChromium({ log: (line) => console.error(line) });
const s = await startConsoleStack('console-shots-');
const { acme, globex } = s.keys;
const must = async (method: string, path: string, body?: unknown, key = acme) => {
  const answer = await s.call(key, method, path, body);
  if (answer.status >= 300)
    throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
};
const cron = (expression: string, timezone = 'Europe/Riga') => ({ kind: 'CRON', expression, timezone });
const job = (job_type: string) => ({ type: 'JOB', job_type });

const shoot = async (page: Page, hash: string, file: string, ready: string) => {
  await page.goto(`${s.base}/console/${hash}`, { waitUntil: 'networkidle0' });
  await page.waitForSelector(ready, { timeout: 120_000 });
  await page.waitForNetworkIdle({ idleTime: 500, timeout: 60_000 }).catch(() => {});
  await page.screenshot({ path: join(out, file), fullPage: true });
  console.log(`docs/console/${file}`);
};

try {
  await must('POST', '/v1/schedules', {
    schedule_id: 'weekday-report',
    timing: cron('0 9 * * 1-5'),
    target: job('report.generate'),
    authored_from: 'every weekday at 9:00',
    labels: { team: 'reports', env: 'prod' },
  });
  await must('POST', '/v1/schedules', {
    schedule_id: 'source-sync',
    timing: cron('*/15 * * * *'),
    target: job('source.sync'),
  });
  await must('POST', '/v1/schedules', {
    schedule_id: 'billing-close',
    timing: cron('0 * * * *', 'UTC'),
    target: job('billing.close'),
    labels: { team: 'billing' },
  });
  await must('POST', '/v1/schedules', {
    schedule_id: 'cache-warm',
    timing: cron('0 * * * *', 'UTC'),
    target: job('cache.warm'),
  });
  await must('POST', '/v1/schedules', {
    schedule_id: 'metrics-rollup',
    timing: cron('0 */2 * * *', 'America/New_York'),
    target: job('metrics.rollup'),
    jitter: 'PT5M',
  });
  await must('POST', '/v1/schedules', {
    schedule_id: 'contract-42-deadline',
    timing: {
      kind: 'DEADLINE',
      at: '2027-03-31T18:00:00',
      timezone: 'Europe/Riga',
      reminders: ['P1D', 'PT1H'],
    },
    target: job('contract.deadline'),
  });
  await must('POST', '/v1/schedules/source-sync/pause', { note: 'CRM maintenance window' });
  await must(
    'POST',
    '/v1/schedules',
    { schedule_id: 'nightly-export', timing: cron('0 2 * * *'), target: job('export.run') },
    globex,
  );
  for (const reason of ['first run for the screenshot', 'a second one']) {
    await must('POST', '/v1/schedules/weekday-report/trigger', { reason });
  }
  await new Promise((resolve) => setTimeout(resolve, 3000));

  mkdirSync(out, { recursive: true });
  const browser = await launchChromium(executablePath);
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    await page.goto(`${s.base}/console/`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#key');
    await page.screenshot({ path: join(out, 'key.png') });
    console.log('docs/console/key.png');
    await page.type('#key', acme);
    await page.keyboard.press('Enter');
    await page.waitForSelector('table.schedules');
    await shoot(page, '#/schedules', 'schedules.png', 'table.schedules');
    await shoot(page, '#/schedules/weekday-report', 'schedule.png', 'table.next-runs');
    await page.click('#audit-run');
    await page.waitForSelector('#audit-counts');
    await (await page.$('#audit-run'))!.evaluate((el) =>
      (el as unknown as { scrollIntoView(): void }).scrollIntoView(),
    );
    await page.screenshot({ path: join(out, 'audit.png') });
    console.log('docs/console/audit.png');
    await page.goto(`${s.base}/console/#/create`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('#words');
    await page.type('#words', 'the last business day of the month at 18:00');
    await page.$eval('#zone', (el) => {
      (el as unknown as { value: string }).value = 'Europe/Riga';
    });
    await page.click('#read');
    await page.waitForSelector('.reading .explanation', { timeout: 60_000 });
    await page.type('#schedule-id', 'month-close');
    await page.type('#job-type', 'billing.month_close');
    await page.screenshot({ path: join(out, 'create.png'), fullPage: true });
    console.log('docs/console/create.png');
    await shoot(page, '#/forecast', 'forecast.png', '.summary');
    await page.setViewport({ width: 390, height: 844 });
    await shoot(page, '#/schedules', 'schedules-phone.png', 'table.schedules');
    await shoot(page, '#/schedules/weekday-report', 'schedule-phone.png', 'table.next-runs');
  } finally {
    await browser.close();
  }
} finally {
  await s.stop();
}
