// An answer as it streams in. Its complete sentences are drawn the way the finished answer is
// (paragraphs, bullet lists, citation markers), one sentence at a time; the unfinished tail is
// held back, so no raw "- " or "[1]" ever shows. An engine that composes its whole answer at
// once (the offline one) sends it in one burst: the sentences still appear one after another,
// the first at once, the rest quickly enough that the whole burst is shown within about a
// second and a half.
import { clear } from '../dom.js';
import { paragraphs } from './messages.js';

const STEP_MS = 160; // between two sentences, when few are waiting
const MIN_STEP_MS = 30;
const CATCH_UP_MS = 1500; // what may wait is shown within this

// Where a sentence ends: at the end of a line, or after ".", "!", "?" or "…" (with the quote
// marks or brackets closing it, and its citation markers) where white space follows. Text at
// the very end is not a sentence yet: a marker, or more of the sentence, may still come.
const SENTENCE_END = /\n|[.!?…]['’"”)\]]*(?:[ \t]*\[\d+\])*(?=\s)/g;

/** The ends of the complete sentences of `text` after position `from`, each taking the white
 * space and blank lines before it along (a sentence is never only white space). */
export function sentenceEnds(text, from = 0) {
  const ends = [];
  let start = from;
  SENTENCE_END.lastIndex = from;
  let match;
  while ((match = SENTENCE_END.exec(text)) !== null) {
    const end = match.index + match[0].length;
    if (text.slice(start, end).trim()) {
      ends.push(end);
      start = end;
    }
  }
  return ends;
}

/** Draws the streamed answer into `target`; `onDraw` runs after each sentence is drawn (the
 * view follows it). `finish()` resolves once every complete sentence received is shown. */
export function createReveal(target, ctx, onDraw) {
  const drawing = { ...ctx, pending: true };
  let received = '';
  let shown = 0;
  let last = -Infinity; // when the last sentence was drawn
  let timer = null;
  let stopped = false;
  let waiting = [];

  const stepFor = (count) => Math.max(MIN_STEP_MS, Math.min(STEP_MS, CATCH_UP_MS / count));

  function draw() {
    clear(target);
    target.append(...paragraphs(received.slice(0, shown), [], drawing));
    last = performance.now();
    onDraw();
  }

  function settle() {
    const done = waiting;
    waiting = [];
    done.forEach((resolve) => resolve());
  }

  function tick() {
    timer = null;
    if (stopped) return;
    const ends = sentenceEnds(received, shown);
    if (!ends.length) {
      settle();
      return;
    }
    const wait = last + stepFor(ends.length) - performance.now();
    if (wait > 0) {
      timer = setTimeout(tick, wait);
      return;
    }
    [shown] = ends;
    draw();
    if (ends.length > 1) timer = setTimeout(tick, stepFor(ends.length - 1));
    else settle();
  }

  return {
    /** Whether any of the answer has arrived (drawn or not). */
    get started() {
      return received.length > 0;
    },
    push(delta) {
      if (stopped || !delta) return;
      received += delta;
      if (!timer) tick();
    },
    /** The answer is sent again from its start: what was drawn goes. */
    reset() {
      clearTimeout(timer);
      timer = null;
      received = '';
      shown = 0;
      last = -Infinity;
      draw();
    },
    finish() {
      if (stopped || !timer) return Promise.resolve();
      return new Promise((resolve) => { waiting.push(resolve); });
    },
    /** No more drawing (the turn ended or was left); whoever waits on finish() goes on. */
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = null;
      settle();
    },
  };
}
