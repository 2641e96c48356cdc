// @ts-check
// If the page's module (www/app.js) or the view it imports (www/pkg-view/plateau.js) cannot be
// fetched — a missing build, a wrong path — the module never runs and could not say so itself.
// This classic script runs while the page is parsed, before the deferred module, and turns the
// module script's error event into a message instead of "Loading the engine…" forever. (A
// separate file because the page's Content-Security-Policy allows no inline script.)
document.getElementById('app-module')?.addEventListener('error', () => {
  const error = /** @type {HTMLElement} */ (document.getElementById('error'));
  const boot = document.getElementById('boot');
  error.textContent = 'The engine could not be loaded (www/app.js or www/pkg-view/plateau.js is missing or failed to download). '
    + 'If you serve the page yourself, build it first with scripts/build-web.sh.';
  error.hidden = false;
  if (boot) boot.hidden = true;
});
