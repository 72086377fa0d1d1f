// The console's shell: the key form, the navigation and the hash routes (#/schedules, #/schedules/<id>,
// #/create, #/forecast). The hash holds only what a page shows (a schedule ID), never the key.
import { ApiError, api, keyStore } from './api.js';
import { createPage } from './create.js';
import { h, message, replace } from './dom.js';
import { forecastPage } from './forecast.js';
import { schedulePage } from './schedule.js';
import { schedulesPage } from './schedules.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
let generation = 0;

/** A page's context: where it draws, and whether it is still the page shown (a later route replaces it). */
function context() {
  const mine = ++generation;
  return { main, current: () => mine === generation, go: (hash) => navigate(hash) };
}

function navigate(hash) {
  if (location.hash === hash) void route();
  else location.hash = hash;
}

function keyForm(problem) {
  const input = h('input', {
    id: 'key',
    name: 'key',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
  });
  const status = h('div', { 'aria-live': 'polite' }, problem ? message('error', problem) : null);
  // method=post: were the script ever not to run, a submitted form would still not put the key in a URL
  // (and the CSP's form-action 'none' refuses the submission anyway).
  const form = h(
    'form',
    { class: 'card narrow', method: 'post', action: '#', onsubmit: (event) => void submit(event) },
    h('h1', { text: 'Enter your API key' }),
    h('p', {
      text: 'The console calls the /v1 API with it, as any client would: it can do only what the key can. It stays in this tab (sessionStorage) until you close it or choose "Forget key".',
    }),
    h('label', { for: 'key', text: 'API key' }),
    input,
    h('button', { type: 'submit', text: 'Use this key' }),
    status,
  );
  async function submit(event) {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    keyStore.set(key);
    input.value = '';
    try {
      await api('GET', '/schedules?limit=1');
    } catch (err) {
      keyStore.clear();
      const why =
        err instanceof ApiError && err.status === 401
          ? 'The API did not accept this key: check it, or ask your operator for one.'
          : `The API could not be asked: ${err.message}`;
      replace(status, message('error', why));
      input.focus();
      return;
    }
    navigate(location.hash && location.hash !== '#/' ? location.hash : '#/schedules');
  }
  return form;
}

async function route() {
  const ctx = context();
  const hash = location.hash || '#/schedules';
  if (!keyStore.get()) {
    nav.hidden = true;
    replace(main, keyForm());
    main.querySelector('input')?.focus();
    return;
  }
  nav.hidden = false;
  for (const link of nav.querySelectorAll('a')) {
    const here = hash === link.getAttribute('href') || hash.startsWith(`${link.getAttribute('href')}/`);
    if (here) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  replace(main, h('p', { class: 'loading', text: 'Loading…' }));
  const [, page, ...rest] = hash.split('/');
  try {
    if (page === 'schedules' && rest.length > 0) await schedulePage(ctx, decodeURIComponent(rest.join('/')));
    else if (page === 'create') await createPage(ctx);
    else if (page === 'forecast') await forecastPage(ctx, rest[0]);
    else await schedulesPage(ctx);
  } catch (err) {
    if (!ctx.current()) return;
    if (err instanceof ApiError && err.status === 401) {
      keyStore.clear();
      replace(main, keyForm('The API no longer accepts this key: enter it again, or another one.'));
      return;
    }
    replace(main, h('h1', { text: 'Something went wrong' }), message('error', err.message));
  }
  // Keyboard and screen-reader users start at the new page's content, not at the top of the old one.
  if (ctx.current() && !main.contains(document.activeElement)) main.focus({ preventScroll: true });
}

document.getElementById('forget').addEventListener('click', () => {
  keyStore.clear();
  navigate('#/schedules');
});
window.addEventListener('hashchange', () => void route());
void route();
