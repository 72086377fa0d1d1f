// Screenshots of the Temporal Web UI as an operator sees the scheduler (docs/ui/*.png, referenced from the
// README): one tenant's schedules listed by the SchedulerTenantId search attribute, a schedule's own page
// (its summary and current details: definition, next run, last occurrence) and an occurrence's job page
// linking back to its schedule.
//
//   npm run docs:screenshots      (needs Debian's chromium: apt-get install chromium; CHROMIUM_PATH overrides)
//
// It runs the real product (`src/main.ts`, embedded dev server with its Web UI) on free ports with a
// temporary data directory, creates schedules through the HTTP API, then drives headless chromium.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { freePort } from '../src/runtime/ports.js';
import { SCHEDULE_WORKFLOWS } from '../src/workflows/definitions.js';
import { launchChromium, repoRoot } from './toolchain.mjs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/lib/chromium/chromium';
const out = join(repoRoot, 'docs', 'ui');
const ACME = 'key-acme-ops-0123456789';
const GLOBEX = 'key-globex-ops-012345678';

const [temporalPort, uiPort, apiPort] = [await freePort(), await freePort(), await freePort()];
const dataDir = mkdtempSync(join(tmpdir(), 'ds-ui-'));
// With API keys this is a production process: its worker starts only with a tenant policy (issue 38).
const tenantsFile = join(dataDir, 'tenants.json');
writeFileSync(
  tenantsFile,
  JSON.stringify({
    tenants: {
      acme: {
        job_types: ['report.*', 'source.*'],
        event_sinks: [{ url: 'http://127.0.0.1:9/', private: true }],
      },
      globex: { job_types: ['export.*'] },
    },
  }),
);
const product = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src/main.ts')], {
  cwd: repoRoot,
  env: {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'TEMPORAL_ADDRESS')),
    SCHEDULER_DATA_DIR: dataDir,
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    SCHEDULER_API_PORT: String(apiPort),
    SCHEDULER_API_KEYS: `${ACME}=acme:ops,${GLOBEX}=globex:ops`,
    SCHEDULER_TENANTS_FILE: tenantsFile,
  },
  stdio: ['ignore', 'pipe', 'inherit'],
  detached: true,
});
const stop = () => {
  try {
    process.kill(-product.pid!, 'SIGINT');
  } catch {}
};
process.on('exit', stop);

await new Promise<void>((resolve, reject) => {
  let text = '';
  product.stdout!.on('data', (chunk) => {
    text += chunk;
    process.stdout.write(chunk);
    if (text.includes('ready; Ctrl-C')) resolve();
  });
  product.once('exit', (code) => reject(new Error(`the product exited (${code}) before it was ready`)));
});

const api = `http://127.0.0.1:${apiPort}`;
const ui = `http://127.0.0.1:${uiPort}`;
async function call(key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? null : await response.json();
}

const cron = (expression: string) => ({ kind: 'CRON', expression, timezone: 'Europe/Riga' });
await call(ACME, 'POST', '/v1/schedules', {
  schedule_id: 'weekday-report',
  timing: cron('0 9 * * 1-5'),
  target: { type: 'JOB', job_type: 'report.generate', payload_ref: 'state://reports/daily' },
  overlap: 'SKIP',
});
await call(ACME, 'POST', '/v1/schedules', {
  schedule_id: 'source-sync',
  timing: cron('*/15 * * * *'),
  target: { type: 'JOB', job_type: 'source.sync', payload_ref: 'state://sources/crm' },
});
await call(ACME, 'POST', '/v1/schedules', {
  schedule_id: 'contract-42-deadline',
  timing: {
    kind: 'DEADLINE',
    at: '2027-03-31T18:00:00',
    timezone: 'Europe/Riga',
    reminders: ['P1D', 'PT1H'],
  },
  target: { type: 'EVENT', event_type: 'contract.deadline_reached', sink_url: 'http://127.0.0.1:9/events' },
});
await call(ACME, 'POST', '/v1/schedules/source-sync/pause', { note: 'CRM maintenance window' });
await call(GLOBEX, 'POST', '/v1/schedules', {
  schedule_id: 'nightly-export',
  timing: cron('0 2 * * *'),
  target: { type: 'JOB', job_type: 'export.run' },
});
const occurrence = (await call(ACME, 'POST', '/v1/schedules/weekday-report/trigger', {
  reason: 'first run for the screenshot',
})) as { occurrence_id: string };
await new Promise((r) => setTimeout(r, 3000));

mkdirSync(out, { recursive: true });
const browser = await launchChromium(chromium);
const shoot = async (page: Page, url: string, file: string, tab?: string) => {
  await page.goto(url, { waitUntil: 'networkidle2', timeout: 60_000 });
  if (tab) {
    const [handle] = await page.$$(`xpath/.//*[normalize-space(text())='${tab}']`);
    if (!handle) throw new Error(`no "${tab}" tab on ${url}`);
    await (handle as unknown as { click(): Promise<void> }).click();
    await page.waitForNetworkIdle({ idleTime: 1000, timeout: 30_000 }).catch(() => {});
  }
  await new Promise((r) => setTimeout(r, 1500));
  await page.screenshot({ path: join(out, file) });
  console.log(`docs/ui/${file}`);
};
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1500, height: 900 });
  const query = encodeURIComponent(`${SCHEDULE_WORKFLOWS} AND SchedulerTenantId = "acme"`);
  await shoot(page, `${ui}/namespaces/default/workflows?query=${query}`, 'schedules-of-tenant.png');
  await page.setViewport({ width: 1500, height: 1100 });
  const schedule = encodeURIComponent('schedule/acme/weekday-report');
  await shoot(page, `${ui}/namespaces/default/workflows/${schedule}`, 'schedule-page.png', 'User Metadata');
  const job = encodeURIComponent(occurrence.occurrence_id);
  await shoot(page, `${ui}/namespaces/default/workflows/${job}`, 'occurrence-page.png', 'User Metadata');
} finally {
  await browser.close();
  stop();
  await new Promise((r) => product.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
