// "Turn into task" from a review row: the row said as the audit finding the project route takes
// (POST /api/projects/{id}/work-from-finding), citing the regulation the obligation is in.
import { findingWork } from '../dashboard/findingwork.js';

const SEVERITIES = ['Critical', 'High', 'Medium', 'Low'];
const QUOTE_CHARS = 300; // a citation's quote is cut there, verbatim (MAX_QUOTE_CHARS)

/** Rows that become work: a finding the engine proved, or a row the officer decided a gap. */
export function becomesWork(row) {
  return row.review === 'finding' || Boolean(row.decision && !row.reopened && row.decision.decision === 'gap');
}

function finding(row) {
  const decided = row.decision && !row.reopened ? row.decision : null;
  const rule = row.rule || 'this rule';
  const policySays = (decided && decided.clause) || (row.proposed === 'contradicted' && row.candidates && row.candidates[0]
    ? row.candidates[0].quote : null);
  return {
    target_doc_id: row.regulation_id,
    target_doc_title: row.regulation_title,
    theme: row.part || null,
    kind: row.proposed === 'contradicted' ? 'conflict' : 'gap',
    severity: SEVERITIES.includes(row.severity) ? row.severity : 'Medium',
    consequence: row.reason || `The policy does not meet ${rule}.`,
    source_quote: policySays ? policySays.slice(0, QUOTE_CHARS) : null,
    target_quote: String(row.obligation || '').slice(0, QUOTE_CHARS),
    target_clause: row.rule || null,
    suggestion: row.fix || (decided && decided.note) || `Address ${rule} in the policy.`,
    // The engine's reading for its own findings; an officer's decision is certain.
    confidence_score: row.review === 'finding' ? Math.min(1, Math.max(0, Number(row.priority) || 0)) : 1,
    citations: [1],
  };
}

/** The "Turn into task" button and form for a row (null when the row is not a gap). */
export function rowWork(row) {
  if (!becomesWork(row) || !row.regulation_id) return null;
  const citations = [{
    n: 1, source_type: 'document', document_id: row.regulation_id, title: row.regulation_title,
    clause: row.rule || null, quote: String(row.obligation || '').slice(0, QUOTE_CHARS),
  }];
  return findingWork(finding(row), citations);
}
