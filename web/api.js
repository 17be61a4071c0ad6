/* api.js - the table server's API as the live page calls it (docs/api.md):
 * the key from the page's address (?key=) and this page's name
 * (X-Table-Client, for its one pick) on every request, JSON both ways, and
 * errors a player can read.  No failure is silent: a request the player
 * made shows a trouble card when it fails (tell), and one the page makes
 * by itself is tried again until it works, saying so meanwhile
 * (keepTrying). */
import {trouble, solved} from './ui.js';

export const KEY = new URLSearchParams(location.search).get('key') || '';
/* this page, for the server's one pick per page */
export const CLIENT = 'p' + Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

export const GONE = 'the table did not answer: is tabletrack still running, and this device on its network?';

/* method path (body: sent as JSON) -> a promise of the answer's JSON; it
 * fails with an Error whose message a player can act on. */
export function api(method, path, body) {
  const h = {'X-Table-Client': CLIENT};
  if (KEY) h['X-Table-Key'] = KEY;
  if (body !== undefined) h['Content-Type'] = 'application/json';
  return fetch(path, {method: method, headers: h, body: body === undefined ? undefined : JSON.stringify(body)})
    .catch(function () { throw new Error(GONE); })
    .then(function (r) {
      return r.text().then(function (t) {
        let j = null;
        try {
          j = JSON.parse(t);
        } catch (e) {
          j = null; /* not the table's JSON: said below */
        }
        if (!r.ok)
          throw new Error(j && j.error ? j.error : 'the table answered ' + r.status +
                          (r.statusText ? ' ' + r.statusText : '') + ' (is this address tabletrack\'s?)');
        if (j === null) throw new Error('the table\'s answer was not JSON (is this address tabletrack\'s?)');
        return j;
      }, function () { throw new Error(GONE); });
    });
}

/* The player's request (a promise from api()): when it fails, a trouble
 * card (key) says what did not happen (big) and why; when it works, an
 * older card of the same key goes. */
export function tell(key, big, request) {
  return request.then(function (j) {
    solved(key);
    return j;
  }, function (e) {
    trouble(key, big, e.message);
    return null;
  });
}

const loops = {}; /* key -> the attempt now trying (a newer one stops an older) */
const MAX_WAIT_S = 16;

/* A message as a sentence (to put another after it). */
export function sentence(m) { return /[.?!]$/.test(m) ? m : m + '.'; }

/* Ask (attempt: () -> a promise) until it works, the wait doubling from
 * 1 s to MAX_WAIT_S; while it fails a card (key) says what could not be
 * done (what: "read the rules"), why, that the page tries again, and what
 * the page does meanwhile (a sentence, or none).  A newer keepTrying of the
 * same key replaces this one. */
export function keepTrying(key, what, attempt, meanwhile) {
  const me = {};
  loops[key] = me;
  function go(wait) {
    attempt().then(function () {
      if (loops[key] !== me) return;
      delete loops[key];
      solved(key);
    }, function (e) {
      if (loops[key] !== me) return;
      trouble(key, 'Could not ' + what, sentence(e.message) + ' Trying again in ' + wait + ' s\u2026' +
              (meanwhile ? ' ' + meanwhile : ''), true);
      setTimeout(function () { if (loops[key] === me) go(Math.min(wait * 2, MAX_WAIT_S)); }, wait * 1000);
    });
  }
  go(1);
}

/* Stop trying key (what it wanted came another way): its card goes. */
export function stopTrying(key) {
  delete loops[key];
  solved(key);
}
