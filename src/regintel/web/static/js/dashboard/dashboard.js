// The dashboard: left panel (Chats | Documents tabs, + button, user bar), the chat in the
// centre, the collapsible Sources panel on the right.
import { ApiError, del, get, patch, post, streamChat } from '../api.js';
import { clear, formatDate, h, initials } from '../dom.js';
import { icon } from '../icons.js';
import { logOut, problemText } from '../screens/common.js';
import { PAGE_LINKS } from '../screens/page.js';
import { createComposer } from './composer.js';
import { createLibrary } from './documents.js';
import { createFollow } from './follow.js';
import { renderAnswer } from './messages.js';
import { createReveal } from './reveal.js';
import { createSources } from './sources.js';
import { hideTooltip } from './tooltip.js';
import { reviewApi } from '../review/paths.js';

const NODE_LABELS = {
  accepted: 'Starting…', guardrails: 'Checking the question…', triage: 'Reading the question…',
  classify_intent: 'Working out what you need…', resolve_documents: 'Finding the documents…',
  retrieve: 'Searching the documents…', compose: 'Writing the answer…',
};
const WIDE = '(min-width: 1100px)';

/** "@[Title]" mentions of a sent message as pills (text nodes only). */
function withMentions(text) {
  return String(text || '').split(/(@\[[^\]]*\])/).filter(Boolean).map((part) => {
    const match = part.match(/^@\[([^\]]*)\]$/);
    return match ? h('span', { class: 'pill sent' }, `@${match[1]}`) : part;
  });
}

/** A title as clean text: mentions as their names (titles given before chat.titles kept the
 * "@[…]" markup of the question). */
function plainTitle(title) {
  return String(title || '').replace(/@\[([^\]]*)\]/g, '$1');
}

/** The engine a conversation's answers came from when they all came from the offline one
 * (a model's answers do not say which model route: null leaves the default shown). */
function engineOfTurns(answers) {
  const used = answers.map((a) => a.engine).filter(Boolean);
  return used.length && used.every((e) => e === 'offline') ? 'offline' : null;
}

/** A stored answer as its turn's `meta` event: the response kept with it (every answer since
 * it was kept), else the badge, typed result and cost stored beside the text; with the id of
 * its message (an audit's review is the message's). */
function storedAnswer(m, threadId) {
  const kept = m.metadata || {};
  if (kept.response && typeof kept.response === 'object') return { ...kept.response, message_id: m.id };
  const result = kept.result || {};
  return {
    answer: m.content, citations: kept.citations || [], resolved_documents: kept.resolved || [],
    confidence: kept.confidence || null, engine: kept.engine, usage: kept.usage || null,
    audit: result.audit || null, summary: result.summary || null, comparison: result.comparison || null,
    thread_id: threadId, message_id: m.id,
  };
}

/** The review progress of each stored audit, asked for before the conversation is drawn (so
 * its "Review all N rows" link is there from the start); null for an audit without a review. */
async function withReviews(threadId, answers) {
  await Promise.all(answers.filter((meta) => meta.audit).map(async (meta) => {
    try {
      meta.review = (await get(reviewApi(threadId, meta.message_id))).progress;
    } catch {
      meta.review = null;
    }
  }));
  return answers;
}

export function dashboardScreen(me) {
  // "Ask about this project" on a project page opens the dashboard with ?project=<id>: the
  // next new chat is scoped to that project (its snapshot grounds the answers).
  const params = new URLSearchParams(window.location.search);
  const projectParam = params.get('project');
  // "Back to the chat" from an audit's review opens the dashboard with ?chat=<id>.
  const chatParam = params.get('chat');
  const state = { conversations: [], engines: [], threadId: null, title: '', busy: false, tab: 'chats', abort: null, project: null };

  // -- centre: chat -----------------------------------------------------------------------
  const titleEl = h('h1', { class: 'chat-title' }, 'New chat');
  const usageEl = h('span', { class: 'chat-usage', title: 'Tokens and cost of this conversation' });
  const menuButton = h('button', { type: 'button', class: 'icon-btn only-narrow', 'aria-label': 'Show chats and documents', 'aria-controls': 'left-panel', 'aria-expanded': 'false' }, icon('menu'));
  const sourcesButton = h('button', { type: 'button', class: 'btn ghost small', 'aria-controls': 'sources-panel' }, 'Sources');
  // Which engine answers this conversation (GET /api/chat/engines): shown only when the
  // deployment offers more than one. A new chat takes the engine shown here when it starts.
  const engineSelect = h('select', { class: 'engine-select', 'aria-label': 'Engine' });
  const engineField = h('span', { class: 'engine-field', hidden: true }, engineSelect);
  const messages = h('div', { class: 'messages', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite', tabindex: 0 });
  const follow = createFollow(messages);
  const ctx = {
    onCite: (c) => sources.focus(c),
    onResume: (answer, label) => ask({ resume: answer }, label),
    hasDocuments: () => library.documents().length > 0,
    onUpload: () => { setTab('docs'); library.openUpload(); },
  };
  const composer = createComposer({
    getDocuments: () => library.documents(),
    getSets: () => library.sets(),
    onSend: (payload) => ask(payload, null),
    webSearch: Boolean(me.web_search),
  });
  const chat = h('main', { class: 'chat', id: 'main' },
    h('header', { class: 'chat-head' }, menuButton, titleEl, h('div', { class: 'chat-head-right' }, engineField, usageEl, sourcesButton, h('span', { class: 'brand small' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '§'), 'RegIntel Copilot'))),
    messages, composer.element);

  // -- right: sources ---------------------------------------------------------------------
  const shell = h('div', { class: 'dashboard' });
  const sources = createSources({
    onToggle: (open) => {
      shell.classList.toggle('sources-open', open);
      sourcesButton.setAttribute('aria-expanded', String(open));
    },
  });
  sourcesButton.addEventListener('click', () => sources.setOpen(!shell.classList.contains('sources-open')));

  // -- left: tabs, lists, user bar ------------------------------------------------------------
  const chatList = h('ul', { class: 'chat-list', 'aria-label': 'Conversations' });
  const library = createLibrary({
    onChange: () => {
      // The welcome offers an upload only while the library is empty.
      const shown = messages.querySelector('.welcome');
      if (shown) {
        shown.remove();
        welcome();
      }
    },
    onAsk: (d) => {
      composer.insertMention({ kind: 'doc', id: d.id, label: d.title, version: d.version, docType: d.doc_type, colour: d.set ? d.set.colour : null });
      setLeftOpen(false);
    },
  });
  const tabChats = h('button', { type: 'button', role: 'tab', id: 'tab-chats', 'aria-controls': 'pane-chats', class: 'tab' }, 'Chats');
  const tabDocs = h('button', { type: 'button', role: 'tab', id: 'tab-docs', 'aria-controls': 'pane-docs', class: 'tab' }, 'Documents');
  const plus = h('button', { type: 'button', class: 'icon-btn plus', 'aria-label': 'New chat' }, '+');
  const paneChats = h('div', { role: 'tabpanel', id: 'pane-chats', 'aria-labelledby': 'tab-chats', class: 'pane' }, chatList);
  const paneDocs = h('div', { role: 'tabpanel', id: 'pane-docs', 'aria-labelledby': 'tab-docs', class: 'pane' }, library.element);
  const userBar = h('div', { class: 'user-bar' },
    h('span', { class: 'avatar', 'aria-hidden': 'true' }, initials(me.display_name || me.email)),
    h('div', { class: 'user-names' }, h('span', { class: 'user-name' }, me.display_name || me.email), h('span', { class: 'user-org' }, me.tenant_name)),
    h('details', { class: 'menu' }, h('summary', { 'aria-label': 'Settings' }, icon('gear')),
      h('div', { class: 'menu-items' },
        h('a', { href: '/onboarding', 'data-nav': true }, 'Company profile'),
        h('button', { type: 'button', onclick: logOut }, 'Log out'))));
  const menu = userBar.querySelector('details.menu');
  menu.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menu.open) {
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
  const closeMenu = (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  };
  document.addEventListener('click', closeMenu);
  // The other pages sit in the panel itself, above the user bar, so they are in view beside
  // every chat (and one tap away on a phone, where the panel slides in).
  const pageLinks = h('nav', { class: 'page-links', 'aria-label': 'Pages' },
    PAGE_LINKS.map((p) => h('a', { class: 'page-link', href: p.href, 'data-nav': true }, icon(p.icon), h('span', {}, p.label))));
  const left = h('nav', { class: 'left', id: 'left-panel', 'aria-label': 'Chats and documents' },
    h('div', { class: 'tabs-row' }, h('div', { role: 'tablist', class: 'tabs', 'aria-label': 'Left panel' }, tabChats, tabDocs), plus),
    paneChats, paneDocs, pageLinks, userBar);

  function setTab(tab) {
    state.tab = tab;
    const chats = tab === 'chats';
    tabChats.setAttribute('aria-selected', String(chats));
    tabDocs.setAttribute('aria-selected', String(!chats));
    tabChats.tabIndex = chats ? 0 : -1;
    tabDocs.tabIndex = chats ? -1 : 0;
    paneChats.hidden = !chats;
    paneDocs.hidden = chats;
    plus.setAttribute('aria-label', chats ? 'New chat' : 'Upload a document');
    plus.title = chats ? 'New chat' : 'Upload a document';
  }
  tabChats.addEventListener('click', () => setTab('chats'));
  tabDocs.addEventListener('click', () => {
    setTab('docs');
    library.refresh(); // uploads from another tab or client show up
  });
  for (const tab of [tabChats, tabDocs]) {
    tab.addEventListener('keydown', (event) => {
      if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
        event.preventDefault();
        const next = state.tab === 'chats' ? 'docs' : 'chats';
        setTab(next);
        (next === 'chats' ? tabChats : tabDocs).focus();
      }
    });
  }
  plus.addEventListener('click', () => {
    if (state.tab !== 'chats') {
      library.openUpload();
      return;
    }
    newChat();
    setLeftOpen(false); // on a phone the new chat is behind the panel
  });

  function setLeftOpen(open) {
    shell.classList.toggle('left-open', open);
    menuButton.setAttribute('aria-expanded', String(open));
  }
  menuButton.addEventListener('click', () => setLeftOpen(!shell.classList.contains('left-open')));

  // -- conversations ----------------------------------------------------------------------
  function renderChatList() {
    clear(chatList);
    if (!state.conversations.length) {
      chatList.append(h('li', { class: 'empty muted' }, 'No conversations yet. Ask your first question!'));
      return;
    }
    for (const c of state.conversations) {
      const current = c.id === state.threadId;
      const open = h('button', { type: 'button', class: 'chat-open', 'aria-current': current ? 'true' : null },
        h('span', { class: 'chat-item-title', title: plainTitle(c.title) || null }, plainTitle(c.title) || 'Untitled chat'),
        h('span', { class: 'chat-item-time' }, formatDate(c.last_message_at || c.created_at)));
      open.addEventListener('click', () => { openConversation(c.id); setLeftOpen(false); });
      const shown = plainTitle(c.title) || 'Untitled chat';
      const rename = h('button', { type: 'button', class: 'icon-btn', 'aria-label': `Rename ${shown}`, title: 'Rename' }, icon('pencil'));
      rename.addEventListener('click', () => editTitle(c, open));
      const remove = h('button', { type: 'button', class: 'icon-btn danger', 'aria-label': `Delete ${shown}`, title: 'Delete' }, icon('trash'));
      remove.addEventListener('click', async () => {
        if (!window.confirm('Delete this conversation with its memory?')) return;
        await del(`/api/conversations/${c.id}`).catch((e) => window.alert(problemText(e)));
        if (state.threadId === c.id) newChat();
        await loadConversations();
      });
      chatList.append(h('li', { class: `chat-item${current ? ' current' : ''}`, dataset: { id: c.id } }, open, h('span', { class: 'chat-item-actions' }, rename, remove)));
    }
  }

  /** Renames a conversation in place: the title becomes a text box (Enter saves, Escape or
   * leaving it keeps the old title); a refused title shows why, under the box. */
  function editTitle(c, open) {
    const box = h('input', { type: 'text', class: 'chat-title-edit', value: plainTitle(c.title), maxlength: 200, 'aria-label': 'Conversation title' });
    const why = h('p', { class: 'form-error small', role: 'alert', hidden: true });
    const editor = h('div', { class: 'chat-rename' }, box, why);
    open.replaceWith(editor);
    box.focus();
    box.select();
    let done = false;
    const finish = async (save) => {
      if (done) return;
      done = true; // Enter, then the blur of the box leaving the page: one save
      const title = box.value.trim();
      if (save && title && title !== plainTitle(c.title)) {
        try {
          await patch(`/api/conversations/${c.id}`, { title });
        } catch (error) {
          why.textContent = problemText(error);
          why.hidden = false;
          done = false;
          box.focus();
          return;
        }
        if (c.id === state.threadId) setTitle(title);
      }
      await loadConversations();
    };
    box.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') { event.preventDefault(); finish(true); }
      if (event.key === 'Escape') { event.preventDefault(); finish(false); }
    });
    box.addEventListener('blur', () => finish(true));
  }

  async function loadConversations() {
    try {
      state.conversations = (await get('/api/conversations')).data;
    } catch (error) {
      state.conversations = [];
    }
    renderChatList();
  }

  async function showUsage() {
    usageEl.textContent = '';
    if (!state.threadId) return;
    try {
      const usage = await get(`/api/conversations/${state.threadId}/usage`);
      const tokens = usage.input_tokens + usage.output_tokens;
      // A conversation the offline engine answered alone called no model.
      usageEl.replaceChildren(icon('coin'), tokens === 0 && !Number(usage.cost_usd) ? ' No model cost'
        : ` ${tokens.toLocaleString('en-US')} tokens · $${Number(usage.cost_usd).toFixed(3)}`);
    } catch {
      usageEl.textContent = '';
    }
  }

  // -- engines ----------------------------------------------------------------------------
  const defaultEngine = () => (state.engines.find((e) => e.default) || state.engines[0] || {}).id;

  /** The selector's engine as a conversation keeps it: null for the deployment's default. */
  function chosenEngine() {
    return engineField.hidden || engineSelect.value === defaultEngine() ? null : engineSelect.value;
  }

  /** Shows a conversation's engine (null: the default); an engine no longer offered shows
   * the default, which is what its turns now run on. */
  function showEngine(engine) {
    const offered = state.engines.some((e) => e.id === engine);
    engineSelect.value = offered ? engine : (defaultEngine() || '');
    nameEngine();
  }

  function nameEngine() {
    const shown = state.engines.find((e) => e.id === engineSelect.value);
    engineSelect.title = shown ? `Answers from: ${shown.label}` : '';
  }

  async function loadEngines() {
    try {
      state.engines = (await get('/api/chat/engines')).data;
    } catch {
      state.engines = [];
    }
    clear(engineSelect);
    for (const e of state.engines) engineSelect.append(h('option', { value: e.id }, e.label));
    engineField.hidden = state.engines.length < 2;
    const current = state.conversations.find((c) => c.id === state.threadId);
    showEngine(current ? current.engine : null);
  }

  engineSelect.addEventListener('change', async () => {
    nameEngine();
    if (!state.threadId) return; // a new chat: sent when it is created
    const id = state.threadId;
    const engine = chosenEngine();
    engineSelect.disabled = true;
    try {
      const saved = await patch(`/api/conversations/${id}`, { engine });
      const kept = state.conversations.find((c) => c.id === id);
      if (kept) kept.engine = saved.engine;
    } catch (error) {
      const kept = state.conversations.find((c) => c.id === id);
      showEngine(kept ? kept.engine : null);
      window.alert(problemText(error));
    } finally {
      engineSelect.disabled = false;
    }
  });

  function setTitle(title) {
    state.title = plainTitle(title);
    titleEl.textContent = state.title || 'New chat';
  }

  function projectBanner() {
    if (!state.project) return null;
    const leave = h('button', { type: 'button', class: 'btn ghost small' }, 'Chat without the project');
    leave.addEventListener('click', () => {
      state.project = null;
      window.history.replaceState(null, '', '/dashboard');
      newChat();
    });
    return h('p', { class: 'project-banner', role: 'note' }, icon('folder'),
      ` This chat is about the project “${state.project.name}”: its goals, requirements, risks and tasks ground the answers. `, leave);
  }

  function welcome() {
    messages.append(h('div', { class: 'welcome' }, projectBanner(),
      h('h2', {}, `Hello${me.display_name ? `, ${me.display_name}` : ''}.`),
      h('p', {}, `Ask about your regulations and policies. Type @ to tag documents or sets${me.web_search ? ', pick an action (Summarize, Inquire, Compare, Audit) or turn on web search' : ' or pick an action (Summarize, Inquire, Compare, Audit)'}. To check an email or a draft, write "Check this email against @AML:" and paste it after the colon.`),
      library.documents().length ? null : h('button', { type: 'button', class: 'btn primary', onclick: () => { setTab('docs'); library.openUpload(); } }, 'Upload your first document')));
  }

  function newChat() {
    if (state.abort) state.abort.abort();
    state.threadId = null;
    setTitle('');
    usageEl.textContent = '';
    clear(messages);
    sources.reset();
    welcome();
    renderChatList();
    composer.focus();
  }

  function userMessage(text, label, { action = null, web = false } = {}) {
    const el = h('div', { class: 'msg user' }, h('div', { class: 'bubble' },
      action ? h('span', { class: 'pill kind-action' }, icon('bolt'), ` ${action[0].toUpperCase()}${action.slice(1)}`) : null,
      web ? h('span', { class: 'pill kind-web' }, icon('globe'), ' Web search') : null,
      label ? h('em', {}, label) : withMentions(text)));
    messages.append(el);
    return el;
  }

  function assistantShell() {
    const status = h('div', { class: 'msg-status', role: 'status' }, 'Thinking…');
    const text = h('div', { class: 'streamed' });
    const body = h('div', { class: 'bubble' }, status, text);
    const el = h('div', { class: 'msg assistant streaming', 'aria-busy': 'true' }, h('span', { class: 'avatar bot', 'aria-hidden': 'true' }, '§'), body);
    messages.append(el);
    return { el, body, status, text };
  }

  async function openConversation(id) {
    if (state.abort) state.abort.abort();
    state.threadId = id;
    const conversation = state.conversations.find((c) => c.id === id);
    setTitle(conversation ? conversation.title : '');
    showEngine(conversation ? conversation.engine : null);
    clear(messages);
    sources.reset();
    renderChatList();
    try {
      const stored = (await get(`/api/conversations/${id}/messages`)).data;
      const answers = await withReviews(id, stored.filter((m) => m.role === 'assistant').map((m) => storedAnswer(m, id)));
      if (state.threadId !== id) return; // another conversation was opened meanwhile
      // A conversation that keeps no engine of its own (started before engines were chosen,
      // or under another default) shows the engine its turns used, not today's default.
      if (!(conversation && conversation.engine)) showEngine(engineOfTurns(answers));
      let lastAnswer = null;
      for (const m of stored) {
        if (m.role === 'user') userMessage(m.content);
        else if (m.role === 'assistant') {
          const meta = answers.shift();
          lastAnswer = h('div', { class: 'msg assistant' }, h('span', { class: 'avatar bot', 'aria-hidden': 'true' }, '§'),
            h('div', { class: 'bubble' }, renderAnswer(meta, ctx, { live: false })));
          messages.append(lastAnswer);
          sources.addAll(meta.citations);
        }
      }
      if (!stored.length) welcome();
      showUsage();
      follow.show(lastAnswer); // the last answer from its first line
    } catch (error) {
      messages.append(h('p', { class: 'form-error' }, problemText(error)));
      follow.show(null);
    }
  }

  async function ask(payload, label) {
    if (state.busy) return;
    state.busy = true;
    composer.setBusy(true);
    hideTooltip();
    messages.querySelectorAll('.welcome').forEach((el) => el.remove());
    let createdId = null; // a conversation started by this turn, withdrawn if the turn is refused
    let sent = null;
    let out = null;
    let reveal = null;
    try {
      if (!state.threadId) {
        const created = await post('/api/conversations', {
          ...(state.project ? { project_id: state.project.id } : {}),
          ...(chosenEngine() ? { engine: chosenEngine() } : {}),
        });
        state.threadId = created.id;
        createdId = created.id;
      }
      const body = { ...payload, thread_id: state.threadId };
      if (body.resume) body.message = '';
      sent = userMessage(payload.message, label, { action: payload.action, web: payload.enable_web_search });
      out = assistantShell();
      follow.start(out.el);
      state.abort = new AbortController();
      // The answer's sentences as they arrive, drawn as the final answer is; the view follows
      // the answer until its first line is at the top.
      reveal = createReveal(out.text, ctx, () => follow.update());
      state.abort.signal.addEventListener('abort', () => reveal.stop());
      let finished = false;
      let accepted = false;
      let landed = Promise.resolve();
      // The final answer in place of the streamed one, its first line where it was on screen.
      const land = (data) => {
        reveal.stop();
        if (!out.el.isConnected) return; // another conversation was opened meanwhile
        follow.land(out.text.firstElementChild, () => {
          clear(out.body);
          out.body.append(...renderAnswer(data, ctx));
          out.el.classList.remove('streaming');
          out.el.removeAttribute('aria-busy');
          return out.body.querySelector(':scope > :not(.resolved)');
        });
        sources.addAll(data.citations);
        if (data.thread_id) state.threadId = data.thread_id;
      };
      await streamChat(body, (kind, data) => {
        if (!accepted) {
          // The question is the server's now: the box is cleared only once it is accepted,
          // so a refused question is still there to be shortened or corrected.
          accepted = true;
          if (!payload.resume) composer.clear();
        }
        if (kind === 'status') {
          if (data.reset) reveal.reset();
          // A step as it starts, in words ("Searching 3 documents…"), else the label of the
          // node that ended; a node without one leaves the last step shown.
          const label = data.detail || NODE_LABELS[data.node];
          if (label) out.status.textContent = label;
          else if (!out.status.textContent) out.status.textContent = 'Working…';
        } else if (kind === 'text') {
          // The answer arrives as it is composed; its quotes are checked before it is final.
          if (!reveal.started) out.status.textContent = 'Checking the quotes…';
          reveal.push(data.delta || '');
        } else if (kind === 'meta') {
          finished = true;
          // A plain answer lands once the sentences that came before it are shown; an audit,
          // comparison, summary or question back is drawn otherwise, so it lands at once.
          const plain = !(data.audit || data.comparison || data.summary || data.needs_input);
          landed = (plain ? reveal.finish() : Promise.resolve()).then(() => land(data));
        } else if (kind === 'error') {
          finished = true;
          reveal.stop();
          clear(out.body);
          out.body.append(h('p', { class: 'form-error', role: 'alert' }, problemText(new ApiError(data.status || 500, data))));
          out.el.classList.remove('streaming');
          out.el.removeAttribute('aria-busy');
        }
      }, state.abort.signal);
      await landed;
      if (!finished) {
        reveal.stop();
        out.status.textContent = 'The answer stopped before it was complete.';
        out.el.classList.remove('streaming');
        out.el.removeAttribute('aria-busy');
      }
    } catch (error) {
      if (!(error instanceof DOMException && error.name === 'AbortError')) {
        if (error instanceof ApiError && out && out.el.classList.contains('streaming')) {
          // Refused before it started: nothing was stored, so the turn is taken back (its
          // bubbles, and the conversation it started) and the reason shows above the kept text.
          sent.remove();
          out.el.remove();
          if (createdId) {
            await del(`/api/conversations/${createdId}`).catch(() => {});
            if (state.threadId === createdId) state.threadId = null;
            if (!messages.childNodes.length) welcome();
          }
          composer.refuse(problemText(error));
        } else {
          const shown = h('p', { class: 'form-error', role: 'alert' }, problemText(error));
          if (out && out.el.isConnected) {
            clear(out.body);
            out.body.append(shown);
            out.el.classList.remove('streaming');
            out.el.removeAttribute('aria-busy');
          } else {
            composer.refuse(problemText(error));
          }
        }
      }
    } finally {
      if (reveal) reveal.stop();
      follow.stop();
      state.busy = false;
      state.abort = null;
      composer.setBusy(false);
      await loadConversations();
      const current = state.conversations.find((c) => c.id === state.threadId);
      if (current) setTitle(current.title);
      else if (!state.threadId) setTitle('');
      showUsage();
      composer.focus();
    }
  }

  // -- layout ----------------------------------------------------------------------------
  shell.append(left, chat, sources.element);
  const scrim = h('div', { class: 'scrim', 'aria-hidden': 'true' });
  scrim.addEventListener('click', () => { setLeftOpen(false); if (!window.matchMedia(WIDE).matches) sources.setOpen(false); });
  shell.append(scrim);
  shell.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && shell.classList.contains('left-open')) setLeftOpen(false);
  });
  setTab('chats');
  sources.setOpen(false); // until a citation is opened: an answer arriving leaves it closed
  const projectLoaded = projectParam
    ? get(`/api/projects/${encodeURIComponent(projectParam)}`).then((p) => { state.project = { id: p.id, name: p.name }; }).catch(() => {})
    : Promise.resolve();
  Promise.all([library.refresh(), projectLoaded]).then(() => {
    if (state.threadId) return;
    messages.querySelectorAll('.welcome').forEach((el) => el.remove());
    if (!messages.querySelector('.msg')) welcome();
  });
  loadConversations().then(() => {
    if (!chatParam) return;
    window.history.replaceState(null, '', '/dashboard');
    if (state.conversations.some((c) => c.id === chatParam)) openConversation(chatParam);
  });
  loadEngines();

  return {
    element: shell,
    title: 'Dashboard',
    cleanup: () => {
      document.removeEventListener('click', closeMenu);
      library.stop();
      if (state.abort) state.abort.abort();
      hideTooltip();
    },
  };
}
