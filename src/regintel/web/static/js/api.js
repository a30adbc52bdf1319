// The HTTP API: JSON calls with the CSRF header on writes, and the chat's Server-Sent Events
// read from a streamed fetch (EventSource cannot POST).

const CSRF_COOKIE = 'regintel_csrf';
const CSRF_HEADER = 'X-CSRF-Token';
const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export class ApiError extends Error {
  constructor(status, body) {
    const title = (body && (body.title || body.detail)) || `request failed (${status})`;
    super(typeof title === 'string' ? title : `request failed (${status})`);
    this.status = status;
    this.body = body || {};
    this.hint = (body && body.hint) || '';
  }
}

function csrfToken() {
  const match = document.cookie.match(new RegExp(`(?:^|;\\s*)${CSRF_COOKIE}=([^;]*)`));
  return match ? decodeURIComponent(match[1]) : '';
}

function headersFor(method, json) {
  const headers = { Accept: 'application/json' };
  if (!SAFE.has(method)) headers[CSRF_HEADER] = csrfToken();
  if (json) headers['Content-Type'] = 'application/json';
  return headers;
}

async function bodyOf(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return { title: text.slice(0, 200) };
  }
}

export async function request(method, path, body) {
  const isForm = body instanceof FormData;
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: headersFor(method, body !== undefined && !isForm),
    body: body === undefined ? undefined : (isForm ? body : JSON.stringify(body)),
  });
  if (response.status === 204) return null;
  const data = await bodyOf(response);
  if (!response.ok) {
    sessionEnded(response.status, path);
    throw new ApiError(response.status, data);
  }
  return data;
}

/** A session that expired mid-use sends the user to the login page (not for the calls that
 * find out whether anyone is signed in, or that sign in). */
function sessionEnded(status, path) {
  if (status !== 401 || path === '/api/me' || path.startsWith('/api/auth/')) return;
  if (window.location.pathname !== '/auth/login') window.location.assign('/auth/login');
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body ?? {});
export const put = (path, body) => request('PUT', path, body);
export const patch = (path, body) => request('PATCH', path, body);
export const del = (path) => request('DELETE', path);

function parseBlock(block) {
  let kind = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) kind = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (!data.length) return null;
  try {
    return { kind, data: JSON.parse(data.join('\n')) };
  } catch {
    return null;
  }
}

/** POST /api/chat and call onEvent(kind, data) for each event as it arrives. */
export async function streamChat(payload, onEvent, signal) {
  const response = await fetch('/api/chat', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...headersFor('POST', true), Accept: 'text/event-stream' },
    body: JSON.stringify(payload),
    signal,
  });
  if (!response.ok) {
    sessionEnded(response.status, '/api/chat');
    throw new ApiError(response.status, await bodyOf(response));
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = parseBlock(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (event) onEvent(event.kind, event.data);
    }
  }
  const last = parseBlock(buffer.trim());
  if (last) onEvent(last.kind, last.data);
}
