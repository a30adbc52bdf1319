// One floating tooltip for citation markers and badges. It is fixed to the viewport, so the
// scrolling message list cannot clip it; its content is built with text nodes only.
import { append, clear, h } from '../dom.js';

const TIP_ID = 'floating-tooltip';
let tip = null;
let owner = null;

function element() {
  if (!tip || !tip.isConnected) {
    tip = h('div', { id: TIP_ID, class: 'tooltip', role: 'tooltip', hidden: true });
    document.body.append(tip);
  }
  return tip;
}

function show(target) {
  const build = target.__tooltip;
  if (!build) return;
  const el = element();
  clear(el);
  append(el, build());
  el.hidden = false;
  owner = target;
  target.setAttribute('aria-describedby', TIP_ID);
  const box = target.getBoundingClientRect();
  const width = Math.min(360, window.innerWidth - 16);
  el.style.maxWidth = `${width}px`;
  const left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
  el.style.left = `${left}px`;
  const below = box.bottom + 8;
  el.style.top = `${below}px`;
  const height = el.getBoundingClientRect().height;
  if (below + height > window.innerHeight - 8 && box.top - height - 8 > 8) {
    el.style.top = `${box.top - height - 8}px`;
  }
}

function hide(target) {
  if (owner !== target) return;
  element().hidden = true;
  target.removeAttribute('aria-describedby');
  owner = null;
}

/** Attach a tooltip whose content `build()` returns (nodes or strings). */
export function withTooltip(target, build) {
  target.__tooltip = build;
  target.addEventListener('mouseenter', () => show(target));
  target.addEventListener('focus', () => show(target));
  target.addEventListener('mouseleave', () => hide(target));
  target.addEventListener('blur', () => hide(target));
  target.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') hide(target);
  });
  return target;
}

export function hideTooltip() {
  if (owner) hide(owner);
}

document.addEventListener('scroll', hideTooltip, true);
