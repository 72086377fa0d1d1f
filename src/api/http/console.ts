// The console (issue 44): a small web client of the /v1 API, served as static files under /console/ by the
// API process. It holds nothing of its own: a tenant's key, entered in the page and kept in the browser's
// sessionStorage, is sent as `Authorization: Bearer` to the same /v1 routes, so it can do nothing the key
// cannot. The files are a fixed list read at start (no path from a request ever reaches the file system),
// each answered with a strict Content-Security-Policy: scripts and styles from this origin only, no inline
// script or style, never framed. Off unless enabled (SCHEDULER_CONSOLE; default on in development only).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { HttpProblem } from './problems.js';

/** Where the console lives; its routes are public (access.ts): the pages need no key, /v1 does. */
export const CONSOLE_PREFIX = '/console';

/**
 * Every console response's policy: everything from this origin, nothing inline (uPlot styles its elements
 * through the CSSOM, which `style-src` does not govern), no plugins, no <base>, no form posts anywhere, and
 * no page may frame it (clickjacking of pause/trigger).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-cache',
};

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

const here = join(dirname(fileURLToPath(import.meta.url)), 'console');
/** The console's own files (./console/), by the path under /console/ they are served at. */
const OWN_FILES = [
  'index.html',
  'console.css',
  'app.js',
  'api.js',
  'dom.js',
  'time.js',
  'schedules.js',
  'schedule.js',
  'audit.js',
  'create.js',
  'forecast.js',
];

/** uPlot's distribution files, from node_modules (the `uplot` dependency). */
function uplotDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('uplot'));
  } catch {
    throw new Error('the console needs the npm package uplot (npm install): it draws the fire forecast');
  }
}

interface Asset {
  body: Buffer;
  type: string;
}

/** Reads the console's files once: a missing one fails the start, not a page later. */
export function loadConsoleAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const add = (path: string, file: string) => {
    const ext = path.slice(path.lastIndexOf('.') + 1);
    assets.set(path, { body: readFileSync(file), type: TYPES[ext]! });
  };
  for (const name of OWN_FILES) {
    try {
      add(name, join(here, name));
    } catch (err) {
      throw new Error(
        `the console's file ${name} is not in ${here} (${(err as Error).message}): a build copies src/api/http/console/ next to console.js, or set SCHEDULER_CONSOLE=off`,
      );
    }
  }
  const uplot = uplotDir();
  add('vendor/uPlot.esm.js', join(uplot, 'uPlot.esm.js'));
  add('vendor/uPlot.min.css', join(uplot, 'uPlot.min.css'));
  return assets;
}

/**
 * Whether the console is served: SCHEDULER_CONSOLE when set, else only in development (a production
 * deployment opts in).
 */
export function consoleEnabled(setting: 'on' | 'off' | undefined, production: boolean): boolean {
  return setting === undefined ? !production : setting === 'on';
}

/** The console's routes: GET /console (redirected to /console/), /console/ and each file of the list. */
export const consoleRoutes: FastifyPluginAsync = async (app) => {
  const assets = loadConsoleAssets();
  // Every answer under /console carries the headers, a 404 problem included.
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers(SECURITY_HEADERS);
    return payload;
  });
  const send = (path: string) => {
    const asset = assets.get(path);
    if (!asset) throw new HttpProblem('not-found', `no console file ${path}`, { code: 'NOT_FOUND' });
    return asset;
  };
  app.get(CONSOLE_PREFIX, { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(`${CONSOLE_PREFIX}/`, 302),
  );
  app.get(`${CONSOLE_PREFIX}/*`, { schema: { hide: true } }, async (request, reply) => {
    const path = (request.params as { '*': string })['*'] || 'index.html';
    // An own entry of the fixed list only: never a path joined onto a directory.
    const asset = send(path);
    return reply.type(asset.type).send(asset.body);
  });
};
