// DOM building without markup strings: every text, tenant-supplied or not, becomes a text node
// (textContent), never HTML. Attributes are set one by one; there is no `style` attribute (the CSP allows
// none): sizes are set through the CSSOM (element.style.width), which it does not govern.

/** An element with attributes (`class`, `text`, `on<event>` handlers, others as attributes) and children. */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = String(value);
    else if (name.startsWith('on') && typeof value === 'function')
      el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === 'style' || name.startsWith('on') || name === 'srcdoc')
      throw new Error(`h(): ${name} is not set this way`);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** Appends children: nodes as they are, anything else as a text node. */
export function append(el, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

/**
 * A table from a header row and rows of cells (nodes or text), wrapped to scroll sideways when needed; on a
 * phone each row is a card whose cells carry their header (data-label, shown by the CSS).
 */
export function table(caption, headers, rows, className = '') {
  return h(
    'div',
    { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      { class: className },
      h('caption', { text: caption }),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((header) => h('th', { scope: 'col', text: header })),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell, i) => h('td', { 'data-label': headers[i] }, cell)),
          ),
        ),
      ),
    ),
  );
}

/** A status badge: its class is chosen from a fixed list, never from the value itself. */
const STATUS_CLASSES = {
  ACTIVE: 'ok',
  COMPLETED: 'ok',
  HANDED_OFF: 'ok',
  RUNNING: 'info',
  ARMED: 'info',
  QUEUED: 'info',
  DISPATCHING: 'info',
  PAUSED: 'warn',
  SKIPPED: 'warn',
  FAILED: 'bad',
  CANCELLED: 'muted',
};
export function badge(status) {
  const kind = Object.hasOwn(STATUS_CLASSES, status) ? STATUS_CLASSES[status] : 'muted';
  return h('span', { class: `badge ${kind}`, text: status });
}

/** A message block for errors and notes (role=alert for errors, so a screen reader says it). */
export function message(kind, ...children) {
  return h('p', { class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, ...children);
}
