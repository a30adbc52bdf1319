// How a review row reads: what the engine proved (a finding), what it only proposes (shown as
// a proposal, never as a verdict), and what the officer decided.
import { h } from '../dom.js';

export const DECISIONS = [
  ['met', 'Met'], ['partly_met', 'Partly met'], ['gap', 'Gap'], ['not_applicable', 'Not applicable'],
];

export const STATUSES = [
  ['finding', 'Finding'], ['review', 'To review'], ['likely_met', 'Proposed: likely met'],
  ['not_applicable', 'Not applicable'],
];

// A proposal as words; "unclear" is the engine saying it cannot tell.
const PROPOSALS = {
  contradicted: 'Proposed: likely contradicted', missing: 'Proposed: likely missing',
  unclear: 'Unclear', met: 'Proposed: likely met',
};
// The filter's words for them (its label says "Proposed").
export const PROPOSED = [['contradicted', 'Likely contradicted'], ['missing', 'Likely missing'],
  ['unclear', 'Unclear'], ['met', 'Likely met']];

export function decisionLabel(decision) {
  const found = DECISIONS.find(([value]) => value === decision);
  return found ? found[1] : String(decision || '');
}

/** A row is decided when its decision stands (a carried one that reopened does not). */
export const isDecided = (row) => Boolean(row.decision) && !row.reopened;

function proposer(row) {
  const by = String(row.proposed_by || 'engine');
  return by === 'engine' ? 'the engine' : by.replace(/^model:\s*/, 'the model ');
}

/** The engine's status of a row: a finding reads as proven, anything else as a proposal. */
export function statusBadge(row) {
  if (row.review === 'finding') {
    const what = row.proposed === 'contradicted' ? 'contradicted' : 'missing';
    return h('span', { class: 'badge rv rv-finding', title: 'Proven by the engine' }, `Finding · ${what}`);
  }
  if (row.review === 'not_applicable') {
    return h('span', { class: 'badge rv rv-na', title: 'The obligation binds another kind of party' }, 'Not applicable');
  }
  const proposal = row.review === 'likely_met' ? 'met' : row.proposed;
  return h('span', {
    class: `badge rv rv-proposal rv-${proposal}`,
    title: `A proposal by ${proposer(row)}, not a decision`,
  }, PROPOSALS[proposal] || 'Unclear');
}

/** The officer's decision on a row; a carried decision that reopened says so. */
export function decisionBadge(row) {
  if (row.reopened) {
    return h('span', { class: 'badge dc dc-reopened', title: `Reopened: ${row.reopened}` }, 'Reopened');
  }
  if (!row.decision) return h('span', { class: 'dc-none' }, h('span', { 'aria-hidden': 'true' }, '—'), h('span', { class: 'sr-only' }, 'Undecided'));
  const d = row.decision;
  return h('span', { class: `badge dc dc-${d.decision}`, title: d.decided_by_name ? `By ${d.decided_by_name}` : null }, decisionLabel(d.decision));
}

// A row's score is its priority, as the exports' Score column: it orders the queue.
export const SCORE_TIP = 'How likely the row is a gap, as the engine reads it (it orders the queue)';

export function scoreText(score) {
  return typeof score === 'number' ? score.toFixed(2) : '—';
}

/** "43 of 137 reviewed · 2 findings · 12 open" (and the reopened ones, when there are any).
 * The findings are the engine's proven ones no decision overruled and the rows the officer
 * decided a gap or partly met - the count the exports' sign-off block gives. */
export function progressText(p) {
  const parts = [`${p.decided} of ${p.total} reviewed`,
    `${p.findings} finding${p.findings === 1 ? '' : 's'}`, `${p.open} open`];
  if (p.reopened) parts.push(`${p.reopened} reopened`);
  return parts.join(' · ');
}
