// Rendering of chat messages: answers with inline citation markers, confidence, prompts for
// pending questions, audit findings, comparison tables, summaries and the cost line.
import { get } from '../api.js';
import { h, safeUrl, shownQuote } from '../dom.js';
import { icon } from '../icons.js';
import { withTooltip } from './tooltip.js';
import { findingWork } from './findingwork.js';
import { reviewApi, reviewPage } from '../review/paths.js';

const SEVERITIES = ['Critical', 'High', 'Medium', 'Low'];
const MEDIUM_TIP = 'Medium confidence—further investigation suggested';
const OPTION_ICONS = { tag_documents: 'document', search_web: 'globe', web: 'globe' };

function domainOf(url) {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

// Between the headings of a citation's section path ("PART 3 › Chapter 14 › 14.2 …").
const SECTION_SEPARATOR = ' › ';

function namesClause(heading, clause) {
  return heading === clause || [' ', '.', '\t'].some((end) => heading.startsWith(clause + end));
}

/** Where a document citation's quote is: "page 12 · clause 8.1.1" in a PDF; in a document
 * without pages (text, Markdown, HTML, DOCX) its clause, its heading and its lines:
 * "§ 14.2 Internal reporting · lines 812–815" (as Citation.location says in Python). */
export function citationPlace(c) {
  if (c.page) return [`page ${c.page}`, c.clause ? `clause ${c.clause}` : ''].filter(Boolean).join(' · ');
  const heading = c.section ? c.section.split(SECTION_SEPARATOR).pop() : '';
  // The heading alone when it is the clause's own ("14.2 Internal reporting").
  const named = heading && c.clause && namesClause(heading, c.clause)
    ? [heading] : [c.clause, heading].filter(Boolean);
  const parts = named.length ? [`§ ${named.join(' · ')}`] : [];
  if (c.lines) {
    parts.push(c.lines.start === c.lines.end ? `line ${c.lines.start}` : `lines ${c.lines.start}–${c.lines.end}`);
  }
  return parts.join(' · ');
}

export function citationMeta(c) {
  if (c.source_type === 'web') return domainOf(c.url || '');
  return [c.version ? `Version ${c.version}` : '', citationPlace(c)].filter(Boolean).join(' · ');
}

function citationTip(c) {
  // The whole section path under the place, when the heading shown has headings above it.
  const path = c.source_type !== 'web' && c.section && c.section.includes(SECTION_SEPARATOR) ? c.section : '';
  return () => [
    h('strong', { class: 'tip-title' }, c.title || 'Untitled source'),
    citationMeta(c) ? h('span', { class: 'tip-meta' }, citationMeta(c), path ? [h('br'), path] : null) : null,
    c.quote ? h('q', { class: 'tip-quote' }, shownQuote(c.quote)) : null,
  ];
}

/** Where a finding's rule is: its citation's place when the target document has no pages
 * (its target_page is only where offsets count from), else the clause and page as before. */
function findingPlace(f, citations) {
  const cited = (citations || []).find((c) => (f.citations || []).includes(c.n)
    && c.document_id === f.target_doc_id);
  if (cited && !cited.page) return citationPlace(cited) ? ` ${citationPlace(cited)}` : '';
  return [f.target_clause ? ` ${f.target_clause}` : '', f.target_page ? ` · page ${f.target_page}` : ''].join('');
}

/** The document/web marker of citation `c`; ctx.onCite(c) opens it in the Sources panel. */
export function citationMarker(c, ctx) {
  const web = c.source_type === 'web';
  const button = h('button', {
    type: 'button', class: `cite ${web ? 'web' : 'doc'}`, dataset: { n: c.n },
    'aria-label': `Source ${c.n}: ${c.title || ''}${web ? ' (opens the web page)' : ''}`,
  }, icon(web ? 'globe' : 'document'), h('sup', {}, String(c.n)));
  withTooltip(button, citationTip(c));
  button.addEventListener('click', () => {
    ctx.onCite(c);
    const url = web ? safeUrl(c.url) : null;
    if (url) window.open(url, '_blank', 'noopener,noreferrer');
  });
  return button;
}

// A project answer's entity references ("[task:<uuid>] Title"): the title is what a reader
// needs; the id is for machines (the API keeps it).
const ENTITY_REF = /\[[a-z_]+:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\]\s?/g;

/** The marker of citation n while its answer streams in: drawn as the final one is (its
 * citations arrive with the finished answer), so the text does not move when it lands. */
function pendingMarker(n) {
  return h('span', { class: 'cite doc pending', 'aria-hidden': 'true' },
    icon('document'), h('sup', {}, String(n)));
}

/** Text with its [n] markers turned into citation buttons (everything else literal); while
 * the answer streams (ctx.pending), every marker is a placeholder. */
export function citedText(raw, citations, ctx) {
  const text = String(raw || '').replace(ENTITY_REF, '');
  const byN = new Map((citations || []).map((c) => [Number(c.n), c]));
  const pending = Boolean(ctx && ctx.pending);
  const nodes = [];
  let last = 0;
  const pattern = /\[(\d+)\]/g;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    const c = byN.get(Number(match[1]));
    if (!c && !pending) continue;
    if (match.index > last) nodes.push(text.slice(last, match.index));
    nodes.push(c ? citationMarker(c, ctx) : pendingMarker(match[1]));
    last = pattern.lastIndex;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

/** Answer text as blocks: "#" headings, "- " bullet lists (an indented "  - " bullet is an
 * item under the one before: a rule's list items under its lead-in), paragraphs (never HTML). */
export function paragraphs(text, citations, ctx) {
  const out = [];
  let para = [];
  let items = [];
  const flushPara = () => {
    if (para.length) out.push(h('p', {}, citedText(para.join('\n'), citations, ctx)));
    para = [];
  };
  // A bullet's indent (two spaces a level) nests it under the bullet before it: a rule's
  // list under its lead-in, and an item's own list ("(b) … including:" then "(i) …").
  const render = (nodes) => h('ul', {}, nodes.map((i) => h('li', {}, citedText(i.text, citations, ctx),
    i.children.length ? render(i.children) : null)));
  const flushList = () => {
    if (items.length) out.push(render(items));
    items = [];
  };
  const place = (depth, text) => {
    let siblings = items;
    for (let level = 0; level < depth && siblings.length; level += 1) {
      siblings = siblings[siblings.length - 1].children;
    }
    siblings.push({ text, children: [] });
  };
  for (const line of String(text || '').split('\n')) {
    const heading = line.match(/^#{1,4}\s+(.*)$/);
    const bullet = line.match(/^(\s*)[-•*]\s+(.*)$/);
    if (!line.trim()) {
      flushPara();
      flushList();
    } else if (heading) {
      flushPara();
      flushList();
      out.push(h('h4', { class: 'answer-heading' }, citedText(heading[1].replace(/\*\*/g, ''), citations, ctx)));
    } else if (bullet) {
      flushPara();
      place(Math.floor(bullet[1].length / 2), bullet[2]);
    } else {
      flushList();
      para.push(line);
    }
  }
  flushPara();
  flushList();
  return out;
}

function markersFor(numbers, citations, ctx) {
  const byN = new Map((citations || []).map((c) => [Number(c.n), c]));
  return (numbers || []).map((n) => byN.get(Number(n))).filter(Boolean)
    .map((c) => citationMarker(c, ctx));
}

function statement(s, citations, ctx) {
  return h('li', {}, citedText(s.text || '', citations, ctx), ' ', markersFor(s.citations, citations, ctx));
}

export function confidenceBadge(confidence) {
  if (!confidence) return null;
  const score = typeof confidence.score === 'number' ? ` (${Math.round(confidence.score * 100)}%)` : '';
  if (confidence.tier === 'high') {
    return h('span', { class: 'badge conf high', title: `High confidence${score}` }, icon('check'), ' High confidence');
  }
  if (confidence.tier === 'medium') {
    const badge = h('span', { class: 'badge conf medium', tabindex: 0, 'aria-label': MEDIUM_TIP }, icon('warning'), ' Medium confidence');
    return withTooltip(badge, () => [MEDIUM_TIP, score]);
  }
  return h('span', { class: 'badge conf low', title: `Low confidence${score}` }, icon('alert'), ' Low confidence — shown with a disclaimer');
}

// Which engine wrote the answer, and with which model: "llm+fallback" names the steps that
// fell back to the offline engine.
export function engineBadge(meta) {
  const engine = meta.engine || 'offline';
  const models = ((meta.context && meta.context.models) || []).join(', ');
  const fallbacks = (meta.context && meta.context.fallbacks) || [];
  if (engine === 'offline') {
    return h('span', { class: 'badge engine offline', 'data-engine': engine }, 'Offline engine');
  }
  // The answer step itself fell back: the words are the offline engine's, and the badge says
  // so (a step around it falling back leaves the model's answer).
  if (meta.context && meta.context.answered_by === 'offline') {
    return h('span', { class: 'badge engine fallback', 'data-engine': engine,
      'data-answered-by': 'offline', title: `Fell back: ${fallbacks.join('; ')}` },
    `Offline engine · ${models || 'the model'} did not answer`);
  }
  const label = engine === 'llm+fallback'
    ? `Model ${models} + offline fallback` : `Model ${models}`;
  const title = fallbacks.length ? `Fell back: ${fallbacks.join('; ')}` : `Answered by ${models}`;
  return h('span', { class: `badge engine ${engine === 'llm' ? 'llm' : 'fallback'}`,
    'data-engine': engine, title }, label);
}

export function costLine(usage, engine) {
  if (!usage) return null;
  const tokens = (usage.input_tokens || 0) + (usage.output_tokens || 0);
  // The offline engine calls no model: say so rather than "0 tokens · $0.000" on every answer.
  if (engine === 'offline' && tokens === 0) {
    return h('div', { class: 'cost', title: 'Answered by the offline engine: no model was called' },
      icon('coin'), ' Offline engine · no model cost');
  }
  const cost = Number(usage.cost_usd || 0);
  const dollars = cost > 0 && cost < 0.001 ? cost.toFixed(5) : cost.toFixed(3);
  return h('div', { class: 'cost', title: `${usage.input_tokens || 0} in · ${usage.output_tokens || 0} out` },
    icon('coin'), ` ${tokens.toLocaleString('en-US')} tokens · $${dollars}`);
}

function severityBadge(severity) {
  return h('span', { class: `badge sev sev-${String(severity).toLowerCase()}` }, severity);
}

const EXPORTS = [['xlsx', 'Excel'], ['docx', 'Word'], ['csv', 'CSV']];

/** Download links for the thread's latest audit (GET …/audit/export: the session cookie
 * authorises a plain link, and the server names the file). */
function auditExport(threadId) {
  if (!threadId) return null;
  const base = `/api/conversations/${encodeURIComponent(threadId)}/audit/export?format=`;
  return h('div', { class: 'audit-export', role: 'group', 'aria-label': 'Export the audit report' },
    h('span', { class: 'muted' }, 'Export report:'),
    EXPORTS.map(([format, label]) => h('a', {
      class: 'btn small ghost', href: base + format, download: true,
      title: `Summary, findings by severity and the full matrix with citations (${label})`,
    }, label)));
}

/** The audit's review screen, once the audit has rows to review (a coverage matrix): "Review
 * all N rows". meta.review is its progress when the caller has it (a reopened conversation
 * loads it first, so the answer does not change under the reader); otherwise it is asked for,
 * and the link shows when it arrives. The message id: the stored message's, else the one the
 * turn reports (context.exchange_id), else the conversation's latest audit. */
function reviewLink(meta) {
  if (!meta.thread_id || meta.review === null) return null;
  const messageId = meta.message_id || (meta.context && meta.context.exchange_id) || 'latest';
  const link = h('a', {
    class: 'btn small primary review-link', href: reviewPage(meta.thread_id, messageId),
    'data-nav': true, hidden: true,
  });
  const show = (progress) => {
    if (!progress || !progress.total) return;
    link.textContent = `Review all ${progress.total} rows`;
    link.title = `${progress.decided} of ${progress.total} reviewed`;
    link.hidden = false;
  };
  if (meta.review) show(meta.review);
  else get(reviewApi(meta.thread_id, messageId)).then((r) => show(r.progress)).catch(() => {});
  return link;
}

// Severities shown open; the lower ones start collapsed under their heading.
const OPEN_SEVERITIES = new Set(['Critical', 'High']);

/** A finding's consequence as its own part and its shared part: "The policy does not provide
 * for X 4.3" and "non-compliance may lead to …" (split at the first "; "). */
function consequenceParts(text) {
  const t = String(text || '');
  const at = t.indexOf('; ');
  return at < 0 ? { own: t, shared: '' } : { own: `${t.slice(0, at)}.`, shared: t.slice(at + 2) };
}

function findingItem(f, audit, meta, ctx, shared) {
  const parts = consequenceParts(f.consequence);
  // The part every finding of its severity shares is said once, in the group's heading.
  const own = shared && parts.shared === shared ? parts.own : f.consequence;
  return h('li', { class: `finding sev-${String(f.severity).toLowerCase()}`, dataset: { kind: f.kind, doc: f.target_doc_id || f.target_doc_title } },
    h('div', { class: 'finding-head' }, severityBadge(f.severity),
      h('span', { class: 'chip' }, f.kind === 'conflict' ? 'Conflict' : 'Gap'),
      f.theme ? h('span', { class: 'finding-theme' }, f.theme) : null,
      h('span', { class: 'finding-doc' }, f.target_doc_title),
      markersFor(f.citations, meta.citations, ctx)),
    own ? h('p', { class: 'consequence' }, own) : null,
    f.target_quote ? h('blockquote', {}, shownQuote(f.target_quote),
      findingPlace(f, meta.citations) ? h('cite', {}, findingPlace(f, meta.citations)) : null) : null,
    f.source_quote ? h('p', { class: 'muted' }, audit.mode === 'text' ? 'Text says: ' : 'Policy says: ', h('q', {}, shownQuote(f.source_quote))) : null,
    f.suggestion ? h('p', { class: 'suggestion' }, h('strong', {}, 'Suggested fix: '), f.suggestion) : null,
    findingWork(f, meta.citations));
}

function select(label, options, onChange) {
  const el = h('select', { 'aria-label': label }, options.map(([value, text]) => h('option', { value }, text)));
  el.addEventListener('change', onChange);
  return h('label', { class: 'audit-filter' }, h('span', {}, label), el);
}

/** An audit: its verdict, then its findings by severity (Critical and High open, Medium and
 * Low collapsed), each severity's shared consequence said once, and filters by severity, kind
 * and regulation. The toolbar is where other actions on the audit (an export) can sit. */
function auditView(audit, meta, ctx) {
  const findings = audit.findings || [];
  // A text no rule matched was not checked at all: its badge must not read "No issues found".
  const flagged = audit.flagged || [];
  const unchecked = audit.mode === 'text' && !findings.length && !flagged.length
    && !(audit.rules_checked || []).length;
  const status = unchecked ? 'Nothing checked' : audit.overall_status;
  const statusClass = unchecked ? 'minor'
    : { 'No issues found': 'ok', 'Minor Issues': 'minor', 'Major Violations': 'major',
      'Review needed': 'minor' }[audit.overall_status] || '';
  const docs = new Map();
  for (const f of findings) docs.set(f.target_doc_id || f.target_doc_title, f.target_doc_title);
  const groups = SEVERITIES.map((severity) => {
    const mine = findings.filter((f) => f.severity === severity);
    if (!mine.length) return null;
    const tails = new Set(mine.map((f) => consequenceParts(f.consequence).shared));
    const shared = mine.length > 1 && tails.size === 1 ? [...tails][0] : '';
    const items = mine.map((f) => findingItem(f, audit, meta, ctx, shared));
    const count = h('span', { class: 'sev-count' }, `${mine.length} finding${mine.length === 1 ? '' : 's'}`);
    const group = h('details', { class: `sev-group sev-${severity.toLowerCase()}`, open: OPEN_SEVERITIES.has(severity), dataset: { severity } },
      h('summary', {}, severityBadge(severity), ' ', count),
      shared ? h('p', { class: 'sev-consequence' }, `For each: ${shared[0].toUpperCase()}${shared.slice(1)}`) : null,
      h('ol', { class: 'findings' }, items));
    return { severity, group, items, count };
  }).filter(Boolean);

  const filters = { severity: '', kind: '', doc: '' };
  const shownCount = h('span', { class: 'muted audit-shown', 'aria-live': 'polite' });
  function apply() {
    let shown = 0;
    for (const g of groups) {
      let inGroup = 0;
      for (const item of g.items) {
        const f = item.dataset;
        const visible = (!filters.kind || f.kind === filters.kind) && (!filters.doc || f.doc === filters.doc);
        item.hidden = !visible;
        if (visible) inGroup += 1;
      }
      g.group.hidden = !inGroup || (filters.severity && g.severity !== filters.severity);
      if (filters.severity === g.severity) g.group.open = true;
      g.count.textContent = `${inGroup} finding${inGroup === 1 ? '' : 's'}`;
      if (!g.group.hidden) shown += inGroup;
    }
    shownCount.textContent = shown === findings.length ? '' : `Showing ${shown} of ${findings.length}`;
  }
  const toolbar = findings.length > 1 ? h('div', { class: 'audit-toolbar', role: 'toolbar', 'aria-label': 'Audit findings' },
    select('Severity', [['', 'All severities'], ...groups.map((g) => [g.severity, `${g.severity} (${g.items.length})`])],
      (e) => { filters.severity = e.target.value; apply(); }),
    select('Kind', [['', 'Gaps and conflicts'], ['gap', 'Gaps'], ['conflict', 'Conflicts']],
      (e) => { filters.kind = e.target.value; apply(); }),
    docs.size > 1 ? select('Regulation', [['', 'All regulations'], ...docs.entries()],
      (e) => { filters.doc = e.target.value; apply(); }) : null,
    shownCount) : null;

  return h('section', { class: 'audit', 'aria-label': 'Audit results' },
    h('header', { class: 'audit-head' },
      h('span', { class: `badge status ${statusClass}` }, status),
      h('span', { class: 'muted' }, `${audit.targets_checked} target(s) checked · ${findings.length} finding(s)`
        + (docs.size === 1 ? ` · ${[...docs.values()][0]}` : '')),
      reviewLink(meta), auditExport(meta.thread_id)),
    audit.summary ? h('p', {}, citedText(audit.summary, meta.citations, ctx)) : null,
    toolbar,
    groups.map((g) => g.group),
    flaggedView(flagged));
}

/** A checked text's sentences that propose not doing, delaying, hiding, deleting or altering
 * something, each with the rules closest to what it proposes: flags to weigh, not findings. */
function flaggedView(flagged) {
  if (!flagged.length) return null;
  return h('section', { class: 'flagged', 'aria-label': 'Sentences to check' },
    h('h4', {}, `Sentences to check (${flagged.length})`),
    h('p', { class: 'muted' }, 'Each proposes not doing, delaying, hiding, deleting or altering '
      + 'something. The rules closest to what it proposes are listed for you to weigh: a flag, not a finding.'),
    h('ol', { class: 'flagged-list' }, flagged.map((f) => h('li', { class: 'flagged-item' },
      h('p', {}, h('q', {}, f.sentence), ' ', h('span', { class: 'chip warn' }, f.cue)),
      h('ul', { class: 'flagged-rules' }, (f.rules || []).map((r) => h('li', {},
        h('strong', {}, `${r.target_doc_title} ${r.rule || ''}`.trim()), ': ',
        h('q', { class: 'muted' }, r.quote))))))));
}

function comparisonView(comparison, meta, ctx) {
  const titles = new Map((meta.resolved_documents || []).map((d) => [d.id, d.title]));
  const columns = [];
  for (const row of comparison.table || []) {
    for (const cell of row.cells) if (!columns.includes(cell.document_id)) columns.push(cell.document_id);
  }
  const list = (label, items) => (items && items.length
    ? [h('h4', {}, label), h('ul', {}, items.map((s) => statement(s, meta.citations, ctx)))] : null);
  return h('section', { class: 'comparison', 'aria-label': 'Comparison' },
    comparison.topic ? h('p', { class: 'muted' }, `Focus: ${comparison.topic}`) : null,
    comparison.table && comparison.table.length ? h('div', { class: 'table-wrap' }, h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Aspect'),
        columns.map((id) => h('th', { scope: 'col' }, titles.get(id) || 'Document')))),
      h('tbody', {}, comparison.table.map((row) => h('tr', { class: row.differs ? 'differs' : '' },
        h('th', { scope: 'row' }, row.aspect, row.differs ? h('span', { class: 'chip warn' }, 'differs') : null),
        columns.map((id) => {
          const cell = row.cells.find((c) => c.document_id === id);
          return h('td', {}, cell ? [cell.text, ' ', cell.citation ? markersFor([cell.citation], meta.citations, ctx) : null] : '—');
        })))))) : null,
    list('Differences', comparison.differences), list('Similarities', comparison.similarities),
    list('Implications', comparison.implications));
}

function summaryView(summary, meta, ctx) {
  return h('section', { class: 'summary', 'aria-label': 'Summary' },
    (summary.sections || []).map((s) => h('div', { class: 'summary-section' },
      h('h3', {}, s.title), s.overview ? h('p', {}, citedText(s.overview, meta.citations, ctx)) : null,
      s.coverage ? h('p', { class: 'summary-coverage' }, `Coverage: ${s.coverage}.`) : null,
      s.parts && s.parts.length
        ? h('ul', { class: 'summary-parts' }, s.parts.map((p) => h('li', {},
          h('strong', {}, p.heading), ' — ', citedText(p.statement.text || '', meta.citations, ctx),
          ' ', markersFor(p.statement.citations, meta.citations, ctx)))) : null,
      s.key_obligations && s.key_obligations.length
        ? [h('h4', {}, 'Key obligations'), h('ul', {}, s.key_obligations.map((o) => statement(o, meta.citations, ctx)))] : null)));
}

/** The question box of a paused turn; ctx.onResume(answer, label) continues it. */
function promptView(needs, ctx) {
  const buttons = [];
  const disableAll = () => buttons.forEach((b) => { b.disabled = true; });
  const choose = (answer, label, button) => {
    disableAll();
    button.classList.add('chosen');
    ctx.onResume(answer, label);
  };
  const option = (answer, label, cls = '', iconName = '') => {
    const button = h('button', { type: 'button', class: `btn ${cls}` },
      iconName ? [icon(iconName), ' '] : null, label);
    button.addEventListener('click', () => choose(answer, label, button));
    buttons.push(button);
    return button;
  };
  const withIcon = (o) => option(o.id, o.label, '', OPTION_ICONS[o.id] || '');
  const options = needs.options || [];
  let body;
  if (needs.kind === 'confirm_docs') {
    const docs = options.filter((o) => o.id !== 'all');
    body = [
      h('p', {}, needs.message),
      h('p', {}, 'I think you’re referring to:'),
      h('ul', {}, docs.map((o) => h('li', {}, o.label))),
      h('div', { class: 'prompt-actions' },
        docs.length === 1 ? option(docs[0].id, 'Yes, proceed', 'primary')
          : [docs.map((o) => option(o.id, `Use ${o.label}`, 'primary')),
            options.some((o) => o.id === 'all') ? option('all', 'Yes, all of these', 'primary') : null],
        option('No, let me specify', 'No, let me specify', 'ghost')),
    ];
  } else if (needs.kind === 'low_confidence' && ctx.hasDocuments && !ctx.hasDocuments()) {
    // Nothing to match against: say so, and how to add a document, rather than "no strong
    // matches" (the continue option still answers from what the workspace has).
    const go = options.find((o) => o.id === 'continue');
    const upload = h('button', { type: 'button', class: 'btn primary' }, icon('document'), ' Upload a document');
    upload.addEventListener('click', () => ctx.onUpload());
    body = [
      h('p', { class: 'prompt-title' }, icon('alert'), ' You have no documents yet.'),
      h('p', {}, 'Answers here are grounded in your own regulations and policies. Upload one (PDF, DOCX, HTML, Markdown or text) from the Documents tab, or with the button below, then ask again.'),
      h('div', { class: 'prompt-actions' }, upload,
        go ? option(go.id, 'Continue anyway with disclaimer', 'ghost') : null),
    ];
  } else if (needs.kind === 'low_confidence') {
    const main = options.filter((o) => o.id !== 'continue');
    const go = options.find((o) => o.id === 'continue');
    body = [
      h('p', { class: 'prompt-title' }, icon('alert'), ' I couldn’t find strong matches in the documents.'),
      h('p', {}, 'Would you like me to:'),
      h('div', { class: 'prompt-actions' }, main.map(withIcon)),
      go ? h('div', { class: 'prompt-actions' }, option(go.id, 'Continue anyway with disclaimer', 'ghost')) : null,
    ];
  } else {
    body = [
      h('p', {}, needs.message),
      h('div', { class: 'prompt-actions' }, options.map(withIcon)),
    ];
  }
  return h('div', { class: `prompt ${needs.kind}`, role: 'group', 'aria-label': 'The assistant needs your input' }, body);
}

function firstParagraph(text) {
  return String(text || '').split(/\n{2,}/)[0] || '';
}

/** The body of an assistant message from a `meta` event (or a stored answer). */
export function renderAnswer(meta, ctx, { live = true } = {}) {
  const parts = [];
  const structured = meta.audit || meta.comparison || meta.summary;
  const resolved = meta.resolved_documents || [];
  if (resolved.length) {
    parts.push(h('div', { class: 'resolved' }, 'Using: ', resolved.map((d) => h('span', { class: `chip how-${d.how}`, title: d.how }, d.title))));
  }
  if (meta.needs_input) {
    if (meta.needs_input.kind !== 'confirm_docs' && meta.needs_input.kind !== 'low_confidence') {
      parts.push(...paragraphs(meta.answer, meta.citations, ctx).filter((p) => p.textContent !== meta.needs_input.message));
    }
    parts.push(live ? promptView(meta.needs_input, ctx) : h('p', { class: 'muted' }, meta.needs_input.message));
  } else if (structured) {
    // The lead sentence of the answer, unless it is only a heading the view below repeats
    // (a summary's "## Title" over the same title).
    const lead = firstParagraph(meta.answer);
    if (!/^#{1,4}\s/.test(lead.trim())) parts.push(...paragraphs(lead, meta.citations, ctx));
    if (meta.audit) parts.push(auditView(meta.audit, meta, ctx));
    if (meta.comparison) parts.push(comparisonView(meta.comparison, meta, ctx));
    if (meta.summary) parts.push(summaryView(meta.summary, meta, ctx));
    parts.push(h('details', { class: 'full-text' }, h('summary', {}, 'Full answer as text'),
      paragraphs(meta.answer, meta.citations, ctx)));
  } else {
    parts.push(...paragraphs(meta.answer, meta.citations, ctx));
  }
  const notices = (meta.context && meta.context.notices) || [];
  if (Array.isArray(notices) && notices.length) {
    parts.push(h('ul', { class: 'notices' }, notices.map((n) => h('li', {}, String(n)))));
  }
  const footer = h('div', { class: 'msg-footer' },
    meta.needs_input ? null : confidenceBadge(meta.confidence), engineBadge(meta),
    costLine(meta.usage, meta.context && meta.context.answered_by === 'offline' ? 'offline' : meta.engine));
  if (footer.childNodes.length) parts.push(footer);
  return parts;
}
