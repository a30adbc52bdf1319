// Where a change report lives: its page, and the API that reads the two versions' changes,
// what they touch, and the impact report's files.
const enc = encodeURIComponent;
const docApi = (id) => `/api/documents/${enc(id)}`;

/** The change report of a version; without ``from``, against the version before it. */
export const changesPage = (id, from = null) => `/changes/${enc(id)}${from ? `?from=${enc(from)}` : ''}`;

export const versionsApi = (id) => `${docApi(id)}/versions`;
export const changesApi = (id, from) => `${docApi(id)}/changes?from=${enc(from)}`;
export const impactApi = (id, from) => `${docApi(id)}/impact?from=${enc(from)}`;
export const impactExport = (id, from, format) => `${docApi(id)}/impact/export?from=${enc(from)}&format=${enc(format)}`;
