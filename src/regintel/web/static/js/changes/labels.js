// How a change reads: its kind, whether it changes what the provision says (substantive) or
// only its form (editorial, and why), where it is, and the facts it changed.
import { h } from '../dom.js';

export const KINDS = [
  ['inserted', 'Inserted'], ['deleted', 'Deleted'], ['amended', 'Amended'], ['renumbered', 'Renumbered'],
  ['moved', 'Moved'], ['split', 'Split'], ['merged', 'Merged'],
];
const KIND_LABELS = Object.fromEntries(KINDS);
// Why an editorial change is only editorial, as the officer would say it.
const EDITORIAL = {
  spacing: 'spacing', punctuation: 'punctuation', capitalisation: 'capitalisation',
  'cross-reference': 'cross-reference renumbered', renumbering: 'renumbering',
};
// The kinds whose provision changed place or number: both labels are shown.
const RELABELLED = new Set(['renumbered', 'moved', 'split', 'merged']);

export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function kindLabel(kind) {
  return KIND_LABELS[kind] || String(kind || '');
}

export function kindBadge(kind) {
  return h('span', { class: `badge ck ck-${kind}` }, kindLabel(kind));
}

export function natureBadge(change) {
  if (change.substantive) {
    return h('span', { class: 'badge cn cn-substantive', title: 'It changes what the provision says' }, 'Substantive');
  }
  const why = EDITORIAL[change.editorial];
  return h('span', { class: 'badge cn cn-editorial', title: 'Only the form changed: decisions on it carry over' },
    why ? `Editorial (${why})` : 'Editorial');
}

// The report writes a preamble paragraph's label with a leading space (" ¶ 1.1.1 …").
const clean = (label) => String(label || '').trim();

/** "§ 478.11", or "§ 478.11 → § 478.12" for a provision renumbered, moved, split or merged. */
export function provisionText(change) {
  const old = clean(change.old_provision);
  const now = clean(change.new_provision);
  if (RELABELLED.has(change.kind) && old && now && old !== now) return `${old} → ${now}`;
  return now || old || change.section;
}

/** Where it is: its part, subpart… and section ("PART 1 › Rule 1.1"). */
export function placeText(change) {
  const path = [...(change.divisions || [])];
  if (change.section && change.section !== '(preamble)' && !path.includes(change.section)) path.push(change.section);
  return path.join(' › ');
}

const FACT_LABELS = { bound: 'Who is bound', approver: 'Who approves', force: 'Must or should', extent: 'All or a sample' };

function factLabel(kind) {
  const k = String(kind || 'fact');
  return FACT_LABELS[k] || `${k[0].toUpperCase()}${k.slice(1)}`;
}

/** "Period: at least six years → at least seven years", "Frequency removed: semi-annually". */
export function factText(fact) {
  if (fact.change === 'added') return `${factLabel(fact.kind)} added: ${fact.new}`;
  if (fact.change === 'removed') return `${factLabel(fact.kind)} removed: ${fact.old}`;
  return `${factLabel(fact.kind)}: ${fact.old} → ${fact.new}`;
}
