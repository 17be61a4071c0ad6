/* app.js - the live table page: the table drawn from /api/live, zoomed and
 * panned (view.js), questions asked by tapping figures (the nearest within
 * a fingertip's reach, or a chooser when several are), the figure picked
 * told to the server (PUT /api/pick: the projector rings it), answers as
 * cards (and on the felt), and the set-up: terrain traced on the table
 * picture (corners snap to the pieces near them and can be dragged), tags
 * added to the roster, the ruleset, saved with PUT /api/scenario.  The
 * hidden #tt-state holds what the page shows, as JSON, for tests. */
(function () {
  'use strict';
  var KEY = new URLSearchParams(location.search).get('key') || '';
  /* this page, for the server's one pick per page */
  var CLIENT = 'p' + Math.random().toString(36).slice(2, 10) + Date.now().toString(36);
  var svg = document.getElementById('table');
  var $ = function (id) { return document.getElementById(id); };
  var state = null, layers = null, boardKey = '', figEls = {}, sel = null, pending = null;
  var mode = 'play', trace = [], scenario = null, photo = null;
  var rules = null, rulesFor;  /* the ruleset's profile (GET /api/rules), for the menus */
  var roster = [], rosterRev;  /* the scenario's figures (GET /api/scenario), fetched when it changes */
  /* What a figure may be asked, from its weapon and the ruleset's profile. */
  function questionsFor(f) {
    var r = null;
    roster.forEach(function (x) { if (x.id === f.id) r = x; });
    var w = rules && rules.weapons && r && r.weapon ? rules.weapons[r.weapon] || null : null;
    var out = [];
    if (!w || !w.deviation || w.brackets || w.dice) out.push({q: 'fire', label: 'Fire at\u2026', needs: 'figure'});
    out.push({q: 'los', label: 'Line of sight to\u2026', needs: 'figure'});
    if (w && w.grape) out.push({q: 'grape', label: 'Grape', needs: null});
    if (w && w.ball) out.push({q: 'ball', label: 'Cannonball at\u2026', needs: 'figure'});
    if (w && w.deviation)
      out.push({q: 'deviate', label: (w.blast_radius_in ? 'Shell' : 'Shot') + ' lands\u2026', needs: 'point',
                dev: w.deviation, weapon: r.weapon});
    else if (w && w.blast_radius_in)
      out.push({q: 'blast', label: 'Blast at\u2026', needs: 'point', weapon: r.weapon});
    out.push({q: 'move', label: 'Move to\u2026', needs: 'point'});
    var ch = rules && rules.charge;
    if (ch && (!ch.inches || (r && r.type && ch.inches[r.type] !== undefined)))
      out.push({q: 'charge', label: 'Charge\u2026', needs: 'figure'});
    out.push({q: 'aspect', label: 'Flank or rear of\u2026', needs: 'figure'});
    var cm = rules && rules.command && rules.command.types; /* where the ruleset names who commands */
    if (!cm || (r && cm[r.type || 'foot'] !== undefined))
      out.push({q: 'command', label: 'Command radius', needs: null});
    out.push({q: 'visibility', label: 'What it sees', needs: null});
    return out;
  }

  function api(method, path, body) {
    var h = {};
    if (KEY) h['X-Table-Key'] = KEY;
    h['X-Table-Client'] = CLIENT;
    if (body !== undefined) h['Content-Type'] = 'application/json';
    return fetch(path, {method: method, headers: h, body: body === undefined ? undefined : JSON.stringify(body)})
      .then(function (r) {
        return r.json().then(function (j) {
          if (!r.ok) throw new Error(j.error || ('error ' + r.status));
          return j;
        });
      });
  }
  function text(el, t) { el.textContent = t; return el; }
  function node(name, cls, parent, t) {
    var e = document.createElement(name);
    if (cls) e.className = cls;
    if (t !== undefined) e.textContent = t;
    if (parent) parent.appendChild(e);
    return e;
  }

  /* ---- the table ---- */
  var sideIndex = {};
  function sideColour(side) {
    if (!side) return '#9e9e9e';
    if (!(side in sideIndex)) sideIndex[side] = Object.keys(sideIndex).length;
    return TTDraw.SIDES[sideIndex[side] % TTDraw.SIDES.length];
  }
  function figName(f) { return f.id || ('tag ' + f.tag); }
  function rosterOf(f) {
    for (var i = 0; i < roster.length; i++) if (roster[i].id === f.id) return roster[i];
    return {};
  }
  /* id, type and unit: what a player checks before asking */
  function figTitle(f) {
    var r = rosterOf(f);
    return [figName(f), r.type, f.unit].filter(Boolean).join(' \u00b7 ');
  }
  function findFig(id) {
    if (!state) return null;
    for (var i = 0; i < state.figures.length; i++) if (state.figures[i].id === id) return state.figures[i];
    return null;
  }

  function drawBoard() {
    /* setting up: the pieces as edited, before they are saved */
    var terrain = mode === 'setup' && scenario ? scenario.terrain || [] : state.terrain;
    var key = state.table.width_in + 'x' + state.table.depth_in + JSON.stringify(terrain) + mode +
              (photo ? 'p' : '');
    if (key === boardKey) return;
    boardKey = key;
    layers = TTDraw.board(svg, state.table.width_in, state.table.depth_in, 1);
    view.board(svg.getAttribute('viewBox').split(' ').map(Number));
    if (mode === 'setup' && photo)
      TTDraw.el('image', {href: photo, x: 0, y: 0, width: state.table.width_in, height: state.table.depth_in,
                          preserveAspectRatio: 'none', opacity: 0.85}, layers.terrain);
    terrain.forEach(function (t) {
      TTDraw.terrain(layers.terrain, {id: t.id, kind: t.kind, pts: t.polygon || t.line || [], closed: !!t.polygon});
    });
    figEls = {};
  }

  function drawFigures() {
    var seen = {};
    state.figures.forEach(function (f) {
      var k = 'tag' + f.tag;
      seen[k] = 1;
      var fe = figEls[k];
      if (!fe) {
        fe = figEls[k] = TTDraw.figure(layers.figs, {r: 0.55, colour: sideColour(f.side), label: figName(f),
                                                     title: figName(f) + (f.unit ? ' (' + f.unit + ')' : '')});
        fe.g.setAttribute('data-id', f.id || '');
        fe.g.setAttribute('data-tag', f.tag);
        fe.label.setAttribute('y', 0.7); /* its size is in screen px (style.css): hung below the disc */
      }
      TTDraw.place(fe, f.x, f.y, f.facing_deg, f.state === 'seen' ? 0 : f.state === 'occluded' ? 1 : 2);
      fe.g.classList.toggle('sel', !!sel && sel.tag === f.tag);
      fe.g.classList.toggle('cand', choices.some(function (c) { return c.tag === f.tag; }));
    });
    Object.keys(figEls).forEach(function (k) { if (!seen[k]) { figEls[k].g.remove(); delete figEls[k]; } });
  }

  /* what an answer looks like on the page (the felt shows the full drawing) */
  /* The blast's radius: the question's, else its weapon's in the profile. */
  function blastRadius(q) {
    if (q.radius_in) return q.radius_in;
    var wname = q.weapon;
    roster.forEach(function (r) { if (!wname && r.id === q.from) wname = r.weapon; });
    var w = rules && rules.weapons && wname ? rules.weapons[wname] : null;
    return w && w.blast_radius_in ? w.blast_radius_in : (q.q === 'blast' ? 1 : 0);
  }
  function drawAnswers() {
    layers.over.textContent = '';
    TTDraw.answers(layers.over, state.shown, findFig, {radius: function (q) {
      if (q.q === 'command') return rules && rules.command_radius_in;
      return q.q === 'blast' || q.q === 'deviate' ? blastRadius(q) : 0;
    }});
    if (trace.length) {
      TTDraw.el('polyline', {points: trace.map(function (p) { return p.join(','); }).join(' '), fill: 'none',
                             stroke: '#f0e442', 'stroke-width': 0.2}, layers.over);
      var cr = 6 / view.pxPerInch(); /* 6 px on screen at any zoom */
      trace.forEach(function (p, i) {
        TTDraw.el('circle', {cx: p[0], cy: p[1], r: cr, fill: '#f0e442', 'class': 'corner', 'data-i': i}, layers.over);
      });
    }
  }

  function questionText(q) {
    var s = q.q + (q.from ? ' ' + q.from : '');
    if (typeof q.to === 'string') s += ' \u2192 ' + q.to;
    else if (Array.isArray(q.to)) s += ' \u2192 (' + q.to[0] + ', ' + q.to[1] + ')';
    if (q.at) s += ' at (' + q.at[0] + ', ' + q.at[1] + ')';
    return s;
  }
  var cardsKey = '';
  function drawCards() {
    var key = JSON.stringify(state.shown);
    if (key === cardsKey) return;
    cardsKey = key;
    var box = $('cards');
    box.textContent = '';
    state.shown.slice().reverse().forEach(function (s) {
      var w = TTDraw.words(s.query, s.answer || {});
      var c = node('div', 'card' + (w.bad ? ' blocked' : ''), box);
      c.setAttribute('data-qid', s.qid);
      node('div', 'big', c, w.big);
      if (w.small) node('div', 'small', c, w.small);
      node('div', 'q', c, questionText(s.query));
      if (w.rule) node('div', 'rule', c, w.rule);
      var x = node('button', '', c, '\u2715');
      x.type = 'button';
      x.setAttribute('aria-label', 'dismiss');
      x.addEventListener('click', function () { api('DELETE', '/api/query/' + s.qid).catch(showError); });
    });
  }

  var declutterKey = '';
  function render() {
    if (!state) return;
    drawBoard();
    drawFigures();
    drawAnswers();
    /* the names' places: again when the figures, the board or the view
     * changed (a frame's jitter of a few hundredths is not a change) */
    var dk = boardKey + (view.box() || []).join(',') + state.figures.map(function (f) {
      return f.tag + ':' + Math.round(f.x * 5) + ',' + Math.round(f.y * 5) + f.state;
    }).join(' ');
    if (dk !== declutterKey || svg.querySelector('.ov-label')) {
      declutterKey = dk;
      TTDraw.declutter(svg, {hide: true});
    }
    syncPick();
    drawCards();
    text($('status'), 'frame ' + state.frame + (state.camera !== 'ok' ? ' \u00b7 camera ' + state.camera : '') +
         (state.ruleset ? ' \u00b7 ' + state.ruleset : ''));
    var leg = $('legend');
    leg.textContent = '';
    Object.keys(sideIndex).forEach(function (s) {
      var sp = node('span', '', leg);
      node('span', 'swatch', sp).style.background = sideColour(s);
      sp.appendChild(document.createTextNode(s));
    });
    node('span', '', leg, 'blue line: can see \u00b7 orange dashed: blocked \u00b7 faded: hidden or lost');
    if (mode === 'setup') drawSetup();
    $('tt-state').textContent = JSON.stringify({frame: state.frame, figures: state.figures.length,
                                                cards: state.shown.length, mode: mode, trace: trace.length,
                                                zoom: view.zoom(), picked: picked});
  }

  /* ---- asking ---- */
  function showError(e) {
    var box = $('cards');
    var c = node('div', 'card blocked', null);
    node('div', 'big', c, 'Not asked');
    node('div', 'small', c, e.message);
    box.insertBefore(c, box.firstChild);
    cardsKey = '';
  }
  var HINT = 'Tap a figure to ask about it, or an empty spot for a blast. Pinch or scroll to zoom.';
  function closeMenu() {
    pending = null;
    sel = null;
    choices = [];
    $('menu').hidden = true;
    text($('hint'), HINT);
    render();
  }
  function ask(q) {
    closeMenu();
    api('POST', '/api/query', q).catch(showError);
  }
  /* Tell the server which figure this page has picked (its menu is open),
   * renewed while it stays open, withdrawn when it closes. */
  var picked = null, pickTimer = null;
  function syncPick() {
    var want = sel && sel.id && KEY ? sel.id : null;
    if (want === picked) return;
    picked = want;
    clearInterval(pickTimer);
    pickTimer = null;
    if (!want) return void api('DELETE', '/api/pick').catch(function () {});
    var put = function () { api('PUT', '/api/pick', {id: want}).catch(function () {}); };
    put();
    pickTimer = setInterval(put, 4000); /* the server drops a pick not renewed in 10 s */
  }
  function closeButton(m) {
    var x = node('button', 'close', m, 'Close');
    x.type = 'button';
    x.setAttribute('data-q', 'close');
    x.addEventListener('click', closeMenu);
  }
  /* Several figures within reach of a tap: which one?  Nearest first;
   * then then(f) with the one chosen. */
  var choices = [];
  function chooser(list, then, what) {
    var m = $('menu');
    m.textContent = '';
    sel = pending ? sel : null;
    choices = list;
    text($('hint'), what || 'Which figure?');
    list.forEach(function (f) {
      var b = node('button', 'choice', m, [figTitle(f), rosterOf(f).side || f.side].filter(Boolean).join(' \u00b7 '));
      b.type = 'button';
      b.setAttribute('data-id', f.id);
      b.style.borderColor = sideColour(f.side);
      b.addEventListener('click', function () { choices = []; then(f); });
    });
    closeButton(m);
    m.hidden = false;
    render();
  }
  function openMenu(f) {
    sel = f;
    pending = null;
    choices = [];
    var m = $('menu');
    m.textContent = '';
    text($('hint'), figTitle(f) + ': what do you want to know?');
    questionsFor(f).forEach(function (item) {
      var b = node('button', '', m, item.label);
      b.type = 'button';
      b.setAttribute('data-q', item.q);
      b.addEventListener('click', function () {
        if (!item.needs) return ask({q: item.q, from: f.id});
        pending = item;
        m.hidden = true;
        text($('hint'), figName(f) + ', ' + item.label.replace('\u2026', '').toLowerCase() + ': tap ' +
                        (item.needs === 'figure' ? 'the target' : 'the spot'));
      });
    });
    closeButton(m);
    m.hidden = false;
    render();
  }
  function blastMenu(pt) {
    var m = $('menu');
    m.textContent = '';
    sel = null;
    choices = [];
    text($('hint'), 'At (' + pt[0] + ', ' + pt[1] + '):');
    var b = node('button', '', m, 'Blast here');
    b.type = 'button';
    b.setAttribute('data-q', 'blast');
    var weapons = {};
    roster.forEach(function (r) { if (r.weapon) weapons[r.weapon] = 1; });
    b.addEventListener('click', function () {
      ask(weapons.mortar ? {q: 'blast', at: pt, weapon: 'mortar'} : {q: 'blast', at: pt, radius_in: 2});
    });
    closeButton(m);
    m.hidden = false;
    render();
  }
  /* The dice the players rolled for a shot aimed at pt, by the weapon's
   * kind of deviation; the table answers where it lands. */
  function diceForm(item, pt) {
    var d = item.dev, m = $('menu'), who = sel, inputs = {};
    m.textContent = '';
    text($('hint'), item.label.split(' ')[0] + ' aimed at (' + pt[0] + ', ' + pt[1] + '): what did the dice show?');
    function die(name, label, lo, hi) {
      var l = node('label', 'die', m, label + ' (' + lo + '\u2013' + hi + ')');
      var i = node('input', '', l);
      i.type = 'number';
      i.min = lo;
      i.max = hi;
      i.inputMode = 'numeric';
      i.name = name;
      inputs[name] = i;
      return l;
    }
    function sides(spec) { var x = /^(\d+)d(\d+)/.exec(spec || '1d6'); return [+x[1], x[1] * x[2]]; }
    if (d.axes) {
      var lsIn, lrIn, r = sides(d.distance);
      die('long_short', 'Long / short die', 1, d.axes);
      lsIn = die('long_short_in', 'Inches long or short', r[0], r[1]);
      die('left_right', 'Left / right die', 1, d.axes);
      lrIn = die('left_right_in', 'Inches left or right', r[0], r[1]);
      var off = function (v) { return +v === d.off_low || +v === d.off_high; };
      var show = function () {
        lsIn.hidden = !off(inputs.long_short.value);
        lrIn.hidden = !off(inputs.left_right.value);
      };
      inputs.long_short.addEventListener('input', show);
      inputs.left_right.addEventListener('input', show);
      show();
    } else if (d.dud) {
      die('explodes', 'Does it go off? die', 1, d.dud_die || 6);
    } else if (d.clock) {
      /* shot or shell (Fixed Bay'net: any gun fires either; the profile's
       * default first), each with its own distance dice */
      var kinds = d.ammo ? Object.keys(d.ammo).filter(function (k) { return k !== 'src' && k !== 'note'; }) : [];
      kinds.sort(function (x, y) { return (d.ammo[y].default ? 1 : 0) - (d.ammo[x].default ? 1 : 0); });
      var dd = function (k) { return k ? d.ammo[k] : d; };
      if (kinds.length) {
        var al = node('label', 'die', m, 'Ammunition ');
        var as = node('select', '', al);
        as.name = 'ammo';
        kinds.forEach(function (k) { node('option', '', as, k).value = k; });
        inputs.ammo = as;
      }
      var s2 = sides(dd(kinds[0]).distance), c2 = sides(dd(kinds[0]).critical);
      kinds.slice(1).forEach(function (k) {
        var s3 = sides(dd(k).distance), c3 = sides(dd(k).critical);
        s2 = [Math.min(s2[0], s3[0]), Math.max(s2[1], s3[1])];
        c2 = [Math.min(c2[0], c3[0]), Math.max(c2[1], c3[1])];
      });
      die('clock', 'Direction die (12 = straight on)', 1, d.clock);
      die('distance', 'Distance dice', Math.min(s2[0], c2[0]), Math.max(s2[1], c2[1]));
      var cl = node('label', 'die', m, 'Critical miss ');
      var cb = node('input', '', cl);
      cb.type = 'checkbox';
      inputs.critical = cb;
    }
    var go = node('button', '', m, 'Where does it land?');
    go.type = 'button';
    go.setAttribute('data-q', 'deviate-go');
    go.addEventListener('click', function () {
      var dice = {}, q = {q: 'deviate', from: who.id, at: pt, weapon: item.weapon, dice: dice};
      Object.keys(inputs).forEach(function (k) {
        var i = inputs[k];
        if (k === 'critical') { if (i.checked) q.critical = true; return; }
        if (k === 'ammo') { q.ammo = i.value; return; }
        if (i.value !== '' && !(i.parentNode && i.parentNode.hidden)) dice[k] = +i.value;
      });
      ask(q);
    });
    pending = null;
    m.hidden = false;
    var first = m.querySelector('input');
    if (first) first.focus();
  }
  /* ---- taps on the table ---- */
  function round2(p) { return [Math.round(p[0] * 100) / 100, Math.round(p[1] * 100) / 100]; }
  var FIG_R = 0.55; /* a figure's disc on the page, inches */
  /* The figures with an id within a fingertip of client (px, py), nearest
   * first; one of them alone when the tap is on its disc and the next is
   * well beyond it. */
  function figuresAt(px, py) {
    var near = TTView.within(view, state.figures.filter(function (f) { return f.id; }), px, py, FIG_R);
    var rpx = FIG_R * view.pxPerInch();
    if (near.length > 1 && near[0].d <= rpx + 2 && near[1].d - near[0].d >= TTView.REACH_PX / 2) near = near.slice(0, 1);
    return near.slice(0, 8).map(function (n) { return n.item; });
  }
  function onTap(px, py) {
    if (!state) return;
    var pt = round2(view.toTable(px, py));
    if (mode === 'setup') {
      if (pt[0] >= 0 && pt[1] >= 0 && pt[0] <= state.table.width_in && pt[1] <= state.table.depth_in) {
        trace.push(round2(snapTo(px, py) || pt));
        render();
      }
      return;
    }
    var near = figuresAt(px, py);
    if (pending && sel) {
      if (pending.needs === 'figure') {
        var fire = function (f) { ask({q: pending.q, from: sel.id, to: f.id}); };
        var others = near.filter(function (f) { return f.id !== sel.id; });
        if (others.length === 1) return fire(others[0]);
        if (others.length > 1) return chooser(others, fire, 'Which target?');
        return;
      }
      /* a spot: where the finger is, unless it is on a figure's disc */
      var onDisc = near.length && Math.hypot.apply(null, view.toScreen(near[0].x, near[0].y).map(function (v, i) {
        return v - [px, py][i];
      })) <= FIG_R * view.pxPerInch();
      if (!onDisc) {
        if (pending.q === 'deviate') return diceForm(pending, pt);
        if (pending.q === 'blast') return ask({q: 'blast', at: pt, weapon: pending.weapon});
        return ask({q: pending.q, from: sel.id, to: pt});
      }
      return;
    }
    if (near.length === 1) return openMenu(near[0]);
    if (near.length > 1) return chooser(near, openMenu);
    blastMenu(pt);
  }
  /* Set-up: the corners and edges of the other pieces a corner snaps to. */
  function snapTo(px, py) {
    var lines = [];
    ((scenario && scenario.terrain) || []).forEach(function (t, i) {
      if (i !== editing) lines.push({pts: t.polygon || t.line || [], closed: !!t.polygon});
    });
    return TTView.snap(view, lines, px, py);
  }
  /* Set-up: a corner placed can be dragged (snapping as it is placed). */
  function grab(px, py) {
    if (mode !== 'setup' || !trace.length) return null;
    var near = TTView.within(view, trace.map(function (p, i) { return {x: p[0], y: p[1], i: i}; }), px, py, 0);
    if (!near.length || near[0].d > TTView.REACH_PX / 2) return null;
    var i = near[0].item.i;
    var to = function (x, y) { trace[i] = round2(snapTo(x, y) || view.toTable(x, y)); render(); };
    return {move: to, end: to};
  }
  var redrawing = false; /* a zoom redraws (the labels' places) once a frame */
  var view = TTView.attach(svg, {tap: onTap, grab: grab, changed: function () {
    if (redrawing) return;
    redrawing = true;
    requestAnimationFrame(function () { redrawing = false; render(); });
  }});
  $('fit').addEventListener('click', function () { view.fit(); });
  $('zoom-in').addEventListener('click', function () {
    var r = svg.getBoundingClientRect();
    view.zoomAt(r.left + r.width / 2, r.top + r.height / 2, 2);
  });
  $('zoom-out').addEventListener('click', function () {
    var r = svg.getBoundingClientRect();
    view.zoomAt(r.left + r.width / 2, r.top + r.height / 2, 0.5);
  });
  /* Find a figure or a unit by id: its menu (shown close up), or a chooser. */
  $('find-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var q = $('find').value.trim().toLowerCase();
    if (!state || !q) return;
    var figs = state.figures.filter(function (f) { return f.id; });
    var hit = figs.filter(function (f) { return f.id.toLowerCase() === q; });
    if (!hit.length) hit = figs.filter(function (f) { return (f.unit || '').toLowerCase() === q; });
    if (!hit.length)
      hit = figs.filter(function (f) {
        return f.id.toLowerCase().indexOf(q) === 0 || (f.unit || '').toLowerCase().indexOf(q) === 0;
      });
    if (!hit.length) return text($('hint'), 'No figure or unit ' + $('find').value.trim() + ' on the table.');
    var cx = 0, cy = 0;
    hit.forEach(function (f) { cx += f.x; cy += f.y; });
    view.show(cx / hit.length, cy / hit.length, hit.length === 1 ? 4 : 2);
    $('find').blur();
    if (hit.length === 1) return openMenu(hit[0]);
    chooser(hit.slice(0, 12), openMenu, hit.length + ' found: which one?');
  });
  $('clear').addEventListener('click', function () { api('DELETE', '/api/query').catch(showError); });

  /* ---- set-up ---- */
  function setMode(m) {
    mode = m;
    if (m !== 'play') closeMenu();
    $('play').hidden = m !== 'play';
    $('setup').hidden = m !== 'setup';
    $('tab-play').classList.toggle('on', m === 'play');
    $('tab-setup').classList.toggle('on', m === 'setup');
    trace = [];
    if (m === 'setup') {
      /* the scenario as saved now: the lists wait for it */
      scenario = null;
      setupKey = '';
      $('terrain-list').textContent = '';
      photo = 'api/table.png?ppi=10&t=' + Date.now();
      api('GET', '/api/scenario').then(function (s) {
        scenario = s;
        $('ruleset').value = s.ruleset || 'into-the-breach';
        render();
      }).catch(function (e) { text($('setup-msg'), e.message); });
    }
    boardKey = '';
    render();
  }
  $('tab-play').addEventListener('click', function () { setMode('play'); });
  $('tab-setup').addEventListener('click', function () { setMode('setup'); });
  /* the terrain kinds of the ruleset (its profile), else every kind drawn */
  function terrainKinds() {
    return rules && rules.terrain ? Object.keys(rules.terrain) : Object.keys(TTDraw.TERRAIN);
  }
  function fillKinds(sel, value) {
    sel.textContent = '';
    var kinds = terrainKinds();
    if (value && kinds.indexOf(value) < 0) kinds = kinds.concat([value]);
    kinds.forEach(function (k) { node('option', '', sel, k).value = k; });
    if (value) sel.value = value;
  }
  fillKinds($('kind'));
  $('undo').addEventListener('click', function () { trace.pop(); render(); });
  $('finish').addEventListener('click', function () {
    if (!scenario) return;
    var closed = trace.length >= 3;
    if (trace.length < 2) return text($('setup-msg'), 'Tap at least 2 points (3 for an area).');
    var piece;
    if (editing >= 0 && scenario.terrain[editing]) { /* redrawn: same id and kind, new corners */
      piece = scenario.terrain[editing];
      delete piece.polygon;
      delete piece.line;
      text($('setup-msg'), 'Redrew ' + piece.id + '. Save to use it.');
    } else {
      var kind = $('kind').value, n = 1, id;
      do { id = kind + '-' + n++; } while ((scenario.terrain || []).some(function (t) { return t.id === id; }));
      piece = {id: id, kind: kind};
      scenario.terrain = (scenario.terrain || []).concat([piece]);
      text($('setup-msg'), 'Added ' + id + '. Save to use it.');
    }
    piece[closed ? 'polygon' : 'line'] = trace;
    trace = [];
    editing = -1;
    render();
  });
  var editing = -1, setupKey = '';
  function drawSetup() {
    if (!scenario) return;
    /* rebuilt only when it changed: a list open for choosing stays open */
    var key = JSON.stringify([scenario.terrain, state.unassigned, scenario.tags, editing]);
    if (key === setupKey) return;
    setupKey = key;
    var list = $('terrain-list');
    list.textContent = '';
    (scenario.terrain || []).forEach(function (t, i) {
      var li = node('li', editing === i ? 'editing' : '', list);
      node('span', '', li, t.id || '?');
      var k = node('select', '', li);
      k.setAttribute('aria-label', 'kind of ' + (t.id || 'piece'));
      fillKinds(k, t.kind);
      k.addEventListener('change', function () {
        t.kind = k.value;
        text($('setup-msg'), (t.id || 'The piece') + ' is now ' + t.kind + '. Save to use it.');
        render();
      });
      var r = node('button', '', li, 'Redraw');
      r.type = 'button';
      r.addEventListener('click', function () {
        editing = i;
        trace = [];
        text($('setup-msg'), 'Tap the new corners of ' + (t.id || 'the piece') + ', then Finish.');
        render();
      });
      var b = node('button', '', li, 'Delete');
      b.type = 'button';
      b.addEventListener('click', function () {
        scenario.terrain.splice(i, 1);
        editing = -1;
        text($('setup-msg'), 'Deleted ' + (t.id || 'the piece') + '. Save to use it.');
        render();
      });
    });
    var un = $('unassigned');
    un.textContent = '';
    (state.unassigned || []).forEach(function (tag) {
      if (scenario.tags && scenario.tags[String(tag)]) return;
      var li = node('li', '', un);
      node('span', '', li, 'tag ' + tag);
      var b = node('button', '', li, 'Assign');
      b.type = 'button';
      b.addEventListener('click', function () {
        $('assign').hidden = false;
        text($('assign-tag'), String(tag));
        $('assign').setAttribute('data-tag', tag);
      });
    });
    if (!un.firstChild) node('li', 'muted', un, 'none');
  }
  $('assign').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var tag = $('assign').getAttribute('data-tag'), f = null;
    state.figures.forEach(function (x) { if (String(x.tag) === tag) f = x; });
    var fig = {id: $('a-id').value.trim(), side: $('a-side').value.trim(), type: $('a-type').value.trim(),
               weapon: $('a-weapon').value.trim(), x: f ? f.x : 1, y: f ? f.y : 1, facing_deg: f ? f.facing_deg : 0};
    if ($('a-unit').value.trim()) fig.unit = $('a-unit').value.trim();
    scenario.figures = (scenario.figures || []).concat([fig]);
    scenario.tags = scenario.tags || {};
    scenario.tags[tag] = fig.id;
    $('assign').hidden = true;
    text($('setup-msg'), 'Added ' + fig.id + '. Save to use it.');
    drawSetup();
  });
  $('save').addEventListener('click', function () {
    if (!scenario) return;
    scenario.ruleset = $('ruleset').value;
    scenario.table = scenario.table || {width_in: state.table.width_in, depth_in: state.table.depth_in};
    api('PUT', '/api/scenario', scenario).then(function () {
      text($('setup-msg'), 'Saved.');
    }).catch(function (e) { text($('setup-msg'), 'Not saved: ' + e.message); });
  });

  /* ---- live ---- */
  if (!KEY) $('nokey').hidden = false;
  function onState(s) {
    state = s;
    if (s.scenario_rev !== rosterRev) {
      rosterRev = s.scenario_rev;
      api('GET', '/api/scenario').then(function (sc) { roster = sc.figures || []; }).catch(function () {});
    }
    if (s.ruleset !== rulesFor) {
      rulesFor = s.ruleset;
      api('GET', '/api/rules').then(function (r) {
        rules = r;
        fillKinds($('kind'));
        setupKey = '';
      }).catch(function () { rules = null; });
    }
    render();
  }
  function connect() {
    var es = new EventSource('api/live');
    es.addEventListener('state', function (e) { onState(JSON.parse(e.data)); });
    es.onerror = function () { text($('status'), 'reconnecting\u2026'); };
  }
  api('GET', '/api/state').then(onState).catch(function () {});
  connect();
  window.ttTable = {state: function () { return state; }, view: view, client: CLIENT,
                    trace: function () { return trace.slice(); }};
})();
