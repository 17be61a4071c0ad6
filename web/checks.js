/* checks.js - what the referee saw this phase, on the page (docs/playing.md,
 * "The referee"): /api/state's "checks" listed, over-moves first
 * (`f12 5.2" of 4" — 1.2" over`), then moves out of turn, those too close
 * to call, those the dice decide, the fair ones; and "calls", this turn's
 * casualties and morale calls, each as a card (newest first). */
import {game} from './store.js';
import {$, node} from './ui.js';

const IN = '"';

function n1(x) { return (Math.round(x * 10) / 10).toFixed(1); }
/* an allowance as the book writes it: 4" whole, 4.5" not (as on the felt) */
function allowance(x) { return Math.abs(x - Math.round(x)) < 0.05 ? String(Math.round(x)) : n1(x); }
function num(x) { return typeof x === 'number' && isFinite(x); }

/* how bad a check is: 0 over, 1 out of turn, 2 too close to call, 3 dice to roll, 4 fair */
export function rank(c) {
  if (c.event === 'out_of_turn') return 1;
  if (c.too_close_to_call) return 2;
  if (c.ok === false) return 0;
  if (c.ok === null || c.ok === undefined) return 3;
  return 4;
}

/* a check in words: {big, cls} */
export function checkWords(c) {
  if (c.event === 'out_of_turn') return {big: c.id + ' moved out of turn', cls: 'out'};
  const what = c.event === 'charge_check' ? ' charged ' : ' ';
  const d = num(c.distance_in) ? n1(c.distance_in) + IN : '?';
  let big;
  if (num(c.allowed_in)) big = c.id + what + d + ' of ' + allowance(c.allowed_in) + IN;
  else if (Array.isArray(c.allowed_range_in)) big = c.id + what + d + ' of ' + c.allowed_range_in[0] + '\u2013' +
                                                    c.allowed_range_in[1] + IN;
  else big = c.id + what + d;
  if (c.ok === false && num(c.allowed_in) && c.distance_in > c.allowed_in)
    big += ' \u2014 ' + n1(c.distance_in - c.allowed_in) + IN + ' over';
  else if (c.ok === false) big += ' \u2014 over';
  else if (typeof c.needs_roll === 'number') big += ' \u2014 needs a roll of ' + c.needs_roll + '+';
  if (c.too_close_to_call) big += ' \u2014 too close to call';
  return {big: big, cls: ['over', 'out', 'close', 'roll', 'fair'][rank(c)]};
}

/* a call in words: {big, small} */
export function callWords(c) {
  if (c.event === 'casualties')
    return {big: c.unit + ' lost ' + c.lost + ' of ' + c.of,
            small: c.since_turn_start + ' since the turn began'};
  const t = c.test;
  let big = c.unit + ': ' + (c.call || 'test');
  if (t) big += ' ' + t.dice + (typeof t.needs === 'number' ? ', ' + t.needs + '+' : '');
  if (c.result) big += (t ? ' \u2014 ' : ' ') + c.result;
  const small = [];
  ((t && t.modifiers) || []).forEach(function (m) { small.push((m.value > 0 ? '+' : '') + m.value + ' ' + m.reason); });
  ((t && t.ask) || []).forEach(function (m) { small.push('ask: ' + (m.value > 0 ? '+' : '') + m.value + ' ' + m.reason); });
  if (t && t.needs_note) small.push(t.needs_note);
  return {big: big, small: small.join(' \u00b7 ')};
}

let drawnKey = '';

/* The list and the cards, rebuilt only when they changed. */
export function drawChecks() {
  const st = game.state, checks = (st && st.checks) || [], calls = (st && st.calls) || [];
  const key = JSON.stringify([checks, calls]);
  if (key === drawnKey) return;
  drawnKey = key;
  const box = $('referee');
  box.textContent = '';
  calls.slice().reverse().forEach(function (c) {
    const w = callWords(c);
    const card = node('div', 'card call' + (c.result ? ' blocked' : ''), box);
    card.setAttribute('data-unit', c.unit);
    card.setAttribute('data-event', c.event);
    node('div', 'big', card, w.big);
    if (w.small) node('div', 'small', card, w.small);
    if (c.rule) node('div', 'rule', card, c.rule);
  });
  if (!checks.length) return;
  node('h3', '', box, 'Moves this phase');
  const ol = node('ol', 'list checks', box);
  ol.id = 'checks';
  checks.map(function (c, i) { return {c: c, i: i}; }).sort(function (a, b) {
    return rank(a.c) - rank(b.c) || a.i - b.i;
  }).forEach(function (e) {
    const w = checkWords(e.c);
    const li = node('li', 'check ' + w.cls, ol);
    li.setAttribute('data-id', e.c.id);
    node('div', 'big', li, w.big);
    if (e.c.rule) node('div', 'rule', li, e.c.rule);
  });
}
