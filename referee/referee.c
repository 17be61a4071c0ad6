/* referee.c - the referee's phases: where the game stands, stepped in the
 * book's order (the profile's "turns"), and the figures it watches. */
#include "referee_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const json_t *referee__value(const json_t *v)
{
    if (json_is_object(v) && json_object_get(v, "value"))
        return json_object_get(v, "value");
    return v;
}

const char *referee__phase_str(const referee *r, int phase, const char *key)
{
    if (phase < 0 || (size_t)phase >= r->nphases)
        return NULL;
    return json_string_value(json_object_get(json_array_get(r->phases, (size_t)phase), key));
}

int referee__phase_flag(const referee *r, int phase, const char *key)
{
    if (phase < 0 || (size_t)phase >= r->nphases)
        return 0;
    return json_is_true(json_object_get(json_array_get(r->phases, (size_t)phase), key));
}

tt_status referee__emit(json_t *events, json_t *o, tt_err *err)
{
    if (!o || !events || json_array_append_new(events, o))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    return TT_OK;
}

/* The index of name in list (n of them), -1 if absent. */
static int referee__find(const char *const *list, size_t n, const char *name)
{
    for (size_t i = 0; name && i < n; i++)
        if (!strcmp(list[i], name))
            return (int)i;
    return -1;
}

tt_status referee_create(rules_scenario *sc, referee **out, tt_err *err)
{
    tt_status st;
    referee *r = NULL;
    *out = NULL;
    if (!sc)
        return tt_err_set(err, TT_ERR_ARG, "referee_create: no scenario");
    const json_t *turns = rules_scenario_turns(sc);
    if (!turns)
        return tt_err_set(err, TT_ERR_FORMAT, "the %s profile has no \"turns\": the referee needs the book's turn "
                                              "structure (see docs/rulesets.md, \"Turns and phases\")",
                          rules_scenario_ruleset(sc));
    if (!(r = calloc(1, sizeof *r)))
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    r->sc = sc;
    r->turns = turns;
    r->losses = rules_scenario_losses(sc);
    r->phases = json_object_get(turns, "phases");
    r->nphases = json_array_size(r->phases);
    r->one_move_a_turn = json_is_true(referee__value(json_object_get(turns, "one_move_a_turn")));
    r->turns_src = json_string_value(json_object_get(turns, "src"));
    r->phase = r->side = -1;
    r->nfigs = rules_scenario_figure_count(sc);
    r->figs = calloc(r->nfigs + 1, sizeof *r->figs);
    r->units = calloc(r->nfigs + 1, sizeof *r->units);
    r->sides = calloc(r->nfigs + 1, sizeof *r->sides);
    if (!r->figs || !r->units || !r->sides) {
        st = tt_err_set(err, TT_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < r->nfigs; i++) {
        referee__fig *f = &r->figs[i];
        f->id = rules_scenario_figure_id(sc, i);
        rules_scenario_figure_info(sc, i, &f->side, &f->unit, &f->type, &f->formation);
        f->side_ix = -1;
        if (f->side) {
            if ((f->side_ix = referee__find(r->sides, r->nsides, f->side)) < 0) {
                f->side_ix = (int)r->nsides;
                r->sides[r->nsides++] = f->side;
            }
        }
        f->unit_ix = -1;
        if (f->unit) {
            for (size_t u = 0; u < r->nunits; u++)
                if (!strcmp(r->units[u].name, f->unit))
                    f->unit_ix = (int)u;
            if (f->unit_ix < 0) {
                f->unit_ix = (int)r->nunits;
                r->units[r->nunits++].name = f->unit;
            }
            r->units[f->unit_ix].of++;
        }
    }
    for (size_t u = 0; u < r->nunits; u++)
        r->units[u].alive_turn_start = r->units[u].of;
    *out = r;
    return TT_OK;
fail:
    referee_destroy(r);
    return st;
}

void referee_destroy(referee *r)
{
    if (!r)
        return;
    free(r->figs);
    free(r->units);
    free(r->sides);
    free(r);
}

int referee_turn(const referee *r) { return r && r->phase >= 0 ? r->turn : 0; }
const char *referee_phase(const referee *r) { return r ? referee__phase_str(r, r->phase, "name") : NULL; }
const char *referee_side(const referee *r) { return r && r->phase >= 0 && r->side >= 0 ? r->sides[r->side] : NULL; }

/* Where every figure on the table stands now is where it stood when this
 * step began; the step is a new one. */
static void referee__step_start(referee *r)
{
    r->step++;
    for (size_t i = 0; i < r->nfigs; i++) {
        referee__fig *f = &r->figs[i];
        f->has_start = f->known && f->present;
        f->sx = f->x, f->sy = f->y, f->sfacing = f->facing, f->serr = f->err;
        f->gone_step = 0;
        f->moved_step = 0;
    }
    for (size_t u = 0; u < r->nunits; u++)
        r->units[u].lost_step = 0;
}

/* Go to (turn, phase, side), ending the current step first; appends the
 * phase event. */
static tt_status referee__go(referee *r, int turn, int phase, int side, json_t *events, tt_err *err)
{
    tt_status st;
    int new_turn = r->phase < 0 || turn != r->turn;
    if (r->phase >= 0 && (st = referee__step_end(r, new_turn || phase != r->phase, events, err)))
        return st;
    /* a figure that moved in the step that ended moved in this turn */
    for (size_t i = 0; i < r->nfigs; i++)
        if (r->figs[i].moved_step)
            r->figs[i].moved_turn = r->turn;
    if (phase != r->phase || new_turn)
        for (size_t u = 0; u < r->nunits; u++)
            r->units[u].lost_phase = 0;
    r->turn = turn;
    if (new_turn)
        referee__turn_start(r);
    r->phase = phase;
    r->side = side;
    referee__step_start(r);
    json_t *ev = json_object();
    if (ev && (json_object_set_new(ev, "event", json_string("phase")) ||
               json_object_set_new(ev, "turn", json_integer(turn)) ||
               json_object_set_new(ev, "phase", json_string(referee__phase_str(r, phase, "name"))) ||
               json_object_set_new(ev, "side", side >= 0 ? json_string(r->sides[side]) : json_null()))) {
        json_decref(ev);
        ev = NULL;
    }
    return referee__emit(events, ev, err);
}

tt_status referee_set(referee *r, int turn, const char *phase, const char *side, json_t *events, tt_err *err)
{
    char names[400] = "";
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "referee_set: no referee");
    int p = -1;
    for (size_t i = 0; phase && i < r->nphases; i++)
        if (!strcmp(referee__phase_str(r, (int)i, "name"), phase))
            p = (int)i;
    if (p < 0) {
        for (size_t i = 0; i < r->nphases; i++) {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", referee__phase_str(r, (int)i, "name"));
        }
        return tt_err_set(err, TT_ERR_UNKNOWN, "%s%s%s is not a phase of %s: its phases are %s", phase ? "\"" : "",
                          phase ? phase : "no phase", phase ? "\"" : "", rules_scenario_ruleset(r->sc), names);
    }
    int both = !strcmp(referee__phase_str(r, p, "sides"), "none");
    int s = referee__find(r->sides, r->nsides, side);
    if (!both && s < 0) {
        for (size_t i = 0; i < r->nsides; i++) {
            size_t l = strlen(names);
            snprintf(names + l, sizeof names - l, "%s%s", i ? ", " : "", r->sides[i]);
        }
        return tt_err_set(err, TT_ERR_UNKNOWN, "%s%s%s is not a side of this scenario: its sides are %s%s",
                          side ? "\"" : "", side ? side : "no side", side ? "\"" : "", names,
                          side ? "" : " (the phase needs the side that plays it)");
    }
    if (both)
        s = -1;
    int cur = r->phase >= 0 ? r->turn : 1;
    if (turn == 0)
        turn = cur;
    if (turn < 1 || (r->phase >= 0 && turn < r->turn))
        return tt_err_set(err, TT_ERR_ARG, "turn %d: the game is at turn %d and turns only go forward (from 1)", turn,
                          cur);
    if (r->phase >= 0 && turn == r->turn && p == r->phase && s == r->side)
        return TT_OK;
    if (s >= 0 && (p == 0 || turn != r->turn || r->phase < 0))
        r->initiative = s;
    return referee__go(r, turn, p, s, events, err);
}

/* Where Next goes from where the game stands (a phase is set). */
static void referee__next_of(const referee *r, int *turn, int *phase, int *side)
{
    const char *sides = referee__phase_str(r, r->phase, "sides");
    size_t ns = r->nsides ? r->nsides : 1;
    *turn = r->turn, *phase = r->phase;
    if (!strcmp(sides, "alternate") && r->side >= 0) {
        *side = (int)((size_t)(r->side + 1) % ns);
        return;
    }
    if (!strcmp(sides, "each") && r->side >= 0) {
        *side = (int)((size_t)(r->side + 1) % ns);
        if (*side != r->initiative)
            return;
    }
    *phase = r->phase + 1;
    if ((size_t)*phase >= r->nphases)
        *phase = 0, ++*turn;
    *side = strcmp(referee__phase_str(r, *phase, "sides"), "none") ? r->initiative : -1;
}

tt_status referee_next(referee *r, json_t *events, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "referee_next: no referee");
    if (r->phase < 0)
        return tt_err_set(err, TT_ERR_ARG, "no phase is set yet: set the turn's first phase and the side with the "
                                           "initiative (e.g. {\"frame\": 0, \"phase\": \"%s\", \"side\": \"%s\"})",
                          referee__phase_str(r, 0, "name"), r->nsides ? r->sides[0] : "SIDE");
    int t, p, s;
    referee__next_of(r, &t, &p, &s);
    return referee__go(r, t, p, s, events, err);
}

int referee_peek_next(const referee *r, int *turn, const char **phase, const char **side)
{
    *turn = 0, *phase = *side = NULL;
    if (!r || r->phase < 0)
        return 0;
    int p, s;
    referee__next_of(r, turn, &p, &s);
    *phase = referee__phase_str(r, p, "name");
    *side = s >= 0 ? r->sides[s] : NULL;
    return 1;
}

size_t referee_side_count(const referee *r) { return r ? r->nsides : 0; }
const char *referee_side_name(const referee *r, size_t i) { return r && i < r->nsides ? r->sides[i] : NULL; }

tt_status referee_settled(referee *r, const char *id, double x, double y, double facing_deg, double err95_in,
                          json_t *events, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "referee_settled: no referee");
    int i = rules_scenario_figure_index(r->sc, id);
    if (i < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "unknown figure \"%s\": it is not in the scenario", id ? id : "");
    if (!isfinite(x) || !isfinite(y) || !isfinite(facing_deg) || !isfinite(err95_in) || err95_in < 0)
        return tt_err_set(err, TT_ERR_ARG, "figure \"%s\": its position and error must be finite numbers", id);
    referee__fig *f = &r->figs[i];
    tt_status st = rules_scenario_place(r->sc, id, x, y, facing_deg, err);
    if (st || (st = rules_scenario_set_errors(r->sc, id, err95_in, 0, 0, err)))
        return st;
    f->err = err95_in;
    if (f->dead && f->unit_ix >= 0) {
        /* counted as a casualty and back on the table: it was not one */
        referee__unit *u = &r->units[f->unit_ix];
        u->lost_total--, u->lost_turn -= u->lost_turn > 0, u->lost_phase -= u->lost_phase > 0;
    }
    f->dead = 0;
    f->gone_step = 0;
    f->present = 1;
    f->x = x, f->y = y, f->facing = facing_deg;
    if (!f->known) {
        f->known = 1;
        if (r->phase >= 0 && !f->has_start) {
            /* first seen during a step: that is where it stands for the step */
            f->has_start = 1;
            f->sx = x, f->sy = y, f->sfacing = facing_deg, f->serr = err95_in;
        }
        return TT_OK;
    }
    if (r->phase < 0)
        return TT_OK;
    if (!f->has_start) {
        f->has_start = 1;
        f->sx = x, f->sy = y, f->sfacing = facing_deg, f->serr = err95_in;
        return TT_OK;
    }
    return referee__check(r, (size_t)i, events, err);
}

tt_status referee_lifted(referee *r, const char *id, tt_err *err)
{
    if (!r)
        return tt_err_set(err, TT_ERR_ARG, "referee_lifted: no referee");
    int i = rules_scenario_figure_index(r->sc, id);
    if (i < 0)
        return tt_err_set(err, TT_ERR_UNKNOWN, "unknown figure \"%s\": it is not in the scenario", id ? id : "");
    referee__fig *f = &r->figs[i];
    if (!f->present)
        return TT_OK;
    f->present = 0;
    f->gone_step = r->phase >= 0;
    return TT_OK;
}
