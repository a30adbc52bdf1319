// Where the conversation's view stays while an answer lands. It follows the answer down only
// until the answer's first line reaches the top of the view: a long answer is read from its
// start, not from its end. Once the reader scrolls, the view is theirs until the next answer.
const MARGIN = 12; // px above the answer when its start is at the top of the view

export function createFollow(scroller) {
  let target = null; // the message followed
  let left = false; // the reader scrolled away from where the view was put
  let pinned = false; // the answer outgrew the view: its start is held at the top
  let expected = null; // where the view was last put

  function put(top) {
    scroller.scrollTop = top;
    expected = scroller.scrollTop;
  }

  /** The scroll position that shows `el` from its start, or the end when all of it fits. */
  function landing(el) {
    const max = scroller.scrollHeight - scroller.clientHeight;
    if (!el) return { top: max, pinned: false };
    const top = el.getBoundingClientRect().top - scroller.getBoundingClientRect().top
      + scroller.scrollTop - MARGIN;
    return top < max ? { top: Math.max(0, top), pinned: true } : { top: max, pinned: false };
  }

  // Only the reader moves the view off where it was put (the view's own moves set `expected`
  // first, and nothing else here changes the scroll position: CSS scroll anchoring is off).
  scroller.addEventListener('scroll', () => {
    if (target && expected !== null && Math.abs(scroller.scrollTop - expected) > 2) left = true;
  });

  return {
    /** Follows `el`, an answer about to stream in. */
    start(el) {
      target = el;
      left = false;
      this.update();
    },
    /** After the followed answer grew. */
    update() {
      if (!target || left) return;
      const where = landing(target);
      pinned = where.pinned;
      put(where.top);
    },
    /** Replaces the followed answer's streamed body by its final one (`render` draws it and
     * returns its first block) without moving its first line: where the view held the start
     * of a long answer, or the reader is reading it, that line stays where it was on screen;
     * a short answer at the end of the view stays in view whole, with its footer. */
    land(lead, render) {
      const was = lead && lead.isConnected ? lead.getBoundingClientRect().top : null;
      const view = scroller.getBoundingClientRect();
      const seen = was !== null && was < view.bottom && was >= view.top - 1;
      const next = render();
      if (target && !left && !pinned) {
        put(landing(target).top);
      } else if (seen && next) {
        put(scroller.scrollTop + next.getBoundingClientRect().top - was);
      }
    },
    stop() {
      target = null;
      expected = null;
      pinned = false;
    },
    /** Shows `el` (a reopened conversation's last answer) from its start; the end of the
     * conversation when there is no answer or all of it fits. */
    show(el) {
      put(landing(el).top);
      expected = null;
    },
  };
}
