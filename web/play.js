/* play.js - asking, on the Play tab: a tap on a figure opens the questions
 * its weapon and the ruleset allow (the nearest figure within a
 * fingertip's reach, or a chooser when several are), a tap on an empty
 * spot offers a blast; a question that needs a target or a spot waits for
 * the next tap.  The figure picked is told to the server (PUT /api/pick:
 * the projector rings it) while its menu is open.  Find a figure or unit
 * by name; clear the table. */
import * as TTView from './view.js';
import {game, ui, render, figName, figTitle, rosterOf, sideColour} from './store.js';
import {$, node, text, trouble, troubled, solved} from './ui.js';
import {api, tell, sentence, KEY} from './api.js';
import {diceForm} from './dice.js';
import {FIG_R} from './board.js';

const HINT = 'Tap a figure to ask about it, or an empty spot for a blast. Pinch or scroll to zoom.';

/* What a figure may be asked, from its weapon and the ruleset's profile. */
function questionsFor(f) {
  const rules = game.rules, r = game.roster.find(function (x) { return x.id === f.id; }) || null;
  const w = rules && rules.weapons && r && r.weapon ? rules.weapons[r.weapon] || null : null;
  const out = [];
  if (!w || !w.deviation || w.brackets || w.dice) out.push({q: 'fire', label: 'Fire at\u2026', needs: 'figure'});
  out.push({q: 'los', label: 'Line of sight to\u2026', needs: 'figure'});
  if (w && w.grape) out.push({q: 'grape', label: 'Grape', needs: null});
  if (w && w.ball) out.push({q: 'ball', label: 'Cannonball at\u2026', needs: 'figure'});
  if (w && w.deviation)
    out.push({q: 'deviate', label: (w.blast_radius_in ? 'Shell' : 'Shot') + ' lands\u2026', needs: 'point',
              dev: w.deviation, weapon: r.weapon});
  else if (w && w.blast_radius_in)
    out.push({q: 'blast', label: 'Blast at\u2026', needs: 'point', weapon: r.weapon});
  out.push({q: 'move', label: 'Move to\u2026', needs: 'point'});
  const ch = rules && rules.charge;
  if (ch && (!ch.inches || (r && r.type && ch.inches[r.type] !== undefined)))
    out.push({q: 'charge', label: 'Charge\u2026', needs: 'figure'});
  out.push({q: 'aspect', label: 'Flank or rear of\u2026', needs: 'figure'});
  const cm = rules && rules.command && rules.command.types; /* where the ruleset names who commands */
  if (!cm || (r && cm[r.type || 'foot'] !== undefined))
    out.push({q: 'command', label: 'Command radius', needs: null});
  out.push({q: 'visibility', label: 'What it sees', needs: null});
  return out;
}

export function closeMenu() {
  ui.pending = null;
  ui.sel = null;
  ui.choices = [];
  $('menu').hidden = true;
  text($('hint'), HINT);
  render();
}

function ask(q) {
  closeMenu();
  tell('ask', 'Not asked: ' + q.q + (q.from ? ' ' + q.from : ''), api('POST', '/api/query', q));
}

let pickTimer = null;
/* Tell the server which figure this page has picked (its menu is open),
 * renewed while it stays open, withdrawn when it closes. */
export function syncPick() {
  const want = ui.sel && ui.sel.id && KEY ? ui.sel.id : null, was = ui.picked;
  if (want === was) return;
  ui.picked = want;
  clearInterval(pickTimer);
  pickTimer = null;
  solved('pick');
  /* (the table lost, its card says so: none for the pick) */
  if (!want) {
    api('DELETE', '/api/pick').then(function () { solved('unpick'); }, function (e) {
      if (!troubled('live')) trouble('unpick', 'The felt may ring ' + was + ' for 10 s more', e.message);
    });
    return;
  }
  const put = function () {
    api('PUT', '/api/pick', {id: want}).then(function () {
      if (ui.picked === want) solved('pick');
    }, function (e) {
      if (ui.picked === want && !troubled('live'))
        trouble('pick', 'The felt does not ring ' + want, sentence(e.message) + ' Trying again in 4 s\u2026', true);
    });
  };
  put();
  pickTimer = setInterval(put, 4000); /* the server drops a pick not renewed in 10 s */
}

function closeButton(m) {
  const x = node('button', 'close', m, 'Close');
  x.type = 'button';
  x.setAttribute('data-q', 'close');
  x.addEventListener('click', closeMenu);
}

/* Several figures within reach of a tap: which one?  Nearest first;
 * then then(f) with the one chosen. */
function chooser(list, then, what) {
  const m = $('menu');
  m.textContent = '';
  ui.sel = ui.pending ? ui.sel : null;
  ui.choices = list;
  text($('hint'), what || 'Which figure?');
  list.forEach(function (f) {
    const b = node('button', 'choice', m, [figTitle(f), rosterOf(f).side || f.side].filter(Boolean).join(' \u00b7 '));
    b.type = 'button';
    b.setAttribute('data-id', f.id);
    b.style.borderColor = sideColour(f.side);
    b.addEventListener('click', function () {
      ui.choices = [];
      then(f);
    });
  });
  closeButton(m);
  m.hidden = false;
  render();
}

function openMenu(f) {
  ui.sel = f;
  ui.pending = null;
  ui.choices = [];
  const m = $('menu');
  m.textContent = '';
  text($('hint'), figTitle(f) + ': what do you want to know?');
  questionsFor(f).forEach(function (item) {
    const b = node('button', '', m, item.label);
    b.type = 'button';
    b.setAttribute('data-q', item.q);
    b.addEventListener('click', function () {
      if (!item.needs) return ask({q: item.q, from: f.id});
      ui.pending = item;
      m.hidden = true;
      text($('hint'), figName(f) + ', ' + item.label.replace('\u2026', '').toLowerCase() + ': tap ' +
                      (item.needs === 'figure' ? 'the target' : 'the spot'));
    });
  });
  closeButton(m);
  m.hidden = false;
  render();
}

function blastMenu(pt) {
  const m = $('menu');
  m.textContent = '';
  ui.sel = null;
  ui.choices = [];
  text($('hint'), 'At (' + pt[0] + ', ' + pt[1] + '):');
  const b = node('button', '', m, 'Blast here');
  b.type = 'button';
  b.setAttribute('data-q', 'blast');
  const mortar = game.roster.some(function (r) { return r.weapon === 'mortar'; });
  b.addEventListener('click', function () {
    ask(mortar ? {q: 'blast', at: pt, weapon: 'mortar'} : {q: 'blast', at: pt, radius_in: 2});
  });
  closeButton(m);
  m.hidden = false;
  render();
}

/* The figures with an id within a fingertip of client (px, py), nearest
 * first; one of them alone when the tap is on its disc and the next is
 * well beyond it. */
function figuresAt(px, py) {
  const v = ui.view;
  let near = TTView.within(v, game.state.figures.filter(function (f) { return f.id; }), px, py, FIG_R);
  const rpx = FIG_R * v.pxPerInch();
  if (near.length > 1 && near[0].d <= rpx + 2 && near[1].d - near[0].d >= TTView.REACH_PX / 2) near = near.slice(0, 1);
  return near.slice(0, 8).map(function (n) { return n.item; });
}

/* A tap at client (px, py), table point pt (inches, to 0.01"), in play. */
export function playTap(px, py, pt) {
  const near = figuresAt(px, py), sel = ui.sel, pending = ui.pending;
  if (pending && sel) {
    if (pending.needs === 'figure') {
      const fire = function (f) { ask({q: pending.q, from: sel.id, to: f.id}); };
      const others = near.filter(function (f) { return f.id !== sel.id; });
      if (others.length === 1) return fire(others[0]);
      if (others.length > 1) return chooser(others, fire, 'Which target?');
      return;
    }
    /* a spot: where the finger is, unless it is on a figure's disc */
    const s = near.length ? ui.view.toScreen(near[0].x, near[0].y) : null;
    if (s && Math.hypot(s[0] - px, s[1] - py) <= FIG_R * ui.view.pxPerInch()) return;
    if (pending.q === 'deviate') return diceForm(pending, pt, ask);
    if (pending.q === 'blast') return ask({q: 'blast', at: pt, weapon: pending.weapon});
    return ask({q: pending.q, from: sel.id, to: pt});
  }
  if (near.length === 1) return openMenu(near[0]);
  if (near.length > 1) return chooser(near, openMenu);
  blastMenu(pt);
}

/* Find a figure or a unit by id: its menu (shown close up), or a chooser. */
function find(ev) {
  ev.preventDefault();
  const q = $('find').value.trim().toLowerCase();
  if (!game.state || !q) return;
  const figs = game.state.figures.filter(function (f) { return f.id; });
  let hit = figs.filter(function (f) { return f.id.toLowerCase() === q; });
  if (!hit.length) hit = figs.filter(function (f) { return (f.unit || '').toLowerCase() === q; });
  if (!hit.length)
    hit = figs.filter(function (f) {
      return f.id.toLowerCase().indexOf(q) === 0 || (f.unit || '').toLowerCase().indexOf(q) === 0;
    });
  if (!hit.length) return text($('hint'), 'No figure or unit ' + $('find').value.trim() + ' on the table.');
  let cx = 0, cy = 0;
  hit.forEach(function (f) { cx += f.x; cy += f.y; });
  ui.view.show(cx / hit.length, cy / hit.length, hit.length === 1 ? 4 : 2);
  $('find').blur();
  if (hit.length === 1) return openMenu(hit[0]);
  chooser(hit.slice(0, 12), openMenu, hit.length + ' found: which one?');
}

/* The Play tab's own controls. */
export function startPlay() {
  $('find-form').addEventListener('submit', find);
  $('clear').addEventListener('click', function () {
    tell('clear', 'Not cleared', api('DELETE', '/api/query'));
  });
  if (!KEY) $('nokey').hidden = false;
}
