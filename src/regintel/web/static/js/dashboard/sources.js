// The Sources panel: the citations of the current conversation, documents and web, one card
// per clause of a document (or per web page) holding the quotes cited from it. It starts
// closed and an answer arriving leaves it so; clicking a citation in a message opens it at
// that quote (the Sources button and the strip open it too). Collapses to a thin strip.
import { clear, h, safeUrl, shownQuote } from '../dom.js';
import { icon } from '../icons.js';
import { citationMeta } from './messages.js';

/** The card a citation belongs to: its document's clause (its section where no clause was
 * found, its passage where neither was), or its web page. */
function cardOf(c) {
  if (c.source_type === 'web') return `w:${c.url}`;
  return `d:${c.document_id}:${c.clause || c.section || c.chunk_id}`;
}

function quoteOf(c) {
  return `${c.chunk_id || c.url}:${c.quote}`;
}

const plain = (text) => String(text || '').replace(/\s+/g, ' ').replace(/…$/, '').trim();

/** Where a clause's quotes are: one citation's place, its lines (or pages) from the first
 * quote's to the last one's. */
function cardMeta(cited) {
  const [first] = cited;
  const lines = cited.map((c) => c.lines).filter(Boolean);
  const pages = [...new Set(cited.map((c) => c.page).filter(Boolean))].sort((a, b) => a - b);
  if (pages.length > 1) {
    return [first.version ? `Version ${first.version}` : '', `pages ${pages[0]}–${pages[pages.length - 1]}`,
      first.clause ? `clause ${first.clause}` : ''].filter(Boolean).join(' · ');
  }
  return citationMeta(lines.length ? {
    ...first,
    lines: { start: Math.min(...lines.map((l) => l.start)), end: Math.max(...lines.map((l) => l.end)) },
  } : first);
}

/** What a card gathers, as its "N more quotes from this …" says. */
function unitOf(c) {
  if (c.source_type === 'web') return 'page';
  if (c.clause) return 'clause';
  return c.section ? 'section' : 'passage';
}

export function createSources({ onToggle }) {
  const cards = new Map(); // card key → its element, the citations and the quotes it holds
  const quoted = new Map(); // quote key → {card, el}
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
  close.addEventListener('click', () => setOpen(false));
  peek.addEventListener('click', () => setOpen(true));

  function newCard(key, c) {
    const isWeb = c.source_type === 'web';
    const url = isWeb ? safeUrl(c.url) : null;
    const meta = h('div', { class: 'source-meta' });
    const moreList = h('div', { class: 'more-quotes-list' });
    const more = h('details', { class: 'more-quotes', hidden: true }, h('summary', {}), moreList);
    const item = h('li', { class: `source ${isWeb ? 'web' : 'doc'}`, tabindex: -1, dataset: { card: key } },
      h('div', { class: 'source-title' }, icon(isWeb ? 'globe' : 'document'), ' ',
        url ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, c.title || url) : (c.title || 'Untitled')),
      meta, more);
    (isWeb ? web : docs).append(item);
    (isWeb ? webSection : docSection).hidden = false;
    empty.hidden = true;
    const card = { item, meta, more, moreList, unit: unitOf(c), cited: [], quotes: [] };
    cards.set(key, card);
    return card;
  }

  /** A quote joins its card: once, however often it is cited; a longer quote of the same
   * passage takes the place of a shorter one. The first quote shows, the others fold under
   * "N more quotes from this clause". */
  function addQuote(card, c) {
    const text = plain(c.quote);
    let shown = card.quotes.find((q) => q.text.includes(text) || text.includes(q.text));
    if (shown && text.length > shown.text.length) {
      shown.text = text;
      shown.el.textContent = shownQuote(c.quote);
    }
    if (!shown && c.quote) {
      shown = { text, el: h('blockquote', {}, shownQuote(c.quote)) };
      card.quotes.push(shown);
      if (card.quotes.length === 1) card.item.insertBefore(shown.el, card.more);
      else card.moreList.append(shown.el);
      const others = card.quotes.length - 1;
      card.more.hidden = others === 0;
      card.more.querySelector('summary').textContent = `${others} more quote${others === 1 ? '' : 's'} from this ${card.unit}`;
    }
    return shown ? shown.el : null;
  }

  function add(c) {
    const known = quoted.get(quoteOf(c));
    if (known) return known;
    const key = cardOf(c);
    const card = cards.get(key) || newCard(key, c);
    card.cited.push(c);
    const text = cardMeta(card.cited);
    card.meta.textContent = text;
    card.meta.hidden = !text;
    const entry = { card, el: addQuote(card, c) };
    quoted.set(quoteOf(c), entry);
    return entry;
  }

  return {
    element,
    /** Adds an answer's citations to their cards; the panel stays as it is. */
    addAll(citations) {
      (citations || []).forEach(add);
    },
    /** Opens the panel at citation `c`'s quote. */
    focus(c) {
      const { card, el } = add(c);
      setOpen(true);
      element.querySelectorAll('.source.active, .source blockquote.active').forEach((x) => x.classList.remove('active'));
      card.item.classList.add('active');
      if (el) {
        el.classList.add('active');
        if (card.moreList.contains(el)) card.more.open = true;
      }
      (el || card.item).scrollIntoView({ block: 'nearest' });
      card.item.focus({ preventScroll: true });
    },
    reset() {
      cards.clear();
      quoted.clear();
      clear(docs);
      clear(web);
      docSection.hidden = true;
      webSection.hidden = true;
      empty.hidden = false;
    },
    setOpen,
  };
}
