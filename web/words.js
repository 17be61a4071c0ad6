/* words.js - an answer in words, for a card or a list: the live page's
 * cards, the hall's pages and the replay's question list all say an answer
 * the same way.  An ES module with no imports (the replay inlines it). */

/* An answer in words, for a card or a list: {big, small, bad, rule}
 * (rule: where in the rulebook it comes from, or "house: ..."). */
export function words(q, a) {
  var w = words1(q, a);
  if (a.rule && !a.error) w.rule = a.rule;
  return w;
}
function words1(q, a) {
  if (a.error) return {big: 'Cannot answer', small: a.error, bad: true};
  var range = a.bracket ? a.bracket + ' range' : '';
  var cover = a.cover && a.cover !== 'none' ? a.cover + ' cover' : 'no cover';
  var mods = (a.modifiers || []).map(function (m) { return m.reason; });
  switch (q.q) {
  case 'fire':
    if (a.to_hit === null || a.to_hit === undefined)
      return {big: a.visible === false ? 'No line of sight' : 'No shot', bad: true,
              small: [a.distance_in + '"', range].filter(Boolean).join(', ')};
    var bonus = (a.bonus_dice || []).map(function (b) { return '+' + b.value + ' dice: ' + b.reason; });
    var against = a.defender_dice !== null && a.defender_dice !== undefined
                      ? ['defender rolls ' + a.defender_dice + ' dice at ' + a.defender_to_hit + '+'] : [];
    return {big: a.to_hit + '+ to hit' + (a.die && a.die !== 'd6' ? ' on a ' + a.die : '') +
                 (a.dice ? ', ' + a.dice + ' dice' : ''),
            small: [range, cover].concat(mods, bonus, against, [a.distance_in + '"']).filter(Boolean).join(', ')};
  case 'los':
    return a.visible ? {big: 'Can see'} : {big: 'Blocked' + (a.blocked_by ? ' by ' + a.blocked_by : ''), bad: true};
  case 'aspect':
    return {big: a.aspect ? a.aspect.charAt(0).toUpperCase() + a.aspect.slice(1) : '?'};
  case 'move':
    if (a.allowed_in !== null && a.allowed_in !== undefined)
      /* refused though near enough (a formation that may not cross): the reason is the card's rule */
      return {big: a.ok ? 'Can move there' : a.distance_in <= a.allowed_in ? 'Cannot move there' : 'Too far',
              bad: !a.ok, small: a.distance_in + '" of ' + a.allowed_in + '"'};
    return {big: a.distance_in + '"', small: a.allowed_range_in ? 'a roll allows ' + a.allowed_range_in[0] +
                                                                     ' to ' + a.allowed_range_in[1] + '"' : ''};
  case 'grape':
  case 'ball':
    /* each figure's own roll where the book rolls on every one (shots) */
    var who = (a.shots || []).length
                  ? a.shots.map(function (s) { return s.to + (s.to_hit ? ' ' + s.to_hit + '+' : ' no roll'); })
                  : (a.targets || a.touched || a.hit || []);
    var score = a.to_hit ? ', ' + a.to_hit + '+' + (a.dice ? ', ' + a.dice + ' dice' : '') : '';
    return {big: (a.targets || a.touched || a.hit || []).length + ' in the way' + score,
            bad: !!a.blocked_by,
            small: (who.join(', ') || 'nobody') + (a.blocked_by ? '; over ' + a.blocked_by + ': no shot' : '')};
  case 'blast':
    return {big: (a.hit || []).length + ' hit' + (a.to_hit ? ', each killed on ' + a.to_hit + '+' : ''),
            small: (a.hit || []).join(', ') || 'nobody'};
  case 'command':
    return {big: 'In command', small: ((a.units || []).join(', ') || 'nobody') +
                                      ((a.figures_out || []).length ? '; out of reach: ' + a.figures_out.join(', ') : '')};
  case 'charge':
    if (a.allowed_range_in)
      return {big: a.distance_in + '" to contact', small: 'a charge moves ' + a.allowed_range_in[0] + ' to ' +
                                                           a.allowed_range_in[1] + '" on the roll' +
                                                           ((a.crossed || []).length ? ', through ' + a.crossed.join(', ') : '')};
    if (a.allowed_in === null || a.allowed_in === undefined)
      return {big: 'Cannot charge', bad: true, small: 'its rule gives no charge'};
    /* where the book answers the melee a charge starts (All the King's Men) */
    var melee = a.ok && a.dice !== null && a.dice !== undefined
                    ? ['melee: ' + a.dice + ' dice at ' + a.to_hit + '+'].concat(
                          (a.bonus_dice || []).map(function (b) { return '+' + b.value + ' dice: ' + b.reason; }),
                          a.defender_dice !== null && a.defender_dice !== undefined
                              ? ['defender rolls ' + a.defender_dice + ' dice at ' + a.defender_to_hit + '+'] : [])
                    : [];
    return {big: a.ok ? 'Charge reaches ' + a.target
                      : a.distance_in <= a.allowed_in ? 'Cannot charge ' + a.target /* the reason: the rule */
                                                      : 'Charge falls short',
            bad: !a.ok,
            small: [a.distance_in + '" of ' + a.allowed_in + '"' +
                    ((a.crossed || []).length ? ', through ' + a.crossed.join(', ') : '')].concat(melee).join(', ')};
  case 'deviate':
    if (a.went_off === false) return {big: 'A dud: no blast', small: 'lands at (' + a.impact.join(', ') + ')'};
    if (!a.radius_in) /* no blast: solid shot lands where it lands */
      return {big: (a.ammo ? a.ammo + ' lands' : 'Lands') + ' at (' + a.impact.join(', ') + ')', small: 'no blast'};
    return {big: (a.hit || []).length + ' hit' + (a.to_hit ? ', each killed on ' + a.to_hit + '+' : ''),
            small: (a.ammo ? a.ammo + ' ' : '') + 'lands at (' + a.impact.join(', ') + '): ' +
                   ((a.hit || []).join(', ') || 'nobody')};
  default:
    return {big: q.q || '?', small: JSON.stringify(a)};
  }
}
