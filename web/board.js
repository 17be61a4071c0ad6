/* board.js - the live game drawn on the page's table (the shared drawing,
 * draw.js): felt, terrain (while setting up, the pieces as edited, over the
 * table's picture), the figures by side, picked and offered figures
 * marked, the answers shown, the corners being traced; and the legend.
 * Redraws only what changed: the board when the table or its terrain did,
 * a figure's place every frame. */
import * as TTDraw from './draw.js';
import {game, ui, figName, sideColour, sidesSeen} from './store.js';
import {$, node} from './ui.js';

export const FIG_R = 0.55; /* a figure's disc on the page, inches */
let layers = null, boardKey = '', figEls = {}, declutterKey = '';

function drawBoard(svg) {
  const st = game.state;
  const terrain = ui.mode === 'setup' && ui.scenario ? ui.scenario.terrain || [] : st.terrain;
  const key = st.table.width_in + 'x' + st.table.depth_in + JSON.stringify(terrain) + ui.mode +
              (ui.photo ? 'p' : '');
  if (key === boardKey) return;
  boardKey = key;
  layers = TTDraw.board(svg, st.table.width_in, st.table.depth_in, 1);
  ui.view.board(svg.getAttribute('viewBox').split(' ').map(Number));
  if (ui.mode === 'setup' && ui.photo)
    TTDraw.el('image', {href: ui.photo, x: 0, y: 0, width: st.table.width_in, height: st.table.depth_in,
                        preserveAspectRatio: 'none', opacity: 0.85}, layers.terrain);
  terrain.forEach(function (t) {
    TTDraw.terrain(layers.terrain, {id: t.id, kind: t.kind, pts: t.polygon || t.line || [], closed: !!t.polygon,
                                    slope_in: t.slope_in});
  });
  figEls = {};
}

function drawFigures() {
  const seen = {};
  game.state.figures.forEach(function (f) {
    const k = 'tag' + f.tag;
    seen[k] = 1;
    let fe = figEls[k];
    if (!fe) {
      fe = figEls[k] = TTDraw.figure(layers.figs, {r: FIG_R, colour: sideColour(f.side), label: figName(f),
                                                   title: figName(f) + (f.unit ? ' (' + f.unit + ')' : '')});
      fe.g.setAttribute('data-id', f.id || '');
      fe.g.setAttribute('data-tag', f.tag);
      fe.label.setAttribute('y', 0.7); /* its size is in screen px (style.css): hung below the disc */
    }
    TTDraw.place(fe, f.x, f.y, f.facing_deg, f.state === 'seen' ? 0 : f.state === 'occluded' ? 1 : 2);
    fe.g.classList.toggle('sel', !!ui.sel && ui.sel.tag === f.tag);
    fe.g.classList.toggle('cand', ui.choices.some(function (c) { return c.tag === f.tag; }));
  });
  Object.keys(figEls).forEach(function (k) {
    if (!seen[k]) {
      figEls[k].g.remove();
      delete figEls[k];
    }
  });
}

/* the answers shown, each as it looks on the felt (its "look") */
function drawAnswers() {
  layers.over.textContent = '';
  TTDraw.answers(layers.over, game.state.shown);
  const trace = ui.trace;
  if (!trace.length) return;
  TTDraw.el('polyline', {points: trace.map(function (p) { return p.join(','); }).join(' '), fill: 'none',
                         stroke: '#f0e442', 'stroke-width': 0.2}, layers.over);
  const cr = 6 / ui.view.pxPerInch(); /* 6 px on screen at any zoom */
  trace.forEach(function (p, i) {
    TTDraw.el('circle', {cx: p[0], cy: p[1], r: cr, fill: '#f0e442', 'class': 'corner', 'data-i': i}, layers.over);
  });
}

function drawLegend() {
  const leg = $('legend');
  leg.textContent = '';
  sidesSeen().forEach(function (s) {
    const sp = node('span', '', leg);
    node('span', 'swatch', sp).style.background = sideColour(s);
    sp.appendChild(document.createTextNode(s));
  });
  node('span', '', leg, 'blue line: can see \u00b7 orange dashed: blocked \u00b7 faded: hidden or lost');
}

/* The table as it is now on svg. */
export function drawTable(svg) {
  drawBoard(svg);
  drawFigures();
  drawAnswers();
  /* the names' places: again when the figures, the board or the view
   * changed (a frame's jitter of a few hundredths is not a change) */
  const dk = boardKey + (ui.view.box() || []).join(',') + game.state.figures.map(function (f) {
    return f.tag + ':' + Math.round(f.x * 5) + ',' + Math.round(f.y * 5) + f.state;
  }).join(' ');
  if (dk !== declutterKey || svg.querySelector('.ov-label')) {
    declutterKey = dk;
    TTDraw.declutter(svg, {hide: true});
  }
  drawLegend();
}

/* The board is drawn afresh on the next drawTable (the mode or picture changed). */
export function redrawBoard() { boardKey = ''; }
