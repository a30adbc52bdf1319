// Projects and the concept graph: shown from their APIs when the server has them, otherwise
// a "coming soon" page (those APIs are being built separately).
import { ApiError, get } from '../api.js';
import { clear, h } from '../dom.js';
import { userMenu } from './common.js';

const PAGES = {
  projects: { title: 'Projects', api: '/api/projects', text: 'Projects group a context of concepts and documents for a piece of work; their snapshot and coverage will show here.' },
  graph: { title: 'Concept graph', api: '/api/graph', text: 'The concept graph of your regulations, with live updates as documents and conversations add concepts, will show here.' },
};

function labelOf(item) {
  if (!item || typeof item !== 'object') return String(item);
  return item.name || item.label || item.pref_label || item.title || item.id || JSON.stringify(item);
}

export function placeholderScreen(kind, me) {
  const page = PAGES[kind];
  const body = h('section', { class: 'glass card placeholder' }, h('p', {}, 'Loading…'));
  const element = h('div', { class: 'secondary-page' },
    h('header', { class: 'navbar' },
      h('a', { class: 'brand', href: '/dashboard', 'data-nav': true }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'),
      h('nav', { 'aria-label': 'Account' }, userMenu(me))),
    h('main', { id: 'main' }, h('h1', {}, page.title), body));
  get(page.api).then((data) => {
    const items = (data && (data.data || data.nodes)) || [];
    clear(body);
    body.append(h('p', {}, `${items.length} item(s).`),
      h('ul', { class: 'plain-list' }, items.slice(0, 200).map((item) => h('li', {}, labelOf(item)))));
  }).catch((error) => {
    clear(body);
    const missing = error instanceof ApiError && (error.status === 404 || error.status === 405);
    body.append(h('h2', {}, missing ? 'Coming soon' : 'Not available'),
      h('p', {}, page.text),
      missing ? null : h('p', { class: 'form-error' }, error.message),
      h('a', { class: 'btn primary', href: '/dashboard', 'data-nav': true }, 'Back to the dashboard'));
  });
  return { element, title: page.title };
}
