// A change's word-level redline from its ops (deleted words struck through, inserted ones
// underlined), every piece as text. Long unchanged runs are shortened around the edits, with
// a button for the whole text: a one-word change in a long section should not hide in it.
import { append, clear, h } from '../dom.js';

const KEEP = 90; // characters of an unchanged run kept beside an edit
const LONG = 2 * KEEP + 60;

/** An unchanged run as shown: whole, or its ends beside the edits around "…". */
function unchanged(text, { first, last }) {
  if (text.length <= LONG || (first && last)) return null;
  // Cut at spaces, keeping the ones that touch an edit.
  const head = first ? '' : text.slice(0, KEEP).replace(/\S*$/, '');
  const tail = last ? '' : text.slice(-KEEP).replace(/^\S*/, '');
  return [head, h('span', { class: 'rl-gap', title: 'Unchanged text, shortened' }, '…'), tail];
}

const BLANK = /^\s+$/;

function edit(tag, said, text) {
  // del/ins are not read out by most screen readers: the word before says what happened.
  if (!BLANK.test(text)) return [h('span', { class: 'sr-only' }, ` ${said}: `), h(tag, { class: `rl rl-${tag}` }, text)];
  // Spacing alone would be invisible: each blank is drawn as a mark (· a space, ¶ a line end).
  const n = text.length;
  return [h('span', { class: 'sr-only' }, ` ${said} ${n === 1 ? 'a blank' : `${n} blanks`} `),
    h(tag, { class: `rl rl-${tag} rl-blank`, 'aria-hidden': 'true', title: `${said} spacing` },
      text.replace(/\n/g, '¶').replace(/\s/g, '·'))];
}

/** The ops drawn; ``whole`` keeps every unchanged run whole. */
function drawn(ops, whole) {
  let cut = false;
  const parts = ops.map((op, i) => {
    if (op.op === 'delete') return edit('del', 'deleted', op.text);
    if (op.op === 'insert') return edit('ins', 'inserted', op.text);
    const short = whole ? null : unchanged(op.text, { first: i === 0, last: i === ops.length - 1 });
    if (short === null) return op.text;
    cut = true;
    return short;
  });
  return { parts, cut };
}

/**
 * The redline of a change: its ops, or for a provision inserted or deleted whole, its one
 * quote as an insertion or a deletion. Null when there is nothing to draw.
 */
export function redlineView(change) {
  let ops = change.redline_ops || [];
  if (!ops.length && change.new_quote && !change.old_quote) ops = [{ op: 'insert', text: change.new_quote }];
  if (!ops.length && change.old_quote && !change.new_quote) ops = [{ op: 'delete', text: change.old_quote }];
  if (!ops.length) return null;
  const text = h('p', { class: 'redline-text' });
  const box = h('div', { class: 'redline', role: 'group', 'aria-label': 'Redline' }, text);
  const { parts, cut } = drawn(ops, false);
  append(text, parts);
  if (cut) {
    const more = h('button', {
      type: 'button', class: 'link-btn redline-more',
      onclick: () => {
        append(clear(text), drawn(ops, true).parts);
        more.remove();
      },
    }, 'Show the whole text');
    box.append(more);
  }
  return box;
}
