/* cards.js - the answers shown on the table, as cards (newest first): the
 * answer in words (words.js, as the hall and the replay say it), the
 * question, the rulebook line, and a button that stops showing it. */
import {words} from './words.js';
import {game} from './store.js';
import {$, node} from './ui.js';
import {api, tell} from './api.js';

function questionText(q) {
  let s = q.q + (q.from ? ' ' + q.from : '');
  if (typeof q.to === 'string') s += ' \u2192 ' + q.to;
  else if (Array.isArray(q.to)) s += ' \u2192 (' + q.to[0] + ', ' + q.to[1] + ')';
  if (q.at) s += ' at (' + q.at[0] + ', ' + q.at[1] + ')';
  return s;
}

let cardsKey = '';
/* The cards of the answers shown now (rebuilt only when they changed). */
export function drawCards() {
  const key = JSON.stringify(game.state.shown.map(function (s) { return [s.qid, s.query, s.answer]; }));
  if (key === cardsKey) return;
  cardsKey = key;
  const box = $('cards');
  box.textContent = '';
  game.state.shown.slice().reverse().forEach(function (s) {
    const w = words(s.query, s.answer || {});
    const c = node('div', 'card' + (w.bad ? ' blocked' : ''), box);
    c.setAttribute('data-qid', s.qid);
    node('div', 'big', c, w.big);
    if (w.small) node('div', 'small', c, w.small);
    node('div', 'q', c, questionText(s.query));
    if (w.rule) node('div', 'rule', c, w.rule);
    const x = node('button', '', c, '\u2715');
    x.type = 'button';
    x.setAttribute('aria-label', 'dismiss');
    x.addEventListener('click', function () {
      tell('dismiss', 'Still shown: ' + questionText(s.query), api('DELETE', '/api/query/' + s.qid));
    });
  });
}
