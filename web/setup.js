/* setup.js - the Set up tab: terrain traced on the table's picture (a
 * tap puts a corner, snapping to the corners and edges of the pieces near
 * it; a corner placed can be dragged), each piece's kind changed, redrawn
 * or deleted, a hill's slope set (slope.js); tags not in the roster added
 * to it; the ruleset; all saved with PUT /api/scenario.  Nothing changes
 * the game until Save. */
import * as TTView from './view.js';
import * as TTDraw from './draw.js';
import {game, ui, render} from './store.js';
import {$, node, text, trouble, solved} from './ui.js';
import {api, keepTrying, GONE} from './api.js';
import {closeMenu} from './play.js';
import {raises, slopeField, slopeTrouble, clearSlopes} from './slope.js';
import {redrawBoard} from './board.js';

function say(t) { text($('setup-msg'), t); }
function round2(p) { return [Math.round(p[0] * 100) / 100, Math.round(p[1] * 100) / 100]; }

/* The table's picture (the camera's view straightened) under the pieces
 * being traced, once it has come (a promise; nothing to do in Play). */
function loadPhoto() {
  if (ui.mode !== 'setup') return Promise.resolve();
  return fetch('api/table.png?ppi=10').then(function (r) {
    if (!r.ok) throw new Error('the table answered ' + r.status + ' for its picture (/api/table.png).');
    return r.blob();
  }, function () {
    throw new Error(GONE);
  }).then(function (png) {
    return new Promise(function (done, fail) { /* as a data: address, kept with the page */
      const rd = new FileReader();
      rd.onload = function () { done(rd.result); };
      rd.onerror = function () { fail(new Error('the table\'s picture could not be read: ' + rd.error)); };
      rd.readAsDataURL(png);
    });
  }).then(function (data) {
    if (ui.mode !== 'setup') return;
    ui.photo = data;
    redrawBoard();
    render();
  });
}

/* Play or set up: the tabs, and the scenario as saved now for the set-up. */
export function setMode(m) {
  ui.mode = m;
  if (m !== 'play') closeMenu();
  $('play').hidden = m !== 'play';
  $('setup').hidden = m !== 'setup';
  $('tab-play').classList.toggle('on', m === 'play');
  $('tab-setup').classList.toggle('on', m === 'setup');
  ui.trace = [];
  if (m === 'setup') {
    /* the lists wait for it */
    ui.scenario = null;
    setupKey = '';
    $('terrain-list').textContent = '';
    ui.photo = null;
    keepTrying('photo', 'load the table\'s picture', loadPhoto, 'Meanwhile trace on the plain felt.');
    keepTrying('setup', 'read the set-up', function () {
      return api('GET', '/api/scenario').then(function (s) {
        if (ui.mode !== 'setup') return;
        ui.scenario = s;
        $('ruleset').value = s.ruleset || 'into-the-breach';
        render();
      });
    });
  }
  redrawBoard();
  render();
}

/* the terrain kinds of the ruleset (its profile), else every kind drawn */
function terrainKinds() {
  return game.rules && game.rules.terrain ? Object.keys(game.rules.terrain) : Object.keys(TTDraw.TERRAIN);
}
function fillKinds(sel, value) {
  sel.textContent = '';
  let kinds = terrainKinds();
  if (value && kinds.indexOf(value) < 0) kinds = kinds.concat([value]);
  kinds.forEach(function (k) { node('option', '', sel, k).value = k; });
  if (value) sel.value = value;
}
/* The ruleset changed: its kinds in the lists. */
export function rulesChanged() {
  fillKinds($('kind'));
  setupKey = '';
}

/* Finish: the corners traced become a piece (3 or more: an area), or the
 * piece being redrawn gets them. */
function finish() {
  const sc = ui.scenario, trace = ui.trace;
  if (!sc) return;
  if (trace.length < 2) return say('Tap at least 2 points (3 for an area).');
  let piece;
  if (ui.editing >= 0 && sc.terrain[ui.editing]) { /* redrawn: same id and kind, new corners */
    piece = sc.terrain[ui.editing];
    delete piece.polygon;
    delete piece.line;
    say('Redrew ' + piece.id + '. Save to use it.');
  } else {
    const kind = $('kind').value;
    let n = 1, id;
    do { id = kind + '-' + n++; } while ((sc.terrain || []).some(function (t) { return t.id === id; }));
    piece = {id: id, kind: kind};
    sc.terrain = (sc.terrain || []).concat([piece]);
    say('Added ' + id + '. Save to use it.');
  }
  piece[trace.length >= 3 ? 'polygon' : 'line'] = trace;
  ui.trace = [];
  ui.editing = -1;
  render();
}

function pieceItem(list, t, i) {
  const li = node('li', 'piece' + (ui.editing === i ? ' editing' : ''), list);
  const row = node('div', 'piece-row', li); /* the slope, if any, on a line of its own below */
  node('span', '', row, t.id || '?');
  const k = node('select', '', row);
  k.setAttribute('aria-label', 'kind of ' + (t.id || 'piece'));
  fillKinds(k, t.kind);
  k.addEventListener('change', function () {
    t.kind = k.value;
    if (!raises(t)) delete t.slope_in; /* only what raises has sides to slope */
    say((t.id || 'The piece') + ' is now ' + t.kind + '. Save to use it.');
    render();
  });
  const r = node('button', '', row, 'Redraw');
  r.type = 'button';
  r.addEventListener('click', function () {
    ui.editing = i;
    ui.trace = [];
    say('Tap the new corners of ' + (t.id || 'the piece') + ', then Finish.');
    render();
  });
  const b = node('button', '', row, 'Delete');
  b.type = 'button';
  b.addEventListener('click', function () {
    ui.scenario.terrain.splice(i, 1);
    ui.editing = -1;
    say('Deleted ' + (t.id || 'the piece') + '. Save to use it.');
    render();
  });
  if (t.polygon && raises(t)) slopeField(li, t, say);
}

let setupKey = '';
/* The set-up's lists (rebuilt only when they changed: a list open for
 * choosing stays open). */
export function drawSetup() {
  const sc = ui.scenario;
  if (!sc) return;
  const key = JSON.stringify([sc.terrain, game.state.unassigned, sc.tags, ui.editing]);
  if (key === setupKey) return;
  setupKey = key;
  const list = $('terrain-list');
  list.textContent = '';
  clearSlopes();
  (sc.terrain || []).forEach(function (t, i) { pieceItem(list, t, i); });
  const un = $('unassigned');
  un.textContent = '';
  (game.state.unassigned || []).forEach(function (tag) {
    if (sc.tags && sc.tags[String(tag)]) return;
    const li = node('li', '', un);
    node('span', '', li, 'tag ' + tag);
    const b = node('button', '', li, 'Assign');
    b.type = 'button';
    b.addEventListener('click', function () {
      $('assign').hidden = false;
      text($('assign-tag'), String(tag));
      $('assign').setAttribute('data-tag', tag);
    });
  });
  if (!un.firstChild) node('li', 'muted', un, 'none');
}

/* A tag put in the roster, where its figure stands now. */
function assign(ev) {
  ev.preventDefault();
  const tag = $('assign').getAttribute('data-tag'), sc = ui.scenario;
  const f = game.state.figures.find(function (x) { return String(x.tag) === tag; });
  const fig = {id: $('a-id').value.trim(), side: $('a-side').value.trim(), type: $('a-type').value.trim(),
               weapon: $('a-weapon').value.trim(), x: f ? f.x : 1, y: f ? f.y : 1, facing_deg: f ? f.facing_deg : 0};
  if ($('a-unit').value.trim()) fig.unit = $('a-unit').value.trim();
  sc.figures = (sc.figures || []).concat([fig]);
  sc.tags = sc.tags || {};
  sc.tags[tag] = fig.id;
  $('assign').hidden = true;
  say('Added ' + fig.id + '. Save to use it.');
  drawSetup();
}

function save() {
  const sc = ui.scenario;
  if (!sc) return;
  if (slopeTrouble()) return say('Not saved: ' + slopeTrouble());
  sc.ruleset = $('ruleset').value;
  sc.table = sc.table || {width_in: game.state.table.width_in, depth_in: game.state.table.depth_in};
  say('Saving\u2026');
  api('PUT', '/api/scenario', sc).then(function () {
    solved('save');
    say('Saved.');
  }, function (e) {
    trouble('save', 'Set-up not saved', e.message);
    say('Not saved: ' + e.message);
  });
}

/* The corners and edges of the other pieces a corner snaps to. */
function snapTo(px, py) {
  const lines = [];
  ((ui.scenario && ui.scenario.terrain) || []).forEach(function (t, i) {
    if (i !== ui.editing) lines.push({pts: t.polygon || t.line || [], closed: !!t.polygon});
  });
  return TTView.snap(ui.view, lines, px, py);
}

/* A tap at client (px, py), table point pt: a corner, if on the table. */
export function setupTap(px, py, pt) {
  const t = game.state.table;
  if (pt[0] >= 0 && pt[1] >= 0 && pt[0] <= t.width_in && pt[1] <= t.depth_in) {
    ui.trace.push(round2(snapTo(px, py) || pt));
    render();
  }
}

/* A pointer down at client (px, py): a corner placed is dragged (view.js grab). */
export function grab(px, py) {
  if (ui.mode !== 'setup' || !ui.trace.length) return null;
  const near = TTView.within(ui.view, ui.trace.map(function (p, i) { return {x: p[0], y: p[1], i: i}; }), px, py, 0);
  if (!near.length || near[0].d > TTView.REACH_PX / 2) return null;
  const i = near[0].item.i;
  const to = function (x, y) {
    ui.trace[i] = round2(snapTo(x, y) || ui.view.toTable(x, y));
    render();
  };
  return {move: to, end: to};
}

/* The Set up tab's own controls. */
export function startSetup() {
  $('tab-play').addEventListener('click', function () { setMode('play'); });
  $('tab-setup').addEventListener('click', function () { setMode('setup'); });
  fillKinds($('kind'));
  $('undo').addEventListener('click', function () {
    ui.trace.pop();
    render();
  });
  $('finish').addEventListener('click', finish);
  $('assign').addEventListener('submit', assign);
  $('save').addEventListener('click', save);
}
