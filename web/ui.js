/* ui.js - the live table page's own HTML: elements by id, new elements,
 * and the trouble cards.  A trouble card says what did not happen and why,
 * above the answers (#trouble, seen in both tabs), until the player
 * dismisses it or the same request works (solved). */

export function $(id) { return document.getElementById(id); }

export function text(el, t) {
  el.textContent = t;
  return el;
}

/* A new element name (class cls, text t) at the end of parent. */
export function node(name, cls, parent, t) {
  const e = document.createElement(name);
  if (cls) e.className = cls;
  if (t !== undefined) e.textContent = t;
  if (parent) parent.appendChild(e);
  return e;
}

const cards = new Map(); /* key -> its card */

/* The trouble card for key (a newer one replaces it): big says what did
 * not happen, small why and what to do.  retrying: the page is trying
 * again by itself, and the card goes when that works; else it has a
 * dismiss button. */
export function trouble(key, big, small, retrying) {
  let c = cards.get(key);
  if (!c) {
    c = node('div', 'card blocked trouble', null);
    c.setAttribute('data-trouble', key);
    c.setAttribute('role', 'alert');
    cards.set(key, c);
  }
  const box = $('trouble');
  box.insertBefore(c, box.firstChild); /* the newest first */
  c.textContent = '';
  c.classList.toggle('retrying', !!retrying);
  node('div', 'big', c, big);
  node('div', 'small', c, small);
  if (!retrying) {
    const x = node('button', '', c, '\u2715');
    x.type = 'button';
    x.setAttribute('aria-label', 'dismiss');
    x.addEventListener('click', function () { solved(key); });
  }
}

/* The trouble with key is over: its card goes. */
export function solved(key) {
  const c = cards.get(key);
  if (!c) return;
  c.remove();
  cards.delete(key);
}

/* Whether the trouble with key shows now. */
export function troubled(key) { return cards.has(key); }

/* The trouble cards shown, [{key, big, retrying}], for the page's probe. */
export function troubles() {
  return Array.from(cards, function (kv) {
    return {key: kv[0], big: kv[1].querySelector('.big').textContent, retrying: kv[1].classList.contains('retrying')};
  });
}
