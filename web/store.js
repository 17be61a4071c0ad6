/* store.js - what the live table page knows, in one place: the game as the
 * server last told it (game), and what the player is doing on this page
 * (ui).  The other modules read and change these fields, then call
 * render() to show the change; app.js says what render() draws (onRender),
 * so no module has to import the page's entry. */
import {SIDES} from './draw.js';

export const game = {
  state: null,         /* the last state (GET /api/state, or /api/live's 'state' events) */
  roster: [],          /* the scenario's figures (GET /api/scenario), for the menus */
  rosterRev: undefined, /* the scenario_rev the roster is of */
  rules: null,         /* the ruleset's profile (GET /api/rules), for the menus */
  rulesFor: undefined  /* the ruleset the profile is of */
};

export const ui = {
  view: null,          /* the table's zoom and pan (view.js attach), set by app.js */
  mode: 'play',        /* 'play' or 'setup' (the tabs) */
  sel: null,           /* the figure whose menu is open */
  pending: null,       /* a question asked of sel waiting for its target: {q, needs: 'figure'|'point', ...} */
  choices: [],         /* the figures a chooser offers (ringed on the table) */
  picked: null,        /* the figure the server was last told this page picked (PUT /api/pick) */
  trace: [],           /* set-up: the corners tapped so far, inches */
  editing: -1,         /* set-up: the index of the piece being redrawn, or -1 */
  scenario: null,      /* set-up: the scenario as edited, before it is saved */
  photo: null          /* set-up: the address of the table's picture under the pieces */
};

let redraw = function () {};
/* What render() draws: app.js gives it once. */
export function onRender(f) { redraw = f; }
export function render() { redraw(); }

/* ---- questions about the game, for every module ---- */
export function figName(f) { return f.id || ('tag ' + f.tag); }
/* a figure's roster entry ({} when it has none) */
export function rosterOf(f) {
  return game.roster.find(function (r) { return r.id === f.id; }) || {};
}
/* id, type and unit: what a player checks before asking */
export function figTitle(f) {
  return [figName(f), rosterOf(f).type, f.unit].filter(Boolean).join(' \u00b7 ');
}
/* a side's colour: the order sides were first seen, as on the felt */
const sideIndex = {};
export function sideColour(side) {
  if (!side) return '#9e9e9e';
  if (!(side in sideIndex)) sideIndex[side] = Object.keys(sideIndex).length;
  return SIDES[sideIndex[side] % SIDES.length];
}
export function sidesSeen() { return Object.keys(sideIndex); }
