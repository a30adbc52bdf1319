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
  // A heading shows only over citations of its kind: no bare "Documents" / "Web" headings.
  const docSection = h('section', { 'aria-label': 'Document sources', hidden: true }, h('h3', {}, icon('document'), ' Documents'), docs);
  const webSection = h('section', { 'aria-label': 'Web sources', hidden: true }, h('h3', {}, icon('globe'), ' Web'), web);
  const empty = h('p', { class: 'muted empty-sources' }, 'Citations of this chat appear here. Click a document or web marker to jump to its excerpt.');
  const close = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Collapse the sources panel' }, icon('close'));
  const peek = h('button', { type: 'button', class: 'sources-peek', 'aria-label': 'Open the sources panel', title: 'Sources' }, h('span', {}, 'Sources'));
  const body = h('div', { class: 'sources-body' },
    h('header', { class: 'panel-head' }, h('h2', {}, 'Sources'), close),
    empty,
    docSection, webSection);
  const element = h('aside', { class: 'sources collapsed', id: 'sources-panel', 'aria-label': 'Sources' }, peek, body);

  function setOpen(open) {
    element.classList.toggle('collapsed', !open);
    peek.setAttribute('aria-expanded', String(open));
    onToggle(open);
  }
  let dismissed = false; // the user closed it: citations arriving do not reopen it
  close.addEventListener('click', () => { dismissed = true; setOpen(false); });
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
    (isWeb ? webSection : docSection).hidden = false;
    seen.set(key, item);
    empty.hidden = true;
    return item;
  }

  return {
    element,
    /** Adds citations; with `reveal` (a wide screen) the panel opens on the first ones,
     * unless the user closed it. The panel starts closed: empty, it has nothing to show. */
    addAll(citations, { reveal = false } = {}) {
      const before = seen.size;
      (citations || []).forEach(add);
      if (reveal && !dismissed && before === 0 && seen.size > 0) setOpen(true);
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
      docSection.hidden = true;
      webSection.hidden = true;
      empty.hidden = false;
    },
    setOpen,
  };
}
