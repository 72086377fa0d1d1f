// `npm run fuzz` (and, small, test/integration/http-fuzz.test.ts): fuzzes the HTTP API from its own OpenAPI
// document with schemathesis. A real stack as `npm start` runs it (src/main.ts: dev server, worker, API) on
// free ports with its own data directory, key and a raised rate limit; then `schemathesis run` against the
// served /openapi.json with the checks
//   not_a_server_error, response_schema_conformance, status_code_conformance, content_type_conformance
// Every documented 4xx is application/problem+json, so the last two also hold every rejection to a problem
// with a documented status. The run passes with no failure, no schemathesis error, and nothing in the
// server's own output that shows a fault whatever the API answered: an error log line, a schedule workflow
// that failed, a failing workflow task, the slot computation failing inside a workflow.
//
// schemathesis comes from PyPI, pinned in test/python/requirements-fuzz.txt, installed once per content of
// that file into a venv in the user cache (like the servers: scripts/toolchain.mjs), never in the clone.
//
//   node --import tsx scripts/fuzz-api.ts [--examples N] [--seed N] [--workers N] [--max-time S]
//                                         [--phases examples,coverage,fuzzing,stateful] [--report-dir DIR]
//                                         [--har] [--quiet]
// (`npm run fuzz` is --examples 200; `npm run fuzz -- --seed N` replays a run.) --har also records every
// request and response; --quiet prints only the summary. The reports, schemathesis' output and the server's
// log stay in the report directory (default: a new ds-fuzz-* in the temp dir), printed at the end.
//
// Traffic stays on this machine: the API listens on 127.0.0.1, and EVENT targets may only POST to a local
// sink (SCHEDULER_EVENT_SINKS), so a generated sink URL elsewhere is a 422, never a request.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { freePort } from '../src/runtime/ports.js';
import { SCHEDULE_WORKFLOW_TYPES } from '../src/workflows/definitions.js';
import { cacheDir, repoRoot } from './toolchain.mjs';

export const FUZZ_REQUIREMENTS = join(repoRoot, 'test', 'python', 'requirements-fuzz.txt');
export const CHECKS = [
  'not_a_server_error',
  'response_schema_conformance',
  'status_code_conformance',
  'content_type_conformance',
  'unsupported_method',
];

/** Schemathesis could not be installed or started: one actionable line. */
export class FuzzSetupError extends Error {
  override name = 'FuzzSetupError';
}

type Log = (line: string) => void;

function tailOf(text: string, lines = 15): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/**
 * The venv's python with schemathesis installed (`python -m schemathesis.cli`), installing it on first use.
 * Built in a staging directory and renamed into place, so an interrupted install is never taken as done.
 */
export function ensureSchemathesis(log: Log = console.error): string {
  if (!existsSync(FUZZ_REQUIREMENTS)) throw new FuzzSetupError(`${FUZZ_REQUIREMENTS} is missing`);
  const digest = createHash('sha256').update(readFileSync(FUZZ_REQUIREMENTS)).digest('hex').slice(0, 12);
  const venv = join(cacheDir(), 'python', `fuzz-venv-${digest}`);
  const python = join(venv, 'bin', 'python');
  const works = (py: string) =>
    spawnSync(py, ['-m', 'schemathesis.cli', '--version'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
  if (existsSync(join(venv, '.installed')) && works(python)) return python;

  const system = process.env.PYTHON ?? 'python3';
  if (spawnSync(system, ['--version'], { stdio: 'ignore' }).status !== 0) {
    throw new FuzzSetupError(
      `${system} is not installed: the API fuzzer (schemathesis) needs Python >= 3.10 with venv (apt-get install python3 python3-venv), or set PYTHON`,
    );
  }
  const staging = `${venv}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dirname(venv), { recursive: true });
  log(`Installing schemathesis into ${venv} (first time only)…`);
  try {
    const mk = spawnSync(system, ['-m', 'venv', staging], { encoding: 'utf8' });
    if (mk.status !== 0) {
      throw new FuzzSetupError(
        `${system} -m venv failed (exit ${mk.status}): ${tailOf(mk.stderr ?? '', 3)} — install the venv module (apt-get install python3-venv)`,
      );
    }
    const pip = spawnSync(
      join(staging, 'bin', 'python'),
      ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '-r', FUZZ_REQUIREMENTS],
      { encoding: 'utf8', timeout: 15 * 60_000 },
    );
    if (pip.status !== 0) {
      throw new FuzzSetupError(
        `pip install -r ${relative(repoRoot, FUZZ_REQUIREMENTS)} failed (exit ${pip.status ?? pip.signal}): check that PyPI is reachable; pip said:\n${tailOf(`${pip.stdout}\n${pip.stderr}`, 10)}`,
      );
    }
    if (!works(join(staging, 'bin', 'python'))) {
      throw new FuzzSetupError('schemathesis was installed but `python -m schemathesis.cli --version` fails');
    }
    writeFileSync(join(staging, '.installed'), `${new Date().toISOString()}\n`);
    rmSync(venv, { recursive: true, force: true });
    renameSync(staging, venv);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`schemathesis ready: ${python}`);
  return python;
}

/** A local sink for EVENT targets: answers 204 to everything, counts what it got. */
async function startSink(): Promise<{ url: string; received: () => number; close: () => Promise<void> }> {
  let received = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events/`,
    received: () => received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Stack {
  base: string;
  key: string;
  sinkUrl: string;
  child: ChildProcess;
  log: () => string;
  /** Events the local sink received. */
  received: () => number;
  stop: () => Promise<void>;
}

async function distinctFreePorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** src/main.ts with its own data dir, ports and key; resolves once /readyz answers 200. */
async function startStack(dir: string, logFile: string): Promise<Stack> {
  const sink = await startSink();
  const [temporalPort, uiPort, apiPort] = await distinctFreePorts(3);
  const key = `fuzz-${randomBytes(16).toString('hex')}`;
  const tenantsFile = join(dir, 'tenants.json');
  writeFileSync(
    tenantsFile,
    JSON.stringify({
      tenants: {
        fuzz: {
          job_task_queues: ['*'],
          job_types: ['*'],
          signal_workflow_ids: ['*'],
          event_sinks: [sink.url],
        },
      },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SCHEDULER_DATA_DIR: join(dir, 'data'),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    SCHEDULER_API_PORT: String(apiPort),
    SCHEDULER_API_HOST: '127.0.0.1',
    SCHEDULER_API_KEYS: `${key}=fuzz:fuzzer`,
    // Schemathesis sends thousands of requests a minute with one key: the limit is not what is tested.
    SCHEDULER_API_RATE_LIMIT: '1000000',
    // Targets the fuzzer sends are judged by a policy like a production one: JOBs anywhere but the one sink.
    SCHEDULER_TENANTS_FILE: tenantsFile,
    SCHEDULER_LOG_LEVEL: 'warn',
    SCHEDULER_ROLE: 'all',
  };
  for (const name of ['TEMPORAL_ADDRESS', 'SCHEDULER_API_KEY_FILE', 'SCHEDULER_METRICS_PORT'])
    delete env[name];
  const out = createWriteStream(logFile);
  let text = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(repoRoot, 'src', 'main.ts')], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const onData = (chunk: Buffer) => {
    out.write(chunk);
    if (text.length < 4_000_000) text += chunk.toString();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (alive()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => out.end(resolve));
    await sink.close();
  };
  const base = `http://127.0.0.1:${apiPort}`;
  const deadline = Date.now() + 150_000;
  try {
    for (;;) {
      if (!alive()) throw new Error(`the scheduler exited while starting; its output ends:\n${tailOf(text)}`);
      if (Date.now() > deadline)
        throw new Error(`the scheduler was not ready within 150 s; its output ends:\n${tailOf(text)}`);
      const ready = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(5000) }).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ready) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, key, sinkUrl: sink.url, child, log: () => text, received: sink.received, stop };
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Schedules that exist before the run, so operations on {id} reach more than 404. */
function seedSchedules(sinkUrl: string) {
  const hour = 3_600_000;
  return [
    {
      schedule_id: 'fuzz-cron',
      timing: { kind: 'CRON', expression: '0 9 * * 1-5', timezone: 'Europe/Riga' },
      target: { type: 'JOB', job_type: 'source.sync', payload_ref: 'state://sources/crm' },
    },
    {
      schedule_id: 'fuzz-interval',
      timing: { kind: 'INTERVAL', every: 'PT1H' },
      target: { type: 'EVENT', event_type: 'fuzz.tick', sink_url: `${sinkUrl}tick` },
      overlap: 'SKIP',
    },
    {
      schedule_id: 'fuzz-rrule',
      timing: { kind: 'RECURRENCE', rule: 'FREQ=WEEKLY;BYDAY=MO,WE;BYHOUR=8', timezone: 'America/New_York' },
      target: { type: 'WORKFLOW_SIGNAL', workflow_id: 'fuzz-listener', signal_name: 'tick' },
      window: { from: '07:00', to: '19:00', days: ['MO', 'TU', 'WE', 'TH', 'FR'] },
      misfire: 'CATCH_UP',
    },
    {
      schedule_id: 'fuzz-once',
      timing: { kind: 'ONE_TIME', at: iso(Date.now() + 30 * 24 * hour) },
      target: { type: 'JOB', job_type: 'report.build', payload: { month: 11 } },
    },
    {
      schedule_id: 'fuzz-deadline',
      timing: { kind: 'DEADLINE', at: iso(Date.now() + 10 * 24 * hour), reminders: ['P1D', 'PT1H'] },
      target: { type: 'JOB', job_type: 'contract.remind' },
    },
    // For cancel and DELETE, which end a schedule: the others above stay live for the other operations.
    ...[1, 2, 3].map((n) => ({
      schedule_id: `fuzz-doomed-${n}`,
      timing: { kind: 'CRON', expression: `${n} 3 * * *`, timezone: 'UTC' },
      target: { type: 'JOB', job_type: 'cleanup' },
    })),
  ];
}

/**
 * A TOML basic string: JSON's escapes are valid TOML ones for what is used here, but for DEL, which JSON
 * leaves raw and TOML forbids raw. (No lone surrogate: TOML's \u takes scalar values only.)
 */
const tomlString = (value: string) => JSON.stringify(value).replace(/\u007f/g, '\\u007F');
const tomlArray = (values: Array<string | number>) =>
  `[${values.map((v) => (typeof v === 'number' ? String(v) : tomlString(v))).join(', ')}]`;

/**
 * Values schemathesis mixes into what it generates (each with a probability; the rest stays
 * schema-derived), so generated definitions are sometimes valid and reach the scheduler's logic instead of
 * stopping at the first 422.
 */
function fuzzConfig(seeded: string[], sinkUrl: string): string {
  const now = Date.now();
  const day = 86_400_000;
  const instants = [
    iso(now + day),
    iso(now + 3_600_000),
    iso(now - day),
    iso(now - 7 * day),
    iso(now + 400 * day),
    '2026-03-29T00:30:00Z',
    '2026-10-25T03:30:00+03:00',
    '2020-02-29T12:00:00+05:45',
    '1970-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    // Just outside the calendar's years 1000-9999.
    '0999-12-31T23:00:00Z',
    '1000-01-01T00:30:00+01:00',
  ];
  const live = seeded.filter((id) => !id.startsWith('fuzz-doomed-'));
  const dictionaries: Record<string, Array<string | number>> = {
    ids: [...live, 'fuzz-missing', 'no-such-schedule'],
    doomed: [...seeded.filter((id) => id.startsWith('fuzz-doomed-')), 'fuzz-missing'],
    zones: [
      'Europe/Riga',
      'UTC',
      'America/New_York',
      'Asia/Kathmandu',
      'Australia/Lord_Howe',
      'Pacific/Apia',
    ],
    instants,
    local_times: ['2027-03-28T03:30:00', '2026-10-25T03:30:00', iso(now + 2 * day).slice(0, 19), ...instants],
    durations: ['PT1H', 'PT15M', 'P1D', 'PT90S', 'P1W', 'PT10S', 'PT0S', 'P1M', 'P1Y', '-PT5M', 'P1DT2H'],
    crons: [
      '0 9 * * 1-5',
      '*/5 * * * *',
      '30 2 * * *',
      '0 0 29 2 *',
      '0 0 31 2 *',
      '*/20 * * * * *',
      '0 12 * * MON#2',
      '61 * * * *',
    ],
    rules: [
      'FREQ=DAILY;BYHOUR=9;BYMINUTE=0',
      'FREQ=WEEKLY;BYDAY=MO,WE,FR',
      'FREQ=MONTHLY;BYMONTHDAY=31',
      'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
      'FREQ=MINUTELY;INTERVAL=15;COUNT=10',
      'FREQ=DAILY;UNTIL=20200101T000000Z',
      'DTSTART;TZID=Europe/Riga:20260329T033000\nRRULE:FREQ=DAILY;COUNT=5',
    ],
    sinks: [`${sinkUrl}a`, `${sinkUrl}b/c?d=1`, 'http://127.0.0.1:9/elsewhere', 'https://example.invalid/x'],
    job_types: ['source.sync', 'report.build'],
    hhmm: ['09:00', '17:30', '22:00', '02:00', '24:00', '25:61'],
    versions: [1, 2, 3],
    // POST /v1/interpret: sentences of docs/words.md (so generated requests reach the reader's logic and
    // the calendar behind it), and hostile text: arbitrary unicode, control characters, huge numbers, the
    // longest text allowed, rules that never fire or search for long.
    texts: [
      'every 10 minutes',
      'every weekday at 09:00 in Europe/Riga',
      'every day at 5',
      'every day at 09:00',
      'blorf gleep',
      'once at 14:00 on 5 September in Europe/Riga',
      'in 2 hours and 30 minutes',
      '48 hours after the e-mail was sent',
      'every 15 minutes during business hours in Europe/Riga',
      'on the last Friday of every month at 17:00 in Europe/Riga',
      'every month on the 31st at 10:00 in Europe/Riga',
      'deadline 31 December 2026 at 17:00, remind me a day and an hour before',
      'каждые 10 минут',
      'по будням в 9 утра по Риге',
      'cron 0 9 * * 1-5',
      'FREQ=SECONDLY;BYSETPOS=1;COUNT=999999999',
      'every 99999999999999999999999999 minutes',
      'in 1e308 days',
      'every 0 seconds',
      'at 99:99 every day in Europe/Riga',
      'on 31 February 2027 at 10:00 in Europe/Riga',
      'until 1 March 1000',
      '\u0000\u0001\u0007\u001b[31m every\u007f 10 minutes\r\n',
      '\t\t\n\n',
      '𝕖𝕧𝕖𝕣𝕪 𝕕𝕒𝕪 🕐 \u202e at 9',
      'ǝʌǝɹʎ ﻿ day​ at 09:00',
      'every '.repeat(166),
      'x'.repeat(1000),
      `${'каждый день '.repeat(83)}в 9`,
    ],
  };
  const bind: Array<[string, string, number]> = [
    ['path.id', 'ids', 0.8],
    ['body.schedule_id', 'ids', 0.3],
    ['body.timing.timezone', 'zones', 0.8],
    ['body.timezone', 'zones', 0.5],
    ['body.window.timezone', 'zones', 0.5],
    ['body.timing.at', 'local_times', 0.8],
    ['body.timing.anchor', 'instants', 0.7],
    ['body.timing.every', 'durations', 0.8],
    ['body.timing.delay', 'durations', 0.8],
    ['body.timing.expression', 'crons', 0.8],
    ['body.timing.rule', 'rules', 0.8],
    ['body.jitter', 'durations', 0.6],
    ['body.starts_at', 'instants', 0.6],
    ['body.ends_at', 'instants', 0.6],
    ['body.from', 'instants', 0.8],
    ['body.to', 'instants', 0.8],
    ['body.scheduled_for', 'instants', 0.7],
    ['body.target.sink_url', 'sinks', 0.9],
    ['body.target.job_type', 'job_types', 0.5],
    ['body.window.from', 'hhmm', 0.7],
    ['body.window.to', 'hhmm', 0.7],
    ['body.expected_version', 'versions', 0.8],
    ['body.text', 'texts', 0.9],
    ['body.now', 'instants', 0.6],
  ];
  const lines = ['# Written by scripts/fuzz-api.ts for one run.', '[generation]', 'database = "none"', ''];
  for (const [name, values] of Object.entries(dictionaries)) {
    lines.push(`[dictionaries.${name}]`, `values = ${tomlArray(values)}`, '');
  }
  const binding = ([key, dictionary, probability]: [string, string, number]) =>
    `${tomlString(key)} = { dictionary = ${tomlString(dictionary)}, probability = ${probability} }`;
  lines.push('[parameters]', ...bind.map(binding), '');
  for (const name of ['POST /v1/schedules/{id}/cancel', 'DELETE /v1/schedules/{id}']) {
    lines.push(
      '[[operations]]',
      `include-name = ${tomlString(name)}`,
      '[operations.parameters]',
      binding(['path.id', 'doomed', 0.8]),
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

export interface FuzzOptions {
  /** Most test cases schemathesis generates per operation and phase. */
  examples: number;
  seed?: number;
  workers?: number;
  /** schemathesis --max-time: a time budget (fuzzing and stateful repeat until it is spent). */
  maxTimeSeconds?: number;
  phases?: string;
  /** Where the reports, the schemathesis output and the server log go (default: a new temp dir). */
  reportDir?: string;
  /** Stops schemathesis (and fails the run) after this long. */
  timeoutMs?: number;
  /** Also print schemathesis' own output, lines cut to a readable width. */
  echo?: boolean;
  /** Also write a HAR file of every request and response (large). */
  har?: boolean;
  log?: Log;
}

interface SchemathesisFailure {
  code: string;
  title: string;
  count: number;
  operations: string[];
}

export interface FuzzResult {
  ok: boolean;
  /** What went wrong, one line each; empty when ok. */
  problems: string[];
  summary: string;
  dir: string;
  version: string;
  generated: number;
  failures: SchemathesisFailure[];
  serverErrors: string[];
  seconds: { setup: number; fuzz: number };
}

const cut = (line: string, width = 400) => (line.length > width ? `${line.slice(0, width)}… (cut)` : line);

/** The FAILURES / ERRORS sections of schemathesis' output, cut to a readable size. */
function failureSections(output: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => /^=+ (FAILURES|ERRORS) =+$/.test(l.trim()));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && /^=+ (WARNINGS|SUMMARY) =+$/.test(l.trim()));
  return lines
    .slice(start, end < 0 ? undefined : end)
    .map((l) => cut(l, 300))
    .slice(0, 200)
    .join('\n');
}

/**
 * What in the server's output is a fault, whatever the API answered: error lines of its JSON log (level
 * `error`/`fatal`, or pino's numbers >= 50), a schedule workflow that failed, a workflow task that failed,
 * the slot computation failing inside a workflow (a definition the API should have refused), a crash.
 */
export function serverErrorLines(log: string): string[] {
  const found: string[] = [];
  for (const line of log.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    let fault = false;
    if (trimmed.startsWith('{')) {
      try {
        const entry = JSON.parse(trimmed) as {
          level?: number | string;
          msg?: string;
          workflowType?: string;
          activityType?: string;
        };
        fault =
          (typeof entry.level === 'number' && entry.level >= 50) ||
          entry.level === 'error' ||
          entry.level === 'fatal' ||
          (entry.msg === 'Workflow failed' && SCHEDULE_WORKFLOW_TYPES.includes(entry.workflowType ?? '')) ||
          (entry.msg === 'Activity failed' && entry.activityType === 'computeSlotBatch');
      } catch {}
    } else {
      fault = /\sERROR\s|Failing workflow task|Unhandled|Uncaught|panicked|FATAL/.test(
        stripVTControlCharacters(trimmed),
      );
    }
    if (fault) found.push(cut(stripVTControlCharacters(trimmed), 1500));
  }
  return found;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const log = options.log ?? ((line: string) => console.error(`[fuzz] ${line}`));
  const started = Date.now();
  const python = ensureSchemathesis(log);
  const dir = options.reportDir ?? mkdtempSync(join(tmpdir(), 'ds-fuzz-'));
  mkdirSync(dir, { recursive: true });
  const serverLog = join(dir, 'server.log');
  log(`starting the scheduler (src/main.ts) with its own dev server; output in ${dir}`);
  const stack = await startStack(dir, serverLog);
  let setupDone = Date.now();
  try {
    const seeded: string[] = [];
    for (const definition of seedSchedules(stack.sinkUrl)) {
      const response = await fetch(`${stack.base}/v1/schedules`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(definition),
      });
      if (response.status !== 201)
        throw new Error(
          `seeding ${definition.schedule_id} answered ${response.status}: ${await response.text()}`,
        );
      seeded.push(definition.schedule_id);
    }
    const configFile = join(dir, 'schemathesis.toml');
    writeFileSync(configFile, fuzzConfig(seeded, stack.sinkUrl));
    const reportDir = join(dir, 'report');
    const args = [
      '-m',
      'schemathesis.cli',
      '--config-file',
      configFile,
      'run',
      `${stack.base}/openapi.json`,
      '--header',
      `Authorization: Bearer ${stack.key}`,
      '--checks',
      CHECKS.join(','),
      '--max-examples',
      String(options.examples),
      '--continue-on-failure',
      '--request-timeout',
      '30',
      '--workers',
      String(options.workers ?? 1),
      '--report',
      options.har ? 'json,junit,har' : 'json,junit',
      '--report-dir',
      reportDir,
      '--no-color',
      ...(options.seed !== undefined ? ['--seed', String(options.seed)] : []),
      ...(options.maxTimeSeconds ? ['--max-time', String(options.maxTimeSeconds)] : []),
      ...(options.phases ? ['--phases', options.phases] : []),
    ];
    log(
      `schemathesis run ${stack.base}/openapi.json --checks ${CHECKS.join(',')} --max-examples ${options.examples}${options.seed !== undefined ? ` --seed ${options.seed}` : ''}`,
    );
    setupDone = Date.now();
    const outputFile = join(dir, 'schemathesis.txt');
    const out = createWriteStream(outputFile);
    let output = '';
    let pending = '';
    const child = spawn(python, args, {
      cwd: dir,
      env: { ...process.env, PYTHONUNBUFFERED: '1', NO_COLOR: '1', COLUMNS: '120' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (chunk: Buffer) => {
      out.write(chunk);
      const text = chunk.toString();
      if (output.length < 8_000_000) output += text;
      if (options.echo) {
        pending += text;
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) console.log(cut(line, 200));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    let timedOut = false;
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        }, options.timeoutMs)
      : null;
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => resolve(code));
    });
    if (timer) clearTimeout(timer);
    await new Promise<void>((resolve) => out.end(resolve));
    const fuzzDone = Date.now();

    const problems: string[] = [];
    if (timedOut)
      problems.push(`schemathesis did not finish within ${Math.round(options.timeoutMs! / 1000)} s`);
    const reportFile = existsSync(reportDir)
      ? readdirSync(reportDir).find((f) => f.startsWith('json-') && f.endsWith('.json'))
      : undefined;
    const report = reportFile ? JSON.parse(readFileSync(join(reportDir, reportFile), 'utf8')) : null;
    if (!report) {
      problems.push(
        `schemathesis wrote no report (exit ${exitCode}); its output ends:\n${tailOf(
          output
            .split('\n')
            .map((l) => cut(l))
            .join('\n'),
          30,
        )}`,
      );
    }
    const failures: SchemathesisFailure[] = report?.failures ?? [];
    for (const f of failures) {
      problems.push(`${f.code} ${f.title}: ${f.count}× in ${f.operations.join(', ')}`);
    }
    for (const e of report?.errors ?? []) problems.push(`schemathesis error: ${cut(JSON.stringify(e), 600)}`);
    if (
      report &&
      exitCode !== 0 &&
      failures.length === 0 &&
      (report.errors ?? []).length === 0 &&
      !timedOut
    ) {
      problems.push(`schemathesis exited with ${exitCode}; see ${outputFile}`);
    }
    const serverErrors = serverErrorLines(stack.log());
    if (serverErrors.length > 0) problems.push(`the server logged ${serverErrors.length} error line(s)`);

    const accepted = Object.entries(
      (report?.valid_rates ?? {}) as Record<string, Record<string, { accepted: number; rejected: number }>>,
    ).map(([op, phases]) => {
      const sum = Object.values(phases).reduce(
        (acc, p) => ({
          accepted: acc.accepted + (p.accepted ?? 0),
          rejected: acc.rejected + (p.rejected ?? 0),
        }),
        { accepted: 0, rejected: 0 },
      );
      return `${op} ${sum.accepted}/${sum.accepted + sum.rejected}`;
    });
    const warnings = Object.entries((report?.warnings ?? {}) as Record<string, unknown[]>)
      .filter(([, v]) => Array.isArray(v) && v.length > 0)
      .map(([k, v]) => `${k}: ${v.length}`);
    const summary = [
      `schemathesis ${report?.schemathesis_version ?? '?'}: ${report?.test_cases?.generated ?? '?'} test cases, ${report?.operations?.tested ?? '?'} operations, at most ${options.examples} examples per operation and phase, seed ${/^Seed: (\d+)/m.exec(output)?.[1] ?? options.seed ?? '?'}, ${((fuzzDone - setupDone) / 1000).toFixed(1)} s (setup ${((setupDone - started) / 1000).toFixed(1)} s)`,
      `checks: ${CHECKS.join(', ')}`,
      `phases: ${Object.entries((report?.phases ?? {}) as Record<string, { status: string }>)
        .map(([k, v]) => `${k} ${v.status}`)
        .join(', ')}`,
      `accepted (2xx) / generated per operation: ${accepted.join('; ')}`,
      `warnings: ${warnings.join(', ') || 'none'}`,
      `events received by the local sink: ${stack.received()}`,
      problems.length ? `FAILED:\n  ${problems.join('\n  ')}` : 'passed: no failure, no server error',
      ...(serverErrors.length
        ? [`server error lines (first 5):\n${serverErrors.slice(0, 5).join('\n')}`]
        : []),
      ...(problems.length ? [failureSections(output)] : []),
      `output: ${outputFile}; server log: ${serverLog}; reports: ${reportDir}`,
    ]
      .filter(Boolean)
      .join('\n');
    return {
      ok: problems.length === 0,
      problems,
      summary,
      dir,
      version: report?.schemathesis_version ?? '?',
      generated: report?.test_cases?.generated ?? 0,
      failures,
      serverErrors,
      seconds: { setup: (setupDone - started) / 1000, fuzz: (fuzzDone - setupDone) / 1000 },
    };
  } finally {
    await stack.stop();
    rmSync(join(dir, 'data'), { recursive: true, force: true });
  }
}

function parseArgs(argv: string[]): FuzzOptions {
  const options: FuzzOptions = { examples: Number(process.env.FUZZ_EXAMPLES ?? 200), echo: true };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new FuzzSetupError(`${flag} needs a value`);
      return v;
    };
    const int = () => {
      const v = Number(value());
      if (!Number.isInteger(v) || v < 0) throw new FuzzSetupError(`${flag} needs a whole number`);
      return v;
    };
    if (flag === '--examples') options.examples = int();
    else if (flag === '--seed') options.seed = int();
    else if (flag === '--workers') options.workers = int();
    else if (flag === '--max-time') options.maxTimeSeconds = int();
    else if (flag === '--phases') options.phases = value();
    else if (flag === '--report-dir') options.reportDir = value();
    else if (flag === '--quiet') options.echo = false;
    else if (flag === '--har') options.har = true;
    else throw new FuzzSetupError(`unknown option ${flag} (see the head of scripts/fuzz-api.ts)`);
  }
  if (options.examples < 1) throw new FuzzSetupError('--examples must be at least 1');
  return options;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const result = await runFuzz(parseArgs(process.argv.slice(2)));
    console.log(`\n${result.summary}`);
    process.exit(result.ok ? 0 : 1);
  } catch (err) {
    console.error(`error: ${(err as Error).message}`);
    process.exit(2);
  }
}
