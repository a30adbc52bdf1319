// The client-side router: one HTML shell, a screen per path. Who is signed in comes from
// /api/me; onboarding gates the dashboard.

import { ApiError, get } from './api.js';
import { clear } from './dom.js';
import { navigate, setRenderer } from './navigation.js';
import { landingScreen } from './screens/landing.js';
import { authScreen } from './screens/auth.js';
import { onboardingScreen } from './screens/onboarding.js';
import { dashboardScreen } from './dashboard/dashboard.js';
import { projectsScreen } from './screens/projects.js';
import { graphScreen } from './screens/graph.js';
import { reviewScreen } from './review/review.js';
import { changesScreen } from './changes/changes.js';

const app = document.getElementById('app');
let cleanup = null;

export const session = { me: null };

export async function loadMe() {
  try {
    session.me = await get('/api/me');
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    session.me = null;
  }
  return session.me;
}

function pageScreen(path, me) {
  switch (path) {
    case '/auth/login': return authScreen('login');
    case '/auth/signup': return authScreen('signup');
    case '/onboarding': return onboardingScreen(me);
    case '/dashboard': return dashboardScreen(me);
    case '/projects': return projectsScreen(me);
    case '/graph': return graphScreen(me);
    default: return landingScreen(me);
  }
}

// Each render is numbered: one that finishes waiting for the session after a later one began
// (a click on the page still shown while Back renders the page before it) draws nothing.
let renders = 0;

async function render() {
  const mine = ++renders;
  if (cleanup) {
    cleanup();
    cleanup = null;
  }
  const path = window.location.pathname;
  const me = await loadMe().catch(() => null);
  if (mine !== renders) return;
  // An audit's review: /review/<conversation>/<message>, or /review/<conversation>/latest.
  const review = path.match(/^\/review\/([^/]+)\/([^/]+)$/);
  // What changed in a version: /changes/<document>[?from=<earlier version>].
  const changes = path.match(/^\/changes\/([^/]+)$/);
  const inApp = Boolean(review || changes) || ['/dashboard', '/projects', '/graph'].includes(path);
  const needsAuth = inApp || path === '/onboarding';
  if (needsAuth && !me) return navigate('/auth/login', { replace: true });
  if (me && path.startsWith('/auth/')) return navigate(me.onboarding_complete ? '/dashboard' : '/onboarding', { replace: true });
  if (me && !me.onboarding_complete && inApp) {
    return navigate('/onboarding', { replace: true });
  }
  const from = new URLSearchParams(window.location.search).get('from');
  const screen = review ? reviewScreen(me, review[1], review[2])
    : changes ? changesScreen(me, changes[1], from)
      : pageScreen(path, me);
  clear(app);
  app.append(screen.element);
  cleanup = screen.cleanup || null;
  document.title = `${screen.title} · Regulatory Intelligence Copilot`;
  const focus = screen.element.querySelector('[autofocus]');
  if (focus) focus.focus();
}

// Links marked data-nav navigate inside the app without a page load.
document.addEventListener('click', (event) => {
  const link = event.target instanceof Element ? event.target.closest('a[data-nav]') : null;
  if (!link || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
  event.preventDefault();
  navigate(link.getAttribute('href'));
});
window.addEventListener('popstate', render);
setRenderer(render);
render();
