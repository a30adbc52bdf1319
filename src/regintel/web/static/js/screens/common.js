import { post } from '../api.js';
import { h, initials } from '../dom.js';

export async function logOut() {
  try {
    await post('/api/auth/logout');
  } finally {
    window.location.assign('/');
  }
}

/** The navbar pill of a signed-in user (landing and secondary pages). */
export function userMenu(me) {
  return h('div', { class: 'user-pill' },
    h('span', { class: 'avatar', 'aria-hidden': 'true' }, initials(me.display_name || me.email)),
    h('span', { class: 'user-pill-name' }, me.display_name || me.email),
    h('a', { class: 'btn primary small', href: me.onboarding_complete ? '/dashboard' : '/onboarding', 'data-nav': true }, 'Dashboard'),
    h('button', { class: 'btn ghost small', type: 'button', onclick: logOut }, 'Log out'));
}

export function problemText(error) {
  const hint = error && error.hint ? ` — ${error.hint}` : '';
  return `${(error && error.message) || 'Something went wrong'}${hint}`;
}

/**
 * Runs ``action`` when ``form`` is submitted: the error line hidden, the button (if any)
 * disabled meanwhile, and a failure shown in ``error`` as the API's problem text.
 */
export function onSubmit(form, error, action, button = null) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    if (button) button.disabled = true;
    try {
      await action();
    } catch (err) {
      error.textContent = problemText(err);
      error.hidden = false;
    } finally {
      if (button) button.disabled = false;
    }
  });
}

export function field(label, input, help) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  return h('div', { class: 'field' },
    h('label', { for: id }, label), input, help ? h('p', { class: 'help' }, help) : null);
}
