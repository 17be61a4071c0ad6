/* turn.js - the referee on the page (docs/playing.md, "The referee"): the
 * turn bar (Turn 3 · British · movement) with Next (POST /api/phase
 * {"next": true}) and Pick (a turn, phase and side set directly); until a
 * phase is set, "Start the game"; who won the initiative roll asked when a
 * turn's first phase is set.  What the bar shows comes from /api/state
 * ("phase", "next_phase"), the phases from the ruleset's profile ("turns")
 * and the sides from the roster.  Every change needs the table's key:
 * without it a card says so, with the server's answer (api.js tell).
 * This phase's checks and this turn's calls are checks.js's. */
import {game, render} from './store.js';
import {$, node, text} from './ui.js';
import {api, tell, KEY} from './api.js';

/* what the bar asks now: null, {mode: 'initiative', turn, phase} or {mode: 'pick'} */
let asking = null;
let drawnKey = '';

/* the profile's phases [{name, sides}], [] without them */
export function phasesOf() {
  const t = game.rules && game.rules.turns;
  return t && Array.isArray(t.phases) ? t.phases : [];
}

/* the scenario's sides in the order they first appear (as the referee's) */
export function sidesOf() {
  const s = [];
  (game.roster || []).forEach(function (f) { if (f.side && s.indexOf(f.side) < 0) s.push(f.side); });
  return s;
}

export function cap(s) { return s ? s.charAt(0).toUpperCase() + s.slice(1) : ''; }

/* where the game stands in words: "Turn 3 · British · movement" (as on the felt) */
export function phaseWords(p) {
  return 'Turn ' + p.turn + (p.side ? ' \u00b7 ' + cap(p.side) : '') + ' \u00b7 ' + p.phase;
}

function phaseHasSides(name) {
  const p = phasesOf().find(function (q) { return q.name === name; });
  return !p || p.sides !== 'none';
}

/* POST /api/phase body; big: what did not happen, on the card if it fails
 * (on a page without the key: that it needs it; the table's answer under it) */
function send(body, big) {
  return tell('phase', KEY ? big : (body.next ? 'Next' : 'Setting the phase') + ' needs the table\u2019s key',
              api('POST', '/api/phase', body)).then(function (j) {
    if (j) {
      asking = null;
      if (game.state) game.state.phase = j; /* the rest comes with the next state */
      render();
    }
    return j;
  });
}

function next() {
  const st = game.state, np = st.next_phase;
  if (np && st.phase && np.turn > st.phase.turn && np.side) {
    /* a new turn: the players roll for the initiative first */
    asking = {mode: 'initiative', turn: np.turn, phase: np.phase};
    render();
    return;
  }
  send({next: true}, 'Not moved on from ' + (st.phase ? phaseWords(st.phase) : 'the start'));
}

function start() {
  const first = phasesOf()[0];
  if (!first) {
    send({turn: 1, phase: '?', side: sidesOf()[0] || '?'}, 'The game did not start');
    return;
  }
  if (first.sides === 'none') send({turn: 1, phase: first.name}, 'The game did not start');
  else {
    asking = {mode: 'initiative', turn: 1, phase: first.name};
    render();
  }
}

function button(parent, label, id, onClick) {
  const b = node('button', '', parent, label);
  b.type = 'button';
  if (id) b.id = id;
  b.addEventListener('click', onClick);
  return b;
}

function askInitiative(box) {
  const a = asking;
  node('div', 'ask-q', box, 'Turn ' + a.turn + ': who won the initiative roll?');
  const row = node('div', 'row', box);
  sidesOf().forEach(function (s) {
    button(row, cap(s), '', function () {
      send({turn: a.turn, phase: a.phase, side: s}, 'Turn ' + a.turn + ' did not start');
    }).setAttribute('data-side', s);
  });
  button(row, 'Cancel', 'turn-cancel', function () { asking = null; render(); }).className = 'close';
}

function select(parent, label, id, options) {
  const l = node('label', '', parent, label + ' ');
  const s = node('select', '', l);
  s.id = id;
  options.forEach(function (o) {
    const op = node('option', '', s, o[1]);
    op.value = o[0];
  });
  return s;
}

function askPick(box) {
  const st = game.state;
  const form = node('form', 'pick', box);
  form.id = 'turn-form';
  const tl = node('label', '', form, 'Turn ');
  const turn = node('input', '', tl);
  turn.id = 'pick-turn';
  turn.type = 'number';
  turn.min = st.phase ? st.phase.turn : 1;
  turn.value = st.phase ? st.phase.turn : 1;
  const phase = select(form, 'Phase', 'pick-phase', phasesOf().map(function (p) { return [p.name, p.name]; }));
  if (st.phase) phase.value = st.phase.phase;
  const side = select(form, 'Side', 'pick-side', sidesOf().map(function (s) { return [s, cap(s)]; })
                      .concat([['', 'both at once']]));
  if (st.phase) side.value = st.phase.side || '';
  const row = node('div', 'row', form);
  const set = button(row, 'Set', 'pick-set', function () {});
  set.type = 'submit';
  button(row, 'Cancel', 'turn-cancel', function () { asking = null; render(); }).className = 'close';
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    const t = Number(turn.value), body = {turn: t, phase: phase.value};
    if (!(t >= 1 && Number.isInteger(t))) {
      turn.setAttribute('aria-invalid', 'true');
      return;
    }
    if (side.value || phaseHasSides(phase.value)) body.side = side.value;
    send(body, 'Not set to ' + phaseWords({turn: t, phase: phase.value, side: side.value}));
  });
}

/* The bar and what it asks, redrawn only when they change. */
export function drawTurn() {
  const st = game.state, bar = $('turnbar'), box = $('turn-ask');
  const shown = !!(st && st.ruleset && (st.phase || phasesOf().length));
  const key = JSON.stringify([shown, st && st.phase, st && st.next_phase, asking, phasesOf().length,
                              sidesOf().length]);
  if (key === drawnKey) return;
  drawnKey = key;
  bar.hidden = !shown;
  box.hidden = !shown || !asking;
  if (!shown) return;
  text($('turn-text'), st.phase ? phaseWords(st.phase) : 'No phase set yet');
  $('turn-next').hidden = $('turn-pick').hidden = !st.phase;
  $('turn-start').hidden = !!st.phase;
  box.textContent = '';
  if (asking && asking.mode === 'initiative') askInitiative(box);
  else if (asking) askPick(box);
}

export function startTurn() {
  $('turn-next').addEventListener('click', next);
  $('turn-start').addEventListener('click', start);
  $('turn-pick').addEventListener('click', function () {
    asking = asking && asking.mode === 'pick' ? null : {mode: 'pick'};
    render();
  });
}
