import { put } from '../api.js';
import { h } from '../dom.js';
import { navigate } from '../navigation.js';
import { field, onSubmit } from './common.js';

const INDUSTRIES = ['Banking', 'Insurance', 'Asset management', 'Payments & fintech', 'Virtual assets', 'Healthcare', 'Technology', 'Energy', 'Public sector', 'Other'];

export function onboardingScreen(me) {
  const profile = (me && me.profile) || {};
  const company = h('input', { name: 'company', required: true, maxlength: 200, autofocus: true, value: profile.company || (me && me.tenant_name) || '' });
  const country = h('input', { name: 'country', required: true, maxlength: 200, autocomplete: 'country-name', value: profile.country || '' });
  const industry = h('input', { name: 'industry', required: true, maxlength: 200, list: 'industries', value: profile.industry || '' });
  const description = h('textarea', { name: 'description', rows: 4, maxlength: 2000 });
  description.value = profile.description || '';
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const submit = h('button', { class: 'btn primary wide', type: 'submit' }, me && me.onboarding_complete ? 'Save' : 'Continue to dashboard');
  const form = h('form', { class: 'glass card onboarding-form' },
    h('h1', {}, `Welcome${me && me.display_name ? `, ${me.display_name}` : ''}!`),
    h('p', { class: 'lead' }, 'Tell us about your organisation, so answers are tailored to where and how you operate.'),
    field('Company name', company), field('Country', country), field('Industry', industry),
    h('datalist', { id: 'industries' }, INDUSTRIES.map((i) => h('option', { value: i }))),
    field('Description (optional)', description, 'What your company does, which regulators you answer to…'),
    error, submit);
  onSubmit(form, error, async () => {
    await put('/api/me/profile', { company: company.value, country: country.value, industry: industry.value, description: description.value });
    navigate('/dashboard');
  }, submit);
  const element = h('div', { class: 'onboarding' }, h('main', { id: 'main' }, form));
  return { element, title: 'Onboarding' };
}
