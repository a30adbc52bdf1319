// "Turn into task": an audit finding becomes a task, risk or requirement of a compliance
// project (POST /api/projects/{id}/work-from-finding), linked to the regulation it cites.
import { get, post } from '../api.js';
import { clear, h } from '../dom.js';
import { onSubmit, problemText } from '../screens/common.js';

const KINDS = [['task', 'Task'], ['risk', 'Risk'], ['requirement', 'Requirement']];

/** True when the finding cites a document chunk (what the API needs to link the work). */
function citesDocument(finding, citations) {
  const byN = new Map((citations || []).map((c) => [c.n, c]));
  return (finding.citations || []).some((n) => {
    const c = byN.get(n);
    return c && c.source_type !== 'web' && c.document_id;
  });
}

/** The button (and, once opened, the small form) under one finding; null when not possible. */
export function findingWork(finding, citations) {
  if (!citesDocument(finding, citations)) return null;
  const box = h('div', { class: 'finding-work' });
  const open = h('button', {
    type: 'button', class: 'btn small ghost',
    onclick: async () => {
      open.disabled = true;
      let projects;
      try {
        projects = (await get('/api/projects')).data;
      } catch (error) {
        box.append(h('p', { class: 'form-error' }, problemText(error)));
        open.disabled = false;
        return;
      }
      clear(box);
      if (!projects.length) {
        box.append(h('p', { class: 'muted' }, 'No project yet: ',
          h('a', { href: '/projects', 'data-nav': true }, 'create one'), ' first.'));
        return;
      }
      const project = h('select', { 'aria-label': 'Project' }, projects.map((p) => h('option', { value: p.id }, p.name)));
      const kind = h('select', { 'aria-label': 'Create as' }, KINDS.map(([v, label]) => h('option', { value: v }, label)));
      const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
      const form = h('form', { class: 'finding-work-form', 'aria-label': 'Turn the finding into work' },
        project, kind, h('button', { type: 'submit', class: 'btn small primary' }, 'Create'), error);
      onSubmit(form, error, async () => {
        const created = await post(`/api/projects/${encodeURIComponent(project.value)}/work-from-finding`, {
          finding, citations, kind: kind.value,
        });
        const name = project.options[project.selectedIndex].text;
        clear(box).append(h('p', { class: 'finding-work-done' }, `✓ ${KINDS.find(([v]) => v === created.kind)[1]} created in `,
          h('a', { href: `/projects?project=${encodeURIComponent(project.value)}`, 'data-nav': true }, name)));
      });
      box.append(form);
    },
  }, 'Turn into task');
  box.append(open);
  return box;
}
