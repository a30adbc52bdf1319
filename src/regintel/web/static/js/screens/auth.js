import { ApiError, post } from '../api.js';
import { h } from '../dom.js';
import { navigate } from '../navigation.js';
import { field, onSubmit } from './common.js';

export function authScreen(mode) {
  const signup = mode === 'signup';
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const inputs = {
    display_name: h('input', { name: 'display_name', autocomplete: 'name', maxlength: 200 }),
    organisation: h('input', { name: 'organisation', autocomplete: 'organization', maxlength: 200 }),
    email: h('input', { name: 'email', type: 'email', required: true, autocomplete: 'email', autofocus: !signup }),
    password: h('input', { name: 'password', type: 'password', required: true, minlength: signup ? 8 : 1, autocomplete: signup ? 'new-password' : 'current-password' }),
  };
  if (signup) inputs.display_name.setAttribute('autofocus', '');
  const submit = h('button', { class: 'btn primary wide', type: 'submit' }, signup ? 'Create account' : 'Log in');
  const form = h('form', { class: 'glass card auth-form', novalidate: false },
    h('h1', {}, signup ? 'Create your account' : 'Welcome back'),
    signup ? [field('Your name', inputs.display_name), field('Organisation', inputs.organisation, 'Your team’s workspace; colleagues can be invited later.')] : null,
    field('E-mail', inputs.email),
    field('Password', inputs.password, signup ? 'At least 8 characters and hard to guess: several uncommon words work well.' : null),
    error, submit,
    h('p', { class: 'switch' }, signup ? 'Already have an account? ' : 'New here? ',
      h('a', { href: signup ? '/auth/login' : '/auth/signup', 'data-nav': true }, signup ? 'Log in' : 'Create an account')));
  onSubmit(form, error, async () => {
    const body = { email: inputs.email.value, password: inputs.password.value };
    if (signup) {
      const accepted = await post('/api/auth/signup', {
        ...body, display_name: inputs.display_name.value, organisation: inputs.organisation.value });
      // Sign-up answers the same for a new and an already registered e-mail (it must not
      // reveal who has an account) and opens no session: signing in with the same
      // credentials is what follows, and a refusal repeats the sign-up's explanation.
      try {
        await post('/api/auth/login', body);
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) throw new ApiError(401, { title: accepted.message });
        throw err;
      }
    } else {
      await post('/api/auth/login', body);
    }
    navigate('/dashboard');
  }, submit);
  const element = h('div', { class: 'auth split' },
    h('aside', { class: 'brand-panel' },
      h('a', { class: 'brand', href: '/', 'data-nav': true }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'),
      h('p', { class: 'tagline' }, 'Grounded, cited answers over your regulations and policies.'),
      h('ul', { class: 'ticks' }, h('li', {}, 'Citations to page and quote'), h('li', {}, 'Audits with severity and consequences'), h('li', {}, 'Your data stays in your workspace'))),
    h('main', { id: 'main', class: 'form-side' }, form));
  return { element, title: signup ? 'Sign up' : 'Log in' };
}
