// @ts-check
// The papers' terms, defined where they first appear: each is a button (reachable by Tab, opened by
// Enter, Space, a click or a tap) that shows its definition inline, right after it, and hides it
// again. The markup is index.html's:
//   <button type="button" class="term" aria-expanded="false" aria-controls="def-x">x</button><span
//   class="def" id="def-x" role="note" hidden> (what x means)</span>

/** Opens or closes the definition of each `.term` button on a click (keyboard and touch included). */
export function wireTerms() {
  document.addEventListener('click', (e) => {
    const button = /** @type {HTMLElement | null} */ (e.target instanceof Element ? e.target.closest('button.term') : null);
    if (!button) return;
    const def = document.getElementById(button.getAttribute('aria-controls') ?? '');
    if (!def) return;
    const open = def.hidden;
    def.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
  });
  // Escape closes the definition of the term that has the focus.
  document.addEventListener('keydown', (e) => {
    const button = document.activeElement;
    if (e.key !== 'Escape' || !(button instanceof HTMLElement) || !button.matches('button.term')) return;
    const def = document.getElementById(button.getAttribute('aria-controls') ?? '');
    if (def && !def.hidden) { def.hidden = true; button.setAttribute('aria-expanded', 'false'); }
  });
}
