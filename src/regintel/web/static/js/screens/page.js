// The frame of the secondary pages (projects, concept graph): the navbar with the brand, the
// page links and the user pill, and a main region.
import { h } from '../dom.js';
import { userMenu } from './common.js';

/** The pages beside the chat, in the order every navigation shows them. */
export const PAGE_LINKS = [
  { href: '/projects', label: 'Projects', icon: 'folder' },
  { href: '/graph', label: 'Concept graph', icon: 'graph' },
];

export function pageFrame(me, current, ...children) {
  const link = (href, text) => h('a', {
    class: `nav-link${current === href ? ' current' : ''}`, href, 'data-nav': true,
    'aria-current': current === href ? 'page' : null,
  }, text);
  const main = h('main', { id: 'main', class: 'wide-main' }, ...children);
  const element = h('div', { class: 'secondary-page' },
    h('header', { class: 'navbar' },
      h('a', { class: 'brand', href: '/dashboard', 'data-nav': true }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'),
      h('nav', { 'aria-label': 'Pages' }, PAGE_LINKS.map((p) => link(p.href, p.label))),
      h('nav', { 'aria-label': 'Account' }, userMenu(me))),
    main);
  return { element, main };
}
