// The document library (grouped by set, set colour and doc-type accents, status until ready,
// which version of a document is current) and the upload dialog with the spec's metadata,
// also for a new version of a document.
import { del, get, post } from '../api.js';
import { clear, h, newId, titled } from '../dom.js';
import { icon } from '../icons.js';
import { field, problemText } from '../screens/common.js';

const TYPE_LABELS = { regulation: 'Regulatory Source', policy: 'Company Policy' };
const STATUS_LABELS = { queued: 'Queued', processing: 'Processing…', ready: 'Ready', failed: 'Failed' };
const POLL_MS = 1500;

/** "about 3 min" / "about 40 s" / "under 10 s". */
function aboutTime(seconds) {
  if (seconds < 10) return 'under 10 s';
  if (seconds < 90) return `about ${Math.round(seconds / 10) * 10} s`;
  return `about ${Math.round(seconds / 60)} min`;
}

/** How far a processing document has got: a bar over its chunks embedded, and the time left
 * at the rate so far (from the record's chunks_embedded, chunks_total and
 * processing_started_at). Before its chunks are known: "Reading the file…". */
function progressOf(d) {
  const total = d.chunks_total || 0;
  const done = Math.min(d.chunks_embedded || 0, total);
  if (!total) return h('span', { class: 'doc-progress-text' }, 'Reading the file…');
  const percent = Math.floor((100 * done) / total);
  const started = d.processing_started_at ? Date.parse(d.processing_started_at) : NaN;
  const elapsed = (Date.now() - started) / 1000;
  const left = done > 0 && elapsed > 0 ? ((total - done) * elapsed) / done : NaN;
  const text = `${percent}% · ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} chunks`
    + (Number.isFinite(left) ? ` · ${aboutTime(left)} left` : '');
  return h('span', { class: 'doc-progress' },
    h('progress', { max: total, value: done, 'aria-label': `Embedding ${d.title}` }),
    h('span', { class: 'doc-progress-text' }, text));
}

export function displayTitle(d) {
  return titled(d.title, d.version);
}

/** Of a document with versions: "Current", "Superseded" or "In force from …" (none for a
 * document without versions, which is simply itself). */
function standingOf(d) {
  if (!d.family_id || d.status !== 'ready') return null;
  const today = new Date().toISOString().slice(0, 10);
  const [text, kind] = d.is_current ? ['Current version', 'current']
    : d.effective_date && d.effective_date > today ? [`In force from ${d.effective_date}`, 'pending']
      : ['Superseded', 'superseded'];
  return h('span', { class: `version-standing version-${kind}` }, text);
}

/**
 * createLibrary({ onChange, onAsk }) → { element, refresh, openUpload, documents(), sets(),
 * stop() }. onChange() runs after every load; onAsk(doc) tags a document in the chat input.
 */
export function createLibrary({ onChange, onAsk }) {
  let documents = [];
  let groups = [];
  let timer = null;
  let stopped = false;
  const list = h('div', { class: 'library', 'aria-live': 'polite' });

  function sets() {
    const counts = new Map();
    const found = new Map();
    for (const d of documents) {
      if (!d.set) continue;
      found.set(d.set.id, d.set);
      counts.set(d.set.id, (counts.get(d.set.id) || 0) + 1);
    }
    return [...found.values()].map((s) => ({ ...s, document_count: counts.get(s.id) }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  function card(d) {
    const status = h('span', { class: `status status-${d.status}`, title: d.status_reason || '' }, STATUS_LABELS[d.status] || d.status);
    const item = h('li', { class: `doc-card type-${d.doc_type}${d.set ? ' in-set' : ''}`, dataset: { docId: d.id } },
      h('div', { class: 'doc-main' },
        h('span', { class: 'doc-title' }, displayTitle(d)),
        h('span', { class: 'doc-meta' }, h('span', { class: `type-label type-${d.doc_type}` }, TYPE_LABELS[d.doc_type] || d.doc_type), status, standingOf(d),
          // A version with one before it: its change report (issue 48).
          d.family_id && d.supersedes_id && d.status === 'ready' ? h('a', {
            class: 'doc-changes', href: `/changes/${encodeURIComponent(d.id)}`, 'data-nav': true,
            'aria-label': `What changed in ${displayTitle(d)}`, title: 'What changed from the version before',
          }, 'What changed') : null),
        d.status === 'failed' && d.status_reason ? h('span', { class: 'doc-reason' }, d.status_reason) : null,
        d.status === 'processing' ? progressOf(d) : null),
      h('div', { class: 'doc-actions' },
        d.status === 'ready' ? h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Ask about ${d.title}`, title: 'Tag in the chat', onclick: () => onAsk(d) }, '@') : null,
        d.status === 'ready' ? h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Upload a new version of ${displayTitle(d)}`, title: 'Upload a new version', onclick: () => openUpload(d) }, icon('document')) : null,
        h('button', {
          type: 'button', class: 'icon-btn danger', 'aria-label': `Delete ${d.title}`, title: 'Delete',
          onclick: async () => {
            if (!window.confirm(`Delete “${d.title}”? Its chunks and file are removed.`)) return;
            await del(`/api/documents/${d.id}`).catch((e) => window.alert(problemText(e)));
            refresh();
          },
        }, icon('trash'))));
    if (d.set) item.style.setProperty('--set-colour', d.set.colour);
    return item;
  }

  function render() {
    clear(list);
    if (!documents.length) {
      list.append(h('div', { class: 'empty' }, h('p', {}, 'No documents yet.'),
        h('button', { type: 'button', class: 'btn primary', onclick: () => openUpload() }, 'Upload a document')));
      return;
    }
    const byId = new Map(documents.map((d) => [d.id, d]));
    for (const group of groups) {
      const section = h('section', { class: 'doc-group' },
        h('h3', { class: 'group-head' }, h('span', { class: 'swatch', 'aria-hidden': 'true' }),
          group.set ? group.set.name : 'No set (global)',
          h('span', { class: 'count' }, String(group.document_ids.length))),
        h('ul', { class: 'doc-list' }, group.document_ids.map((id) => byId.get(id)).filter(Boolean).map(card)));
      if (group.set) section.style.setProperty('--set-colour', group.set.colour);
      list.append(section);
    }
  }

  async function refresh() {
    clearTimeout(timer);
    try {
      const data = await get('/api/documents');
      documents = data.data;
      groups = data.groups;
      render();
      onChange();
    } catch (error) {
      clear(list).append(h('p', { class: 'form-error' }, problemText(error)));
    }
    if (!stopped && documents.some((d) => d.status === 'queued' || d.status === 'processing')) {
      timer = setTimeout(refresh, POLL_MS);
    }
  }

  /** The upload dialog; with ``base``, for a new version of that document (its title, type
   * and set are the document's; the label and the date it takes effect are asked). */
  function openUpload(base = null) {
    const fileInput = h('input', { type: 'file', name: 'file', required: true, accept: '.pdf,.docx,.html,.htm,.md,.txt,application/pdf' });
    const title = h('input', { name: 'title', required: true, maxlength: 300 });
    const version = h('input', { name: 'version', required: true, maxlength: 100, placeholder: 'e.g. 2024, Q1 2025' });
    const docType = h('select', { name: 'doc_type', required: true },
      h('option', { value: 'regulation' }, 'Regulatory Source'), h('option', { value: 'policy' }, 'Company Policy'));
    const effective = h('input', { type: 'date', name: 'effective' });
    const setsId = newId('sets');
    const setName = h('input', { name: 'set_name', maxlength: 100, list: setsId, autocomplete: 'off', placeholder: 'e.g. Bank Negara, ISO 27001, Internal' });
    const setOptions = h('datalist', { id: setsId }, sets().map((s) => h('option', { value: s.name })));
    if (base) {
      title.value = base.title;
      title.readOnly = true;
      docType.value = base.doc_type;
      docType.disabled = true;
    }
    setName.addEventListener('input', async () => {
      try {
        const found = await get(`/api/sets?q=${encodeURIComponent(setName.value)}`);
        clear(setOptions).append(...found.data.map((s) => h('option', { value: s.name })));
      } catch { /* the local list stays */ }
    });
    fileInput.addEventListener('change', () => {
      const file = fileInput.files[0];
      if (file && !title.value) title.value = file.name.replace(/\.[^.]+$/, '').replace(/[_-]+/g, ' ');
    });
    const status = h('p', { class: 'upload-status', role: 'status' });
    const submit = h('button', { type: 'submit', class: 'btn primary' }, 'Upload');
    const cancel = h('button', { type: 'button', class: 'btn ghost' }, 'Cancel');
    const heading = base ? 'Upload a new version' : 'Upload a document';
    const form = h('form', { class: 'upload-form', method: 'dialog' },
      h('h2', {}, heading),
      base ? h('p', { class: 'upload-note' }, `Of “${displayTitle(base)}”. Once ready, questions read the new version; the earlier one stays in the library.`) : null,
      field('File (PDF, DOCX, HTML, Markdown or text)', fileInput),
      field('Title', title),
      field(base ? 'New version / year' : 'Version / year', version),
      base ? field('In force from (optional)', effective, 'Blank: from now. A date in the future keeps the current version until then.') : null,
      field('Document type', docType, 'Gold accent: regulatory source · green accent: company policy.'),
      base ? null : field('Set (optional)', setName, 'Pick an existing set or type a new name; no set = global.'), base ? null : setOptions,
      status, h('div', { class: 'dialog-actions' }, cancel, submit));
    const dialog = h('dialog', { class: 'modal', 'aria-label': heading }, form);
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => dialog.remove());
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!fileInput.files.length) {
        status.textContent = 'Choose a file first.';
        return;
      }
      const body = new FormData();
      body.append('title', title.value);
      body.append('version', version.value);
      body.append('doc_type', docType.value);
      body.append('set_name', base ? '' : setName.value);
      if (base) {
        body.append('version_of', base.id);
        body.append('effective', effective.value);
      }
      body.append('file', fileInput.files[0]);
      submit.disabled = true;
      status.textContent = 'Uploading…';
      try {
        const result = await post('/api/documents', body);
        status.textContent = result.created ? 'Uploaded; processing.' : 'Already in the library.';
        dialog.close();
        refresh();
      } catch (error) {
        status.textContent = problemText(error);
      } finally {
        submit.disabled = false;
      }
    });
    document.body.append(dialog);
    dialog.showModal();
    fileInput.focus();
  }

  return {
    element: list,
    refresh,
    openUpload,
    documents: () => documents,
    sets,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
