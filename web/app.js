/* app.js - the live table page (index.html loads it as an ES module; no
 * build step), put together: the game from /api/live (Server-Sent Events),
 * drawn (board.js, on the shared drawing draw.js), zoomed and panned
 * (view.js), asked about on the Play tab (play.js, dice.js, cards.js) and
 * changed on the Set up tab (setup.js), the referee's turn bar (turn.js)
 * and what it saw (checks.js), through the API (api.js: no
 * failure is silent).  What the page knows is in store.js.
 * The hidden #tt-state holds what the page shows, as JSON, for tests;
 * window.ttTable lets them read the state and drive the view. */
import * as TTView from './view.js';
import {game, ui, onRender} from './store.js';
import {$, text, trouble, troubled, solved, troubles} from './ui.js';
import {api, keepTrying, stopTrying, CLIENT} from './api.js';
import {drawTable} from './board.js';
import {drawCards} from './cards.js';
import {playTap, syncPick, startPlay} from './play.js';
import {drawSetup, setupTap, grab, rulesChanged, startSetup} from './setup.js';
import {drawTurn, startTurn} from './turn.js';
import {drawChecks} from './checks.js';

const svg = $('table');

function render() {
  const st = game.state;
  if (!st) return;
  drawTable(svg);
  syncPick();
  drawCards();
  drawTurn();
  drawChecks();
  text($('status'), (troubled('live') ? 'reconnecting\u2026 \u00b7 last ' : '') + 'frame ' + st.frame +
       (st.camera !== 'ok' ? ' \u00b7 camera ' + st.camera : '') + (st.ruleset ? ' \u00b7 ' + st.ruleset : ''));
  if (ui.mode === 'setup') drawSetup();
  $('tt-state').textContent = JSON.stringify({frame: st.frame, figures: st.figures.length, cards: st.shown.length,
                                              mode: ui.mode, trace: ui.trace.length, zoom: ui.view.zoom(),
                                              picked: ui.picked, trouble: troubles()});
}
onRender(render);

/* A new state: the roster and the ruleset's profile fetched when they
 * changed (the menus need them), then drawn. */
function onState(s) {
  game.state = s;
  if (s.scenario_rev !== game.rosterRev) {
    const rev = game.rosterRev = s.scenario_rev;
    keepTrying('roster', 'read the roster', function () {
      return api('GET', '/api/scenario').then(function (sc) {
        if (game.rosterRev !== rev) return;
        game.roster = sc.figures || [];
        render(); /* the turn bar's sides come from it, and the game may have ended: no state follows */
      });
    }, 'Meanwhile the menus may offer what a figure cannot do.');
  }
  if (s.ruleset !== game.rulesFor) {
    const rs = game.rulesFor = s.ruleset;
    keepTrying('rules', 'read the ruleset', function () {
      return api('GET', '/api/rules').then(function (r) {
        if (game.rulesFor !== rs) return;
        game.rules = r;
        rulesChanged();
        render(); /* the turn bar's phases come from it */
      }, function (e) {
        if (game.rulesFor === rs) game.rules = null; /* not the last ruleset's */
        throw e;
      });
    }, 'Meanwhile the menus offer every question.');
  }
  render();
}

/* The live game; when it is lost, a card says so while the page
 * reconnects (by itself, or anew when the browser gave up). */
function connect() {
  const live = new EventSource('api/live');
  live.addEventListener('state', function (e) {
    solved('live');
    stopTrying('state');
    onState(JSON.parse(e.data));
  });
  live.onerror = function () {
    text($('status'), 'reconnecting\u2026');
    if (live.readyState === EventSource.CLOSED) { /* not an event stream (an error page): the browser gave up */
      trouble('live', 'Lost the table', 'The table did not send the game. Trying again in 3 s\u2026', true);
      setTimeout(connect, 3000);
    } else {
      trouble('live', 'Lost the table', 'The table stopped answering: reconnecting by itself. The table shown is ' +
              'as it was.', true);
    }
  };
}

function onTap(px, py) {
  if (!game.state) return;
  const t = ui.view.toTable(px, py), pt = [Math.round(t[0] * 100) / 100, Math.round(t[1] * 100) / 100];
  if (ui.mode === 'setup') setupTap(px, py, pt);
  else playTap(px, py, pt);
}

let redrawing = false; /* a zoom redraws (the labels' places) once a frame */
ui.view = TTView.attach(svg, {tap: onTap, grab: grab, changed: function () {
  if (redrawing) return;
  redrawing = true;
  requestAnimationFrame(function () {
    redrawing = false;
    render();
  });
}});
function zoomBy(f) {
  const r = svg.getBoundingClientRect();
  ui.view.zoomAt(r.left + r.width / 2, r.top + r.height / 2, f);
}
$('fit').addEventListener('click', function () { ui.view.fit(); });
$('zoom-in').addEventListener('click', function () { zoomBy(2); });
$('zoom-out').addEventListener('click', function () { zoomBy(0.5); });
startPlay();
startSetup();
startTurn();

keepTrying('state', 'read the table', function () {
  return api('GET', '/api/state').then(function (s) { if (!game.state) onState(s); });
});
connect();
window.ttTable = {state: function () { return game.state; }, view: ui.view, client: CLIENT,
                  trace: function () { return ui.trace.slice(); }};
