// The chat input: a contenteditable box where "@" opens a categorised autocomplete (Actions,
// Sets, Documents, Web). A chosen item becomes a pill that carries its id; on send the pills
// become tagged_doc_ids / tagged_set_ids / action / enable_web_search.
import { clear, h, newId, titled } from '../dom.js';
import { icon } from '../icons.js';

export const MAX_DOCUMENTS = 5;
// The server's limit on a question (regintel.domain.chat.MAX_MESSAGE_CHARS); the counter shows
// from COUNT_FROM of it, so a long paste is seen to near the limit before it is refused.
export const MAX_CHARS = 8000;
const COUNT_FROM = 0.8;
const ACTIONS = [
  { id: 'summarize', label: 'Summarize', hint: 'Key obligations of the tagged documents' },
  { id: 'inquire', label: 'Inquire', hint: 'Ask a question, answered with citations' },
  { id: 'compare', label: 'Compare', hint: 'Differences and similarities, side by side' },
  { id: 'audit', label: 'Audit', hint: 'Check a policy against regulations' },
];
const ICONS = { action: 'bolt', set: 'folder', doc: 'document', web: 'globe' };
const SECTION_TITLES = { action: 'Actions', set: 'Sets', doc: 'Documents', web: 'Web Search' };
const DOC_TYPE_LABELS = { regulation: 'Regulatory Source', policy: 'Company Policy' };
const NO_MATCH = 9;

/** How well `q` names a title (lower is better): the whole title, its start, a word's start,
 * anywhere; a version ("2016/679") matches too. NO_MATCH when it does not. */
function matchRank(q, title, version = '') {
  if (!q) return 4;
  const t = String(title).toLowerCase();
  if (t === q) return 0;
  if (t.startsWith(q)) return 1;
  if (t.split(/[^\p{L}\p{N}]+/u).some((word) => word.startsWith(q))) return 2;
  if (t.includes(q)) return 3;
  if (String(version || '').toLowerCase().includes(q)) return 4;
  return NO_MATCH;
}

/**
 * createComposer({ getDocuments, getSets, onSend, webSearch }) → { element, focus, setBusy, clear,
 * refuse, insertMention }. refuse(text) shows why a send was refused, above the kept text. onSend({ message, tagged_doc_ids, tagged_set_ids, action,
 * enable_web_search }) is called on Enter or the send button.
 */
export function createComposer({ getDocuments, getSets, onSend, webSearch = false }) {
  const listId = newId('mentions');
  const input = h('div', {
    class: 'composer-input', contenteditable: 'true', role: 'combobox', 'aria-expanded': 'false',
    'aria-autocomplete': 'list', 'aria-haspopup': 'listbox', 'aria-controls': listId,
    'aria-multiline': 'true', 'aria-label': 'Message. Type @ to tag documents, sets, actions or the web.',
    'data-placeholder': 'Ask about your regulations, or paste a text to check… type @ to tag documents, sets or an action',
    spellcheck: 'true',
  });
  const list = h('div', { class: 'mention-list', id: listId, role: 'listbox', 'aria-label': 'Suggestions', hidden: true });
  const warning = h('p', { class: 'composer-warning', role: 'alert', hidden: true });
  const counter = h('span', { class: 'composer-count', 'aria-live': 'polite', hidden: true });
  const send = h('button', { type: 'button', class: 'btn primary send', 'aria-label': 'Send message' }, 'Send ', icon('send'));
  const element = h('div', { class: 'composer' }, list, warning,
    h('div', { class: 'composer-row' }, input, h('div', { class: 'composer-side' }, send, counter)));

  let items = [];
  let active = -1;
  let trigger = null; // { node, start, end } of the "@query" being typed
  let busy = false;
  let notice = ''; // a refusal of the last send, shown until the text changes

  function pills() {
    return [...input.querySelectorAll('.pill')];
  }

  function collect() {
    const docs = [];
    const sets = [];
    let action = null;
    let web = false;
    let message = '';
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) message += child.textContent;
        else if (child.classList && child.classList.contains('pill')) {
          const { kind, id } = child.dataset;
          if (kind === 'doc') { docs.push(id); message += `@[${child.dataset.label}]`; }
          else if (kind === 'set') { sets.push(id); message += `@[${child.dataset.label}]`; }
          else if (kind === 'action') action = id;
          else if (kind === 'web') web = true;
        } else if (child.nodeName === 'BR') message += '\n';
        else if (child.nodeName === 'DIV' || child.nodeName === 'P') { message += '\n'; walk(child); }
        else walk(child);
      }
    };
    walk(input);
    return {
      message: message.replace(/\u00a0/g, ' ').replace(/[ \t]+/g, ' ').trim(),
      tagged_doc_ids: [...new Set(docs)], tagged_set_ids: [...new Set(sets)], action,
      enable_web_search: web,
    };
  }

  function checkLimit() {
    const count = new Set(pills().filter((p) => p.dataset.kind === 'doc').map((p) => p.dataset.id)).size;
    const tooMany = count > MAX_DOCUMENTS;
    const chars = collect().message.length;
    const tooLong = chars > MAX_CHARS;
    counter.hidden = chars < MAX_CHARS * COUNT_FROM;
    counter.textContent = `${chars.toLocaleString('en-US')} / ${MAX_CHARS.toLocaleString('en-US')}`;
    counter.classList.toggle('over', tooLong);
    let text = notice;
    if (tooMany) text = `Max ${MAX_DOCUMENTS} documents per query (${count} tagged). Remove some to send.`;
    else if (tooLong) {
      text = `Your message is ${chars.toLocaleString('en-US')} characters; the limit is `
        + `${MAX_CHARS.toLocaleString('en-US')}. Shorten it, or upload long text as a document `
        + '(Documents tab, +) and tag it with @.';
    }
    warning.hidden = !text;
    warning.textContent = text;
    send.disabled = busy || tooMany || tooLong;
    return !tooMany && !tooLong;
  }

  /** Shows why the last send was refused (kept until the user edits the text). */
  function refuse(text) {
    notice = text;
    checkLimit();
  }

  function suggestions(query) {
    const q = query.toLowerCase();
    const documents = getDocuments().filter((d) => d.status === 'ready')
      .map((d) => ({ d, rank: matchRank(q, d.title, d.version) })).filter((m) => m.rank < NO_MATCH)
      .sort((a, b) => a.rank - b.rank || a.d.title.localeCompare(b.d.title)).slice(0, 8)
      .map(({ d }) => ({ kind: 'doc', id: d.id, label: d.title, version: d.version, docType: d.doc_type,
        colour: d.set ? d.set.colour : null, hint: [d.version, DOC_TYPE_LABELS[d.doc_type]].filter(Boolean).join(' · ') }));
    const sets = getSets().map((x) => ({ x, rank: matchRank(q, x.name) })).filter((m) => m.rank < NO_MATCH)
      .sort((a, b) => a.rank - b.rank || a.x.name.localeCompare(b.x.name))
      .map(({ x }) => ({ kind: 'set', id: x.id, label: x.name, colour: x.colour, hint: `${x.document_count ?? ''} document(s)` }));
    const out = [];
    for (const a of ACTIONS) if (!q || a.id.startsWith(q) || a.label.toLowerCase().includes(q)) out.push({ kind: 'action', id: a.id, label: a.label, hint: a.hint });
    // Typed letters name a document more often than a set ("@Falcon" is the Falcon policy,
    // not the Falcon set): documents come first once something is typed.
    if (q) out.push(...documents, ...sets);
    else out.push(...sets, ...documents);
    if (!q || 'web search'.includes(q) || q.startsWith('web')) {
      if (webSearch) out.push({ kind: 'web', id: 'web', label: 'Web search', hint: 'Also search the web' });
      else if (q) {
        out.push({ kind: 'web', id: 'web', label: 'Web search is not set up', disabled: true,
          hint: 'An administrator turns it on with REGINTEL_WEB_SEARCH__TAVILY_API_KEY' });
      }
    }
    return out;
  }

  function close() {
    list.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    items = [];
    active = -1;
    trigger = null;
  }

  function highlight(index) {
    const options = list.querySelectorAll('[role="option"]');
    options.forEach((o, i) => o.setAttribute('aria-selected', i === index ? 'true' : 'false'));
    active = index;
    if (options[index]) {
      input.setAttribute('aria-activedescendant', options[index].id);
      options[index].scrollIntoView({ block: 'nearest' });
    }
  }

  function open(query) {
    items = suggestions(query);
    clear(list);
    let section = null;
    items.forEach((item, index) => {
      if (item.kind !== section) {
        section = item.kind;
        list.append(h('div', { class: 'mention-section', role: 'presentation' }, icon(ICONS[section]), ` ${SECTION_TITLES[section]}`));
      }
      const option = h('div', { id: `${listId}-${index}`, role: 'option', class: `mention-option kind-${item.kind}`, 'aria-selected': 'false', 'aria-disabled': item.disabled ? 'true' : null },
        h('span', { class: 'mention-label' }, item.label), item.hint ? h('span', { class: 'mention-hint' }, item.hint) : null);
      if (item.colour) option.style.setProperty('--set-colour', item.colour);
      if (item.docType) option.classList.add(`type-${item.docType}`);
      option.addEventListener('mousedown', (event) => {
        event.preventDefault(); // keep the caret in the input
        choose(index);
      });
      list.append(option);
    });
    if (!items.length) list.append(h('div', { class: 'mention-empty' }, 'No matches'));
    list.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    highlight(items.length ? 0 : -1);
  }

  function detect() {
    const selection = window.getSelection();
    if (!selection || !selection.rangeCount || !selection.isCollapsed) return close();
    const { anchorNode, anchorOffset } = selection;
    if (!anchorNode || anchorNode.nodeType !== Node.TEXT_NODE || !input.contains(anchorNode)) return close();
    const before = anchorNode.textContent.slice(0, anchorOffset);
    const match = before.match(/(?:^|[\s\u00a0(])@([^\s@\u00a0]{0,40})$/);
    if (!match) return close();
    trigger = { node: anchorNode, start: anchorOffset - match[1].length - 1, end: anchorOffset };
    open(match[1]);
  }

  function pillFor(item) {
    const pill = h('span', {
      class: `pill kind-${item.kind}${item.docType ? ` type-${item.docType}` : ''}`, contenteditable: 'false',
      dataset: { kind: item.kind, id: item.id, label: item.label },
      'data-doc-id': item.kind === 'doc' ? item.id : null, 'data-set-id': item.kind === 'set' ? item.id : null,
    }, icon(ICONS[item.kind]), ` ${titled(item.label, item.version)}`);
    if (item.colour) pill.style.setProperty('--set-colour', item.colour);
    return pill;
  }

  function insertPill(item, range) {
    if (item.kind === 'action') pills().filter((p) => p.dataset.kind === 'action').forEach((p) => p.remove());
    const pill = pillFor(item);
    const space = document.createTextNode('\u00a0');
    range.deleteContents();
    range.insertNode(space);
    range.insertNode(pill);
    const selection = window.getSelection();
    const after = document.createRange();
    after.setStartAfter(space);
    after.collapse(true);
    selection.removeAllRanges();
    selection.addRange(after);
    checkLimit();
  }

  function choose(index) {
    const item = items[index];
    if (!item || !trigger || item.disabled) return;
    const range = document.createRange();
    range.setStart(trigger.node, trigger.start);
    range.setEnd(trigger.node, Math.min(trigger.end, trigger.node.textContent.length));
    close();
    insertPill(item, range);
    input.focus();
  }

  /** Add a pill at the end (e.g. from the document library's "Ask about it"). */
  function insertMention(item) {
    input.focus();
    const range = document.createRange();
    range.selectNodeContents(input);
    range.collapse(false);
    insertPill(item, range);
  }

  function submit() {
    if (busy || !checkLimit()) return;
    const payload = collect();
    if (!payload.message && !payload.action) {
      refuse('Type a question first, or type @ to pick an action or a document.');
      input.focus();
      return;
    }
    refuse('');
    onSend(payload);
  }

  input.addEventListener('input', () => {
    notice = '';
    detect();
    checkLimit();
  });
  input.addEventListener('click', detect);
  input.addEventListener('blur', () => setTimeout(() => { if (document.activeElement !== input) close(); }, 100));
  input.addEventListener('keydown', (event) => {
    if (!list.hidden && items.length) {
      if (event.key === 'ArrowDown') { event.preventDefault(); highlight((active + 1) % items.length); return; }
      if (event.key === 'ArrowUp') { event.preventDefault(); highlight((active - 1 + items.length) % items.length); return; }
      if (event.key === 'Enter' || event.key === 'Tab') { event.preventDefault(); choose(active < 0 ? 0 : active); return; }
    }
    if (event.key === 'Escape' && !list.hidden) { event.preventDefault(); close(); return; }
    if (event.key === 'Enter' && !event.shiftKey) { event.preventDefault(); submit(); }
  });
  input.addEventListener('keyup', (event) => {
    if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) detect();
  });
  input.addEventListener('paste', (event) => {
    // Plain text only: pasted HTML must not bring markup (or fake pills) into the input.
    event.preventDefault();
    const text = (event.clipboardData || window.clipboardData).getData('text/plain');
    const selection = window.getSelection();
    if (!selection.rangeCount) return;
    const range = selection.getRangeAt(0);
    range.deleteContents();
    const node = document.createTextNode(text);
    range.insertNode(node);
    notice = '';
    range.setStartAfter(node);
    range.collapse(true);
    selection.removeAllRanges();
    selection.addRange(range);
    checkLimit();
  });
  send.addEventListener('click', submit);

  return {
    element,
    focus: () => input.focus(),
    setBusy(value) {
      busy = value;
      input.setAttribute('aria-busy', value ? 'true' : 'false');
      checkLimit();
    },
    clear() {
      clear(input);
      close();
      notice = '';
      checkLimit();
    },
    refuse,
    insertMention,
  };
}
