import { h } from '../dom.js';
import { icon } from '../icons.js';
import { userMenu } from './common.js';

const FEATURES = [
  ['document', 'Grounded in your documents', 'Upload the regulations that govern you and your own policies. Every claim is cited to title, page and the exact quote.'],
  ['search', 'Audit policies against rules', 'Gaps and conflicts grouped by policy, with severity, business consequence and a suggested fix.'],
  ['scales', 'Compare and summarise', 'Side-by-side comparison tables and key obligations, in seconds instead of hours.'],
  ['shield', 'Asks instead of guessing', 'Confidence on every answer; when the evidence is weak it says so and asks what to do.'],
];

export function landingScreen(me) {
  const cta = me
    ? h('a', { class: 'btn primary big', href: me.onboarding_complete ? '/dashboard' : '/onboarding', 'data-nav': true }, 'Go to Dashboard')
    : h('a', { class: 'btn primary big', href: '/auth/signup', 'data-nav': true }, 'Get started free');
  const element = h('div', { class: 'landing' },
    h('header', { class: 'navbar' },
      h('a', { class: 'brand', href: '/', 'data-nav': true }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'),
      h('nav', { 'aria-label': 'Account' }, me ? userMenu(me) : [
        h('a', { class: 'btn ghost', href: '/auth/login', 'data-nav': true }, 'Log in'),
        h('a', { class: 'btn primary', href: '/auth/signup', 'data-nav': true }, 'Sign up'),
      ])),
    h('main', { id: 'main' },
      h('section', { class: 'hero' },
        h('h1', {}, 'Regulatory answers you can cite.'),
        h('p', { class: 'lead' }, 'The copilot a compliance officer opens to ask what a regulation requires, summarise it, compare versions, and audit a policy against it — with every claim cited to page and quote.'),
        cta),
      h('section', { class: 'features', 'aria-label': 'Features' },
        FEATURES.map(([name, title, text]) => h('article', { class: 'feature glass' },
          h('div', { class: 'feature-icon', 'aria-hidden': 'true' }, icon(name)), h('h2', {}, title), h('p', {}, text)))),
      h('section', { class: 'cta glass' },
        h('h2', {}, 'Bring your rulebooks. Ask your first question in a minute.'),
        me ? null : h('a', { class: 'btn primary', href: '/auth/signup', 'data-nav': true }, 'Create an account'))),
    h('footer', { class: 'footer' }, 'Regulatory Intelligence Copilot · runs on your own machine, no data leaves it unless you configure a model provider.'));
  return { element, title: 'Home' };
}
