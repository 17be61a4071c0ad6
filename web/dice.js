/* dice.js - the dice the players rolled for a shot aimed at a spot, asked
 * by the weapon's kind of deviation (its profile: long/short and
 * left/right dice, a dud die, or a clock direction and distance dice, with
 * shot or shell); the table answers where it lands. */
import {ui} from './store.js';
import {$, node, text} from './ui.js';

function sides(spec) {
  const x = /^(\d+)d(\d+)/.exec(spec || '1d6');
  return [+x[1], x[1] * x[2]];
}

/* The form in #menu for item (a 'deviate' question: {label, dev, weapon})
 * aimed at pt; ask(q) asks the question the dice make. */
export function diceForm(item, pt, ask) {
  const d = item.dev, m = $('menu'), who = ui.sel, inputs = {};
  m.textContent = '';
  text($('hint'), item.label.split(' ')[0] + ' aimed at (' + pt[0] + ', ' + pt[1] + '): what did the dice show?');
  function die(name, label, lo, hi) {
    const l = node('label', 'die', m, label + ' (' + lo + '\u2013' + hi + ')');
    const i = node('input', '', l);
    i.type = 'number';
    i.min = lo;
    i.max = hi;
    i.inputMode = 'numeric';
    i.name = name;
    inputs[name] = i;
    return l;
  }
  if (d.axes) {
    const r = sides(d.distance);
    die('long_short', 'Long / short die', 1, d.axes);
    const lsIn = die('long_short_in', 'Inches long or short', r[0], r[1]);
    die('left_right', 'Left / right die', 1, d.axes);
    const lrIn = die('left_right_in', 'Inches left or right', r[0], r[1]);
    const off = function (v) { return +v === d.off_low || +v === d.off_high; };
    const show = function () {
      lsIn.hidden = !off(inputs.long_short.value);
      lrIn.hidden = !off(inputs.left_right.value);
    };
    inputs.long_short.addEventListener('input', show);
    inputs.left_right.addEventListener('input', show);
    show();
  } else if (d.dud) {
    die('explodes', 'Does it go off? die', 1, d.dud_die || 6);
  } else if (d.clock) {
    clockDice(d, m, inputs, die);
  }
  const go = node('button', '', m, 'Where does it land?');
  go.type = 'button';
  go.setAttribute('data-q', 'deviate-go');
  go.addEventListener('click', function () {
    const dice = {}, q = {q: 'deviate', from: who.id, at: pt, weapon: item.weapon, dice: dice};
    Object.keys(inputs).forEach(function (k) {
      const i = inputs[k];
      if (k === 'critical') {
        if (i.checked) q.critical = true;
      } else if (k === 'ammo') {
        q.ammo = i.value;
      } else if (i.value !== '' && !(i.parentNode && i.parentNode.hidden)) {
        dice[k] = +i.value;
      }
    });
    ask(q);
  });
  ui.pending = null;
  m.hidden = false;
  const first = m.querySelector('input');
  if (first) first.focus();
}

/* shot or shell (Fixed Bay'net: any gun fires either; the profile's
 * default first), each with its own distance dice */
function clockDice(d, m, inputs, die) {
  const kinds = d.ammo ? Object.keys(d.ammo).filter(function (k) { return k !== 'src' && k !== 'note'; }) : [];
  kinds.sort(function (x, y) { return (d.ammo[y].default ? 1 : 0) - (d.ammo[x].default ? 1 : 0); });
  const dd = function (k) { return k ? d.ammo[k] : d; };
  if (kinds.length) {
    const al = node('label', 'die', m, 'Ammunition ');
    const as = node('select', '', al);
    as.name = 'ammo';
    kinds.forEach(function (k) { node('option', '', as, k).value = k; });
    inputs.ammo = as;
  }
  let s2 = sides(dd(kinds[0]).distance), c2 = sides(dd(kinds[0]).critical);
  kinds.slice(1).forEach(function (k) {
    const s3 = sides(dd(k).distance), c3 = sides(dd(k).critical);
    s2 = [Math.min(s2[0], s3[0]), Math.max(s2[1], s3[1])];
    c2 = [Math.min(c2[0], c3[0]), Math.max(c2[1], c3[1])];
  });
  die('clock', 'Direction die (12 = straight on)', 1, d.clock);
  die('distance', 'Distance dice', Math.min(s2[0], c2[0]), Math.max(s2[1], c2[1]));
  const cl = node('label', 'die', m, 'Critical miss ');
  const cb = node('input', '', cl);
  cb.type = 'checkbox';
  inputs.critical = cb;
}
