// Moving between the app's pages without a page load. The router (main.js) imports every
// screen, so a screen that moves on after a form imports this module, never main.js: the
// router hands its renderer down here once, and the imports stay one-way.

let renderer = null;

/** Called once by the router with the function that draws the screen for the current path. */
export function setRenderer(render) {
  renderer = render;
}

export function navigate(path, { replace = false } = {}) {
  if (!renderer) {
    // No router yet (a screen used on its own): an ordinary page load still gets there.
    if (replace) window.location.replace(path);
    else window.location.assign(path);
    return;
  }
  if (replace) window.history.replaceState({}, '', path);
  else window.history.pushState({}, '', path);
  renderer();
}
