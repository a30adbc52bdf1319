// "Turn into task" from an impact: an obligation the new version altered, removed or added,
// said as the audit finding the project route takes (POST …/work-from-finding), citing the
// version that holds its words.
import { findingWork } from '../dashboard/findingwork.js';

const QUOTE_CHARS = 300; // a citation's quote is cut there, verbatim (MAX_QUOTE_CHARS)
const SUGGESTIONS = {
  altered: 'Review the policy against the amended obligation.',
  added: 'Review the policy against the new obligation.',
  removed: 'Review the policy where it relies on the removed obligation.',
};

/** The button and form for an impact (null for a renumbering or an editorial change).
 * docs: {old, new}, each {id, title, version, name} (name: the title with its version). */
export function impactWork(impact, docs) {
  const suggestion = SUGGESTIONS[impact.kind];
  if (!suggestion) return null;
  const removed = impact.kind === 'removed';
  const side = (removed ? impact.old : impact.new) || impact.old || impact.new;
  const doc = removed ? docs.old : docs.new;
  if (!side || !doc || !doc.id) return null;
  const quote = String(side.text || '').slice(0, QUOTE_CHARS);
  const clause = side.rule || impact.provision || null;
  const finding = {
    target_doc_id: doc.id,
    target_doc_title: doc.name,
    theme: side.section || null,
    kind: 'gap',
    severity: 'Medium',
    consequence: impact.summary,
    source_quote: null,
    target_quote: quote,
    target_clause: clause,
    suggestion,
    // The change is read from the two texts, not inferred.
    confidence_score: 1,
    citations: [1],
  };
  const citations = [{
    n: 1, source_type: 'document', document_id: doc.id, title: doc.title, version: doc.version || '', clause, quote,
  }];
  return findingWork(finding, citations);
}
