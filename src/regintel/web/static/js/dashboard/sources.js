// The Sources panel: the citations of the current conversation, documents and web; clicking
// a citation in a message opens the panel at its excerpt. Collapses to a thin strip.
import { clear, h, safeUrl, shownQuote } from '../dom.js';
import { icon } from '../icons.js';
import { citationMeta } from './messages.js';

function keyOf(c) {
  return c.source_type === 'web' ? `w:${c.url}:${c.quote}` : `d:${c.document_id}:${c.chunk_id}:${c.quote}`;
}

export function createSources({ onToggle }) {
  const seen = new Map();
  const docs = h('ul', { class: 'source-list' });
  const web = h('ul', { class: 'source-list' });
  const empty = h('p', { class: 'muted empty-sources' }, 'Citations of this chat appear here. Click a document or web marker to jump to its excerpt.');
  const close = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Collapse the sources panel' }, icon('close'));
  const peek = h('button', { type: 'button', class: 'sources-peek', 'aria-label': 'Open the sources panel', title: 'Sources' }, h('span', {}, 'Sources'));
  const body = h('div', { class: 'sources-body' },
    h('header', { class: 'panel-head' }, h('h2', {}, 'Sources'), close),
    empty,
    h('section', { 'aria-label': 'Document sources' }, h('h3', {}, icon('document'), ' Documents'), docs),
    h('section', { 'aria-label': 'Web sources' }, h('h3', {}, icon('globe'), ' Web'), web));
  const element = h('aside', { class: 'sources collapsed', id: 'sources-panel', 'aria-label': 'Sources' }, peek, body);

  function setOpen(open) {
    element.classList.toggle('collapsed', !open);
    peek.setAttribute('aria-expanded', String(open));
    onToggle(open);
  }
  close.addEventListener('click', () => setOpen(false));
  peek.addEventListener('click', () => setOpen(true));

  function add(c) {
    const key = keyOf(c);
    if (seen.has(key)) return seen.get(key);
    const isWeb = c.source_type === 'web';
    const url = isWeb ? safeUrl(c.url) : null;
    const item = h('li', { class: `source ${isWeb ? 'web' : 'doc'}`, tabindex: -1 },
      h('div', { class: 'source-title' }, icon(isWeb ? 'globe' : 'document'), ' ',
        url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, c.title || url) : (c.title || 'Untitled')),
      citationMeta(c) ? h('div', { class: 'source-meta' }, citationMeta(c)) : null,
      c.quote ? h('blockquote', {}, shownQuote(c.quote)) : null);
    (isWeb ? web : docs).append(item);
    seen.set(key, item);
    empty.hidden = true;
    return item;
  }

  return {
    element,
    addAll(citations) {
      (citations || []).forEach(add);
    },
    focus(c) {
      const item = add(c);
      setOpen(true);
      element.querySelectorAll('.source.active').forEach((el) => el.classList.remove('active'));
      item.classList.add('active');
      item.scrollIntoView({ block: 'nearest' });
      item.focus({ preventScroll: true });
    },
    reset() {
      seen.clear();
      clear(docs);
      clear(web);
      empty.hidden = false;
    },
    setOpen,
  };
}
