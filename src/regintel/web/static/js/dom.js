// Building DOM without HTML strings: every piece of user or document text goes in as a text
// node (textContent), never parsed as HTML, so it renders literally and inertly.

/**
 * h('button', {class: 'x', onclick: fn, 'aria-label': 'Close'}, 'text', childNode)
 * Attributes: `class`, `dataset` (object), `text` (textContent), `on<event>` (listener);
 * `true` sets an empty attribute; null/undefined/false are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'text') el.textContent = String(value);
    else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent, children) {
  for (const child of [children].flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

let uid = 0;
export function newId(prefix = 'id') {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** Only http(s) links may become hrefs (no javascript:, data: …). */
export function safeUrl(url) {
  try {
    const parsed = new URL(String(url), window.location.origin);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

export function formatDate(iso) {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return date.toLocaleString(undefined, {
    month: 'short', day: 'numeric', year: 'numeric', hour: '2-digit', minute: '2-digit',
  });
}

export function initials(name) {
  const words = String(name || '').replace(/@.*/, '').replace(/<[^>]*>/g, ' ')
    .match(/[\p{L}\p{N}]+/gu) || [];
  return (words.slice(0, 2).map((w) => w[0]).join('') || '?').toUpperCase();
}

// A quote as shown: with "…" where it stops mid-sentence (quotes are cut at 300 characters and
// stay verbatim for verification). The same rule as regintel.domain.chat.quoted.
const QUOTE_ENDS = /[.;:!?)\]"”’…]\s*$/;
export function shownQuote(quote) {
  return QUOTE_ENDS.test(quote) ? quote : `${quote}…`;
}

/** A title with its version after it, unless the title already says it (regintel.domain.
 * documents.titled): "GDPR (Regulation (EU) 2016/679)", not "… 2016/679) (2016/679)". */
export function titled(title, version) {
  const v = String(version || '').trim();
  const t = String(title || '');
  return !v || t.toLowerCase().includes(v.toLowerCase()) ? t : `${t} (${v})`;
}
