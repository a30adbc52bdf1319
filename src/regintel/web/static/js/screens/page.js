// The frame of the secondary pages (projects, concept graph): the navbar with the brand, the
// page links and the user pill, and a main region.
import { h } from '../dom.js';
import { userMenu } from './common.js';

export function pageFrame(me, current, ...children) {
  const link = (href, text) => h('a', {
    class: `nav-link${current === href ? ' current' : ''}`, href, 'data-nav': true,
    'aria-current': current === href ? 'page' : null,
  }, text);
  const main = h('main', { id: 'main', class: 'wide-main' }, ...children);
  const element = h('div', { class: 'secondary-page' },
    h('header', { class: 'navbar' },
      h('a', { class: 'brand', href: '/dashboard', 'data-nav': true }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'),
      h('nav', { 'aria-label': 'Pages' }, link('/projects', 'Projects'), link('/graph', 'Concept graph')),
      h('nav', { 'aria-label': 'Account' }, userMenu(me))),
    main);
  return { element, main };
}
