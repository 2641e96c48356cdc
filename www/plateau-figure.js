// @ts-check
// <plateau-figure>: one live Plateau figure, for blog posts and slides. One script tag:
//
//   <script type="module" src="https://your.host/plateau/www/plateau-figure.js"></script>
//   <plateau-figure chapter="plateau" c="2.5" controls="c,seed"></plateau-figure>
//   <plateau-figure chapter="init" gamma="0.8"></plateau-figure>
//   <plateau-figure chapter="syntax" lambda="0.1" lambda-until="200" height="700"></plateau-figure>
//
// `chapter` is plateau | init | syntax (or any experiment name); every other attribute except
// `height` and `title` is passed on as a URL parameter of the page (schema keys such as `c`,
// `gamma`, `seed`, `preset`, and the page keys `controls`, `hide`, `autoplay`, `backend`). The
// page validates them and shows a notice for a bad one. Each figure is an <iframe> of the page,
// with its own worker and run, so several figures on one page stay independent. By default the
// prose and the chapter navigation are hidden (`hide="prose,nav"`).

const PAGE = new URL('../index.html', import.meta.url);
const CHAPTERS = { plateau: 'mws', init: 'anchors', syntax: 'syntax' };

class PlateauFigure extends HTMLElement {
  connectedCallback() {
    if (this.querySelector('iframe')) return;
    const params = new URLSearchParams();
    for (const { name, value } of Array.from(this.attributes)) {
      if (name === 'height' || name === 'title' || name === 'class' || name === 'id' || name === 'style') continue;
      if (name === 'chapter') params.set('experiment', CHAPTERS[value] || value);
      else params.set(name, value);
    }
    if (!params.has('hide')) params.set('hide', 'prose,nav');
    const frame = document.createElement('iframe');
    frame.src = `${PAGE.href}?${params}`;
    frame.title = this.getAttribute('title') || 'Plateau: a small transformer training live';
    frame.width = '100%';
    const h = Number(this.getAttribute('height'));
    frame.height = String(Number.isFinite(h) && h >= 200 && h <= 5000 ? Math.round(h) : 900);
    frame.setAttribute('frameborder', '0');
    this.replaceChildren(frame);
  }
}

if (!customElements.get('plateau-figure')) customElements.define('plateau-figure', PlateauFigure);
