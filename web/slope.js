/* slope.js - the Set up tab's slope of a hill: a piece whose kind raises
 * (a hill, a building) may take "slope_in", the inches its sides run out
 * from its top's edge to the felt (docs/rules.md, Sloped hills).  What is
 * typed is checked here, with a message saying what to give instead, and a
 * set-up with a slope that is wrong is not saved. */
import {game, render} from './store.js';
import {node} from './ui.js';

/* Whether a piece raises what stands on it (its own "raises", else its
 * kind's in the ruleset's profile): only such a piece may slope. */
export function raises(t) {
  const kind = game.rules && game.rules.terrain ? game.rules.terrain[t.kind] : null;
  const v = t.raises !== undefined ? t.raises : kind ? kind.raises : false;
  return (v && typeof v === 'object' ? v.value : v) === true;
}

const MAX_SLOPE_IN = 48; /* the most the rules take (RULES_MAX_SLOPE_IN) */
const slopeBad = new Map(); /* piece id -> what is wrong with the slope typed for it */

/* What is wrong with a slope typed for piece name (input i), or ''. */
function slopeProblem(i, name) {
  if (i.validity.badInput)
    return 'The slope of ' + name + ' must be a number: the inches its sides run out to the felt (e.g. 3).';
  const v = +i.value;
  if (i.value === '') return '';
  if (!isFinite(v) || v < 0)
    return 'The slope of ' + name + ' is ' + i.value + ': it cannot be negative. Give the inches from the top\'s ' +
           'edge out to where the side meets the felt, or leave it empty for steep sides.';
  if (v > MAX_SLOPE_IN)
    return 'The slope of ' + name + ' is ' + i.value + '", more than the ' + MAX_SLOPE_IN + '" a side can run out: ' +
           'is it in millimetres? Give it in inches.';
  return '';
}

/* The field in li for a raising area t's slope (its "slope_in"): empty
 * for steep sides; say(text) tells the player what changed or is wrong. */
export function slopeField(li, t, say) {
  const name = t.id || 'the piece';
  const l = node('label', 'slope', li, 'Slope (in)');
  const i = node('input', '', l);
  i.type = 'number';
  i.min = 0;
  i.max = MAX_SLOPE_IN;
  i.step = 'any';
  i.inputMode = 'decimal';
  i.name = 'slope_in';
  i.placeholder = 'steep';
  i.setAttribute('aria-label', 'slope of ' + name + ': inches its sides run out to the felt');
  i.setAttribute('aria-invalid', 'false');
  if (t.slope_in !== undefined) i.value = t.slope_in;
  i.addEventListener('change', function () {
    const bad = slopeProblem(i, name);
    i.setAttribute('aria-invalid', bad ? 'true' : 'false');
    if (bad) {
      slopeBad.set(t.id, bad);
      return say(bad);
    }
    slopeBad.delete(t.id);
    if (i.value === '') delete t.slope_in;
    else t.slope_in = +i.value;
    say(name + (i.value === '' ? ' has steep sides' : '\'s sides run out ' + i.value + '"') + '. Save to use it.');
    render();
  });
}

/* The first thing wrong with a slope typed and not yet put right, or ''. */
export function slopeTrouble() {
  return slopeBad.size ? slopeBad.values().next().value : '';
}

/* The list was drawn afresh from the set-up: nothing typed is pending. */
export function clearSlopes() { slopeBad.clear(); }
