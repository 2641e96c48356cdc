// @ts-check
// <plateau-figure>: one live Plateau figure, for blog posts and slides. One script tag:
//
//   <script type="module" src="https://your.host/plateau/www/plateau-figure.js"></script>
//   <plateau-figure chapter="plateau" c="2.5" seed="2" controls="c,seed"></plateau-figure>
//   <plateau-figure chapter="init" gamma="0.8"></plateau-figure>
//   <plateau-figure chapter="plateau" only="loss,map-att" height="520"></plateau-figure>
//
// A figure without `height` grows and shrinks with what it shows; with `height` (pixels), it lays
// its charts out to fit that height (an `only=` figure's charts share it).
//
// `chapter` is plateau | init | syntax | text (or any experiment name); every other attribute except
// `height`, `title` and `concurrent` is passed on as a URL parameter of the page (schema keys such
// as `c`, `gamma`, `seed`, `preset`, and the page keys `controls`, `hide`, `autoplay`, `backend`,
// `only`, `seeds`). The page validates them and shows a notice for a bad one. Each figure is an <iframe> of
// the page, with its own worker and run. By default the prose and the chapter navigation are
// hidden (`hide="prose,nav"`).
//
// A figure trains while it is in view: it starts when scrolled into view and pauses when scrolled
// away, and says so. Of the figures on one page, one trains at a time: the one the reader last
// scrolled to or pressed Play in; the others wait, and the next one in the page starts when it
// finishes or leaves the view. A figure with the `concurrent` attribute trains whenever it is in
// view, beside the others.

const PAGE = new URL('../index.html', import.meta.url);
const CHAPTERS = { plateau: 'mws', init: 'anchors', syntax: 'syntax', text: 'lm' };

/** @type {{el: PlateauFigure, frame: HTMLIFrameElement, wants: boolean, told: string, fixed: boolean, fitted: boolean}[]} */
const figures = [];
/** @type {(typeof figures)[number] | null} */
let active = null;

/** Gives the one training slot to `preferred` (when it wants it) or keeps it, else to the first figure that wants it. */
/** @param {(typeof figures)[number] | null} preferred */
function decide(preferred) {
  const shared = figures.filter((f) => !f.el.hasAttribute('concurrent'));
  if (preferred && preferred.wants && shared.includes(preferred)) active = preferred;
  if (!active || !active.wants || !figures.includes(active)) active = shared.find((f) => f.wants) || null;
  for (const f of figures) {
    const word = f === active || f.el.hasAttribute('concurrent') ? 'go' : 'yield';
    if (word !== f.told) {
      f.told = word;
      f.frame.contentWindow?.postMessage({ plateau: word }, '*');
    }
  }
}

window.addEventListener('message', (e) => {
  const f = figures.find((x) => x.frame.contentWindow === e.source);
  const msg = e.data && typeof e.data === 'object' ? e.data.plateau : null;
  if (!f || !msg || typeof msg !== 'object') return;
  // The first word from a figure of fixed height (its page listens by now): lay out for it.
  if (f.fixed && !f.fitted) {
    f.fitted = true;
    f.frame.contentWindow?.postMessage({ plateau: 'fit' }, '*');
  }
  if ('height' in msg) {
    const h = Number(msg.height);
    if (!f.fixed && Number.isFinite(h)) f.frame.height = String(Math.max(200, Math.min(20000, Math.round(h))));
  } else if ('wants' in msg) {
    f.wants = !!msg.wants;
    decide(f.wants ? f : null);
  } else if (msg.claim) {
    f.wants = true;
    decide(f);
  }
});

class PlateauFigure extends HTMLElement {
  connectedCallback() {
    if (this.querySelector('iframe')) return;
    const params = new URLSearchParams();
    for (const { name, value } of Array.from(this.attributes)) {
      if (['height', 'title', 'class', 'id', 'style', 'concurrent'].includes(name)) continue;
      if (name === 'chapter') params.set('experiment', /** @type {Record<string, string>} */ (CHAPTERS)[value] || value);
      else params.set(name, value);
    }
    if (!params.has('hide')) params.set('hide', 'prose,nav');
    const frame = document.createElement('iframe');
    frame.src = `${PAGE.href}?${params}`;
    frame.title = this.getAttribute('title') || 'Plateau: a small transformer training live';
    frame.width = '100%';
    // With a height, the figure lays its charts out for it; without one, the frame follows the
    // height of what the page shows (it posts its height whenever that changes).
    const h = Number(this.getAttribute('height'));
    const fixed = this.hasAttribute('height') && Number.isFinite(h) && h >= 200 && h <= 5000;
    frame.height = String(fixed ? Math.round(h) : 600);
    frame.setAttribute('frameborder', '0');
    this.replaceChildren(frame);
    figures.push({ el: this, frame, wants: false, told: '', fixed, fitted: false });
  }

  disconnectedCallback() {
    const i = figures.findIndex((f) => f.el === this);
    if (i >= 0) figures.splice(i, 1);
    decide(null);
  }
}

if (!customElements.get('plateau-figure')) customElements.define('plateau-figure', PlateauFigure);
