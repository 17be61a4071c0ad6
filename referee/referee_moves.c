/* referee_moves.c - every move checked: a figure that settles away from
 * where it stood when its side's phase or activation began is asked about
 * as players ask ('move', or 'charge' when it ends in base contact with an
 * enemy in a phase where charges happen), or named out of turn. */
#include "referee_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The dice sum a dice move needs at least to reach (the lowest roll whose
 * allowance covers it), or -1 when none does. */
static int referee__needs_roll(referee *r, const char *id, rules_point to, double top_in)
{
    for (int roll = 1; roll <= 60; roll++) {
        rules_result res = {0};
        tt_err e = {0};
        if (rules_move(r->sc, id, to, roll, &res, &e) == TT_OK) {
            int ok = res.ok == 1, past = res.allowed_known && res.allowed_in > top_in + 1e-9;
            rules_result_free(&res);
            if (ok)
                return roll;
            if (past)
                return -1;
        } else {
            rules_result_free(&res);
        }
    }
    return -1;
}

static json_t *referee__xy(double x, double y)
{
    return json_pack("[f, f]", round(x * 100) / 100, round(y * 100) / 100);
}

/* The event `name` for figure f: id, from, to, then the answer's fields. */
static json_t *referee__event(const referee__fig *f, const char *name)
{
    json_t *ev = json_object();
    if (ev && (json_object_set_new(ev, "event", json_string(name)) || json_object_set_new(ev, "id", json_string(f->id)) ||
               json_object_set_new(ev, "from", referee__xy(f->sx, f->sy)) ||
               json_object_set_new(ev, "to", referee__xy(f->x, f->y)))) {
        json_decref(ev);
        return NULL;
    }
    return ev;
}

/* Ask the 'move' question (or 'charge' at `target`) as players ask it,
 * with the figure standing where it stood when the step began and its
 * error both positions' together; then stand it where it settled, with its
 * own error.  *answer: the answer's JSON (the caller owns it). */
static tt_status referee__ask(referee *r, const referee__fig *f, const char *target, json_t **answer, tt_err *err)
{
    tt_status st;
    *answer = NULL;
    json_t *q = target ? json_pack("{s:s, s:s, s:s}", "q", "charge", "from", f->id, "to", target)
                       : json_pack("{s:s, s:s, s:[f, f]}", "q", "move", "from", f->id, "to", f->x, f->y);
    if (!q)
        return tt_err_set(err, TT_ERR_NOMEM, "out of memory");
    if ((st = rules_scenario_place(r->sc, f->id, f->sx, f->sy, f->sfacing, err)) == TT_OK &&
        (st = rules_scenario_set_errors(r->sc, f->id, hypot(f->serr, f->err), 0, 0, err)) == TT_OK)
        st = rules_query_json(r->sc, q, answer, err);
    json_decref(q);
    const json_t *range = json_object_get(*answer, "allowed_range_in");
    if (st == TT_OK && json_is_null(json_object_get(*answer, "allowed_in")) && json_array_size(range) == 2) {
        /* dice decide the allowance: within the lowest roll's it is fair,
         * past the highest's it is over; between, the roll it needs */
        double d = json_number_value(json_object_get(*answer, "distance_in"));
        double low = json_number_value(json_array_get(range, 0)), top = json_number_value(json_array_get(range, 1));
        if (d <= low + 1e-9) {
            json_object_set_new(*answer, "ok", json_true());
        } else if (d > top + 1e-9) {
            json_object_set_new(*answer, "ok", json_false());
        } else if (!target) {
            rules_point to = {f->x, f->y};
            int need = referee__needs_roll(r, f->id, to, top);
            json_object_set_new(*answer, "needs_roll", need > 0 ? json_integer(need) : json_null());
        }
    }
    tt_status st2 = rules_scenario_place(r->sc, f->id, f->x, f->y, f->facing, err);
    if (st2 == TT_OK)
        st2 = rules_scenario_set_errors(r->sc, f->id, f->err, 0, 0, err);
    if (st == TT_OK && st2 != TT_OK)
        st = st2;
    if (st != TT_OK) {
        json_decref(*answer);
        *answer = NULL;
    }
    return st;
}

/* Copy the answer's fields the event carries; too_close_to_call is the
 * answer's (false where it gives none: measured from exact positions). */
static void referee__answer_fields(json_t *ev, const json_t *a)
{
    static const char *const keys[] = {"charger",    "target", "distance_in", "distance_err95_in", "allowed_in", "ok",
                                       "allowed_range_in", "needs_roll", "crossed", "tie", "rule"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *v = json_object_get(a, keys[k]);
        if (v)
            json_object_set(ev, keys[k], v);
        else if (!strcmp(keys[k], "allowed_in") || !strcmp(keys[k], "ok"))
            json_object_set_new(ev, keys[k], json_null());
    }
    json_t *tc = json_object_get(a, "too_close_to_call");
    json_object_set_new(ev, "too_close_to_call", json_boolean(json_is_true(tc)));
    /* keep the contract's order: the rule last */
    json_t *rule = json_incref(json_object_get(ev, "rule"));
    if (rule) {
        json_object_del(ev, "rule");
        json_object_set_new(ev, "rule", rule);
    }
}

/* Why figure f may not move now, into buf; NULL when it may. */
static const char *referee__out_of_turn(const referee *r, const referee__fig *f, char *buf, size_t n)
{
    const char *phase = referee__phase_str(r, r->phase, "name"), *src = referee__phase_str(r, r->phase, "src");
    if (!referee__phase_flag(r, r->phase, "moves")) {
        snprintf(buf, n, "no figure moves in the %s phase (%s)", phase, src ? src : r->turns_src);
        return buf;
    }
    if (r->side >= 0 && f->side_ix != r->side) {
        snprintf(buf, n, "it is %s's %s; %s is %s's (%s)", r->sides[r->side], phase, f->id, f->side ? f->side : "no side",
                 r->turns_src ? r->turns_src : src);
        return buf;
    }
    const json_t *imm = json_object_get(r->turns, "immobile_formations");
    const json_t *iv = referee__value(imm);
    for (size_t k = 0; f->formation && k < json_array_size(iv); k++)
        if (!strcmp(json_string_value(json_array_get(iv, k)), f->formation)) {
            snprintf(buf, n, "%s is in %s, which does not move (%s)", f->id, f->formation,
                     json_string_value(json_object_get(imm, "src")) ? json_string_value(json_object_get(imm, "src"))
                                                                     : r->turns_src);
            return buf;
        }
    if (r->one_move_a_turn && f->moved_turn == r->turn) {
        const json_t *om = json_object_get(r->turns, "one_move_a_turn");
        snprintf(buf, n, "each figure acts once a turn: %s moved already in turn %d (%s)", f->id, r->turn,
                 json_string_value(json_object_get(om, "src")) ? json_string_value(json_object_get(om, "src"))
                                                                : r->turns_src);
        return buf;
    }
    return NULL;
}

tt_status referee__check(referee *r, size_t i, json_t *events, tt_err *err)
{
    tt_status st;
    char why[640];
    referee__fig *f = &r->figs[i];
    double d = hypot(f->x - f->sx, f->y - f->sy);
    if (d <= REFEREE_PUT_BACK_IN) {
        if (!f->moved_step)
            return TT_OK;
        f->moved_step = 0;
        json_t *ev = referee__event(f, "move_check");
        if (ev && (json_object_set_new(ev, "distance_in", json_real(round(d * 100) / 100)) ||
                   json_object_set_new(ev, "allowed_in", json_null()) || json_object_set_new(ev, "ok", json_true()) ||
                   json_object_set_new(ev, "too_close_to_call", json_false()) ||
                   json_object_set_new(ev, "put_back", json_true()) ||
                   json_object_set_new(ev, "rule", json_string("put back where it stood when the phase began: "
                                                               "its check is cleared")))) {
            json_decref(ev);
            ev = NULL;
        }
        return referee__emit(events, ev, err);
    }
    f->moved_step = r->step;
    if (referee__out_of_turn(r, f, why, sizeof why)) {
        json_t *ev = json_pack("{s:s, s:s, s:s}", "event", "out_of_turn", "id", f->id, "rule", why);
        return referee__emit(events, ev, err);
    }
    const char *target = NULL;
    if (referee__phase_flag(r, r->phase, "charges"))
        for (size_t j = 0; j < r->nfigs && !target; j++) {
            const referee__fig *e = &r->figs[j];
            if (j != i && e->present && e->known && e->side_ix >= 0 && e->side_ix != f->side_ix &&
                rules_scenario_in_contact(r->sc, i, j))
                target = e->id;
        }
    json_t *answer = NULL;
    if ((st = referee__ask(r, f, target, &answer, err)))
        return st;
    json_t *ev = referee__event(f, target ? "charge_check" : "move_check");
    if (ev)
        referee__answer_fields(ev, answer);
    json_decref(answer);
    return referee__emit(events, ev, err);
}
