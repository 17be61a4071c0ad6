/* test_referee.c - the referee: phases stepped in each book's order, moves
 * checked under, at and over the allowance, through terrain, out of turn
 * and put back, charges, casualties, and the calls at each threshold. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_referee_util.h"

int referee_book_tests(void);

/* The Thin Red Line: a British line of four stands, a square, two
 * dragoons; a French line of four; rough going across one dragoon's way. */
#define TRL_TERRAIN "[{\"id\": \"rough1\", \"kind\": \"rough\", \"polygon\": [[18, 28], [24, 28], [24, 34], [18, 34]]}]"
#define TRL_FIGS                                                                                                       \
    "[{\"id\": \"b1\", \"side\": \"british\", \"unit\": \"52nd\", \"type\": \"foot\", \"formation\": \"line\", "    \
    "\"x\": 10, \"y\": 10, \"facing_deg\": 90},"                                                                       \
    "{\"id\": \"b2\", \"side\": \"british\", \"unit\": \"52nd\", \"type\": \"foot\", \"formation\": \"line\", "     \
    "\"x\": 14, \"y\": 10, \"facing_deg\": 90},"                                                                       \
    "{\"id\": \"b3\", \"side\": \"british\", \"unit\": \"52nd\", \"type\": \"foot\", \"formation\": \"line\", "     \
    "\"x\": 18, \"y\": 10, \"facing_deg\": 90},"                                                                       \
    "{\"id\": \"b4\", \"side\": \"british\", \"unit\": \"52nd\", \"type\": \"foot\", \"formation\": \"line\", "     \
    "\"x\": 22, \"y\": 10, \"facing_deg\": 90},"                                                                       \
    "{\"id\": \"sq\", \"side\": \"british\", \"unit\": \"guard\", \"type\": \"foot\", \"formation\": \"square\", "  \
    "\"x\": 40, \"y\": 10, \"facing_deg\": 90},"                                                                       \
    "{\"id\": \"h1\", \"side\": \"british\", \"unit\": \"dragoons\", \"type\": \"horse\", \"formation\": \"line\", " \
    "\"x\": 14, \"y\": 31, \"facing_deg\": 0},"                                                                        \
    "{\"id\": \"h2\", \"side\": \"british\", \"unit\": \"dragoons\", \"type\": \"horse\", \"formation\": \"line\", " \
    "\"x\": 14, \"y\": 24, \"facing_deg\": 0},"                                                                        \
    "{\"id\": \"f1\", \"side\": \"french\", \"unit\": \"4e\", \"type\": \"foot\", \"formation\": \"line\", "        \
    "\"x\": 10, \"y\": 14, \"facing_deg\": -90},"                                                                      \
    "{\"id\": \"f2\", \"side\": \"french\", \"unit\": \"4e\", \"type\": \"foot\", \"formation\": \"line\", "        \
    "\"x\": 30, \"y\": 14, \"facing_deg\": -90},"                                                                      \
    "{\"id\": \"f3\", \"side\": \"french\", \"unit\": \"4e\", \"type\": \"foot\", \"formation\": \"line\", "        \
    "\"x\": 18, \"y\": 14, \"facing_deg\": -90},"                                                                      \
    "{\"id\": \"f4\", \"side\": \"french\", \"unit\": \"4e\", \"type\": \"foot\", \"formation\": \"line\", "        \
    "\"x\": 34, \"y\": 14, \"facing_deg\": -90}]"

typedef struct game {
    rules_scenario *sc;
    referee *r;
    json_t *ev;
} game;

static game start(const char *ruleset, const char *terrain, const char *figs)
{
    game g;
    g.sc = tr_scenario(ruleset, terrain, figs);
    g.r = tr_referee(g.sc, figs);
    g.ev = json_array();
    return g;
}

static void finish(game *g)
{
    json_decref(g->ev);
    referee_destroy(g->r);
    rules_scenario_destroy(g->sc);
}

/* Clear the events, then settle / set / next, failing on an error. */
static const json_t *settle_err(game *g, const char *id, double x, double y, double facing, double err95)
{
    tt_err err = {0};
    json_array_clear(g->ev);
    tt_status st = referee_settled(g->r, id, x, y, facing, err95, g->ev, &err);
    if (st)
        fprintf(stderr, "settle %s: %s\n", id, err.msg);
    assert_int_equal(st, TT_OK);
    return g->ev;
}

static const json_t *settle(game *g, const char *id, double x, double y, double facing)
{
    return settle_err(g, id, x, y, facing, 0);
}

static const json_t *set(game *g, int turn, const char *phase, const char *side)
{
    tt_err err = {0};
    json_array_clear(g->ev);
    tt_status st = referee_set(g->r, turn, phase, side, g->ev, &err);
    if (st)
        fprintf(stderr, "set %s %s: %s\n", phase, side ? side : "-", err.msg);
    assert_int_equal(st, TT_OK);
    return g->ev;
}

static const json_t *next(game *g)
{
    tt_err err = {0};
    json_array_clear(g->ev);
    assert_int_equal(referee_next(g->r, g->ev, &err), TT_OK);
    return g->ev;
}

static void lift(game *g, const char *id)
{
    tt_err err = {0};
    assert_int_equal(referee_lifted(g->r, id, &err), TT_OK);
}

static void assert_at(const game *g, int turn, const char *phase, const char *side)
{
    assert_int_equal(referee_turn(g->r), turn);
    assert_string_equal(referee_phase(g->r), phase);
    if (side)
        assert_string_equal(referee_side(g->r), side);
    else
        assert_null(referee_side(g->r));
    /* the phase event says the same */
    const json_t *e = tr_find(g->ev, "phase", NULL);
    assert_non_null(e);
    assert_int_equal(json_integer_value(json_object_get(e, "turn")), turn);
    assert_string_equal(json_string_value(json_object_get(e, "phase")), phase);
    if (side)
        assert_string_equal(json_string_value(json_object_get(e, "side")), side);
    else
        assert_true(json_is_null(json_object_get(e, "side")));
}

static double num(const json_t *e, const char *key)
{
    const json_t *v = json_object_get(e, key);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The Thin Red Line (L216): movement, shooting, assault, the initiative
 * side first in each; next after the last starts the next turn. */
static void test_trl_order(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    tt_err err = {0};
    assert_int_equal(referee_turn(g.r), 0);
    assert_null(referee_phase(g.r));
    assert_int_equal(referee_next(g.r, g.ev, &err), TT_ERR_ARG); /* no phase yet */
    assert_non_null(strstr(err.msg, "no phase is set yet"));
    /* until a phase is set, nothing is checked */
    assert_int_equal(json_array_size(settle(&g, "b1", 10, 20, 90)), 0);
    settle(&g, "b1", 10, 10, 90);
    set(&g, 1, "movement", "french"); /* the French won the initiative */
    assert_at(&g, 1, "movement", "french");
    next(&g), assert_at(&g, 1, "movement", "british");
    next(&g), assert_at(&g, 1, "shooting", "french");
    next(&g), assert_at(&g, 1, "shooting", "british");
    next(&g), assert_at(&g, 1, "assault", "french");
    next(&g), assert_at(&g, 1, "assault", "british");
    next(&g), assert_at(&g, 2, "movement", "french");
    /* a new turn's first phase set with the other side: it has the initiative */
    set(&g, 3, "movement", "british");
    assert_at(&g, 3, "movement", "british");
    next(&g), assert_at(&g, 3, "movement", "french");
    next(&g), assert_at(&g, 3, "shooting", "british");
    finish(&g);
}

/* referee_peek_next says where Next goes, changing nothing: nothing
 * before a phase; each step of The Thin Red Line's turn (L216), the new
 * turn after the last; Into the Breach!'s actions hand over to the other
 * side and stay (L65-68); its morale phase, both sides at once, goes to the
 * next turn's actions (L68-70). */
static void test_peek_next(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    int turn = -1;
    const char *phase = "x", *side = "x";
    assert_int_equal(referee_peek_next(g.r, &turn, &phase, &side), 0);
    assert_int_equal(turn, 0);
    assert_null(phase);
    assert_null(side);
    assert_int_equal(referee_side_count(g.r), 2);
    assert_string_equal(referee_side_name(g.r, 0), "british");
    assert_string_equal(referee_side_name(g.r, 1), "french");
    assert_null(referee_side_name(g.r, 2));
    set(&g, 1, "movement", "french");
    for (int k = 0; k < 7; k++) {
        assert_int_equal(referee_peek_next(g.r, &turn, &phase, &side), 1);
        char want_phase[32], want_side[32];
        int want_turn = turn;
        snprintf(want_phase, sizeof want_phase, "%s", phase);
        snprintf(want_side, sizeof want_side, "%s", side ? side : "");
        /* peeking changed nothing */
        assert_int_equal(referee_turn(g.r), k < 6 ? 1 : 2);
        next(&g);
        assert_at(&g, want_turn, want_phase, want_side[0] ? want_side : NULL);
        if (k == 5) { /* after the assault: the next turn, the same initiative */
            assert_int_equal(want_turn, 2);
            assert_string_equal(want_phase, "movement");
            assert_string_equal(want_side, "french");
        }
    }
    finish(&g);

    g = start("into-the-breach", "[]",
              "[{\"id\": \"b1\", \"side\": \"british\", \"unit\": \"u1\", \"type\": \"foot\", "
              "\"x\": 10, \"y\": 10, \"facing_deg\": 0},"
              "{\"id\": \"f1\", \"side\": \"french\", \"unit\": \"u2\", \"type\": \"foot\", "
              "\"x\": 40, \"y\": 10, \"facing_deg\": 180}]");
    set(&g, 1, "actions", "british");
    assert_int_equal(referee_peek_next(g.r, &turn, &phase, &side), 1);
    assert_int_equal(turn, 1);
    assert_string_equal(phase, "actions");
    assert_string_equal(side, "french");
    set(&g, 0, "morale", NULL);
    assert_int_equal(referee_peek_next(g.r, &turn, &phase, &side), 1);
    assert_int_equal(turn, 2);
    assert_string_equal(phase, "actions");
    assert_string_equal(side, "british");
    finish(&g);
}

static void test_bad_phase_and_side(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    tt_err err = {0};
    assert_int_equal(referee_set(g.r, 1, "melee", "british", g.ev, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "\"melee\" is not a phase of thin-red-line"));
    assert_non_null(strstr(err.msg, "movement, shooting, assault"));
    assert_int_equal(referee_set(g.r, 1, "movement", "prussian", g.ev, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "\"prussian\" is not a side"));
    assert_non_null(strstr(err.msg, "british, french"));
    assert_int_equal(referee_set(g.r, 1, "movement", NULL, g.ev, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "needs the side"));
    assert_int_equal(json_array_size(g.ev), 0);
    set(&g, 2, "movement", "british");
    assert_int_equal(referee_set(g.r, 1, "movement", "british", g.ev, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "turns only go forward"));
    assert_int_equal(referee_settled(g.r, "zz", 1, 1, 0, 0, g.ev, &err), TT_ERR_UNKNOWN);
    assert_non_null(strstr(err.msg, "unknown figure \"zz\""));
    assert_int_equal(referee_settled(g.r, "b1", 1, 1, 0, -1, g.ev, &err), TT_ERR_ARG);
    assert_non_null(strstr(err.msg, "must be finite numbers"));
    assert_int_equal(referee_lifted(g.r, "zz", &err), TT_ERR_UNKNOWN);
    finish(&g);
}

/* A line stand moves 4 (thin-red-line.txt L220): under, at and over; from
 * stays where it stood when the phase began; put back clears it. */
static void test_trl_moves(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "movement", "british");
    const json_t *e = tr_find(settle(&g, "b1", 10, 13, 90), "move_check", "b1");
    assert_non_null(e);
    assert_true(num(e, "distance_in") == 3.0);
    assert_true(num(e, "allowed_in") == 4.0);
    assert_true(json_is_true(json_object_get(e, "ok")));
    assert_true(json_is_false(json_object_get(e, "too_close_to_call")));
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "thin-red-line.txt L220"));
    e = tr_find(settle(&g, "b1", 10, 14, 90), "move_check", "b1"); /* at the allowance */
    assert_true(num(e, "distance_in") == 4.0);
    assert_true(json_is_true(json_object_get(e, "ok")));
    e = tr_find(settle(&g, "b1", 10, 15.5, 90), "move_check", "b1"); /* over */
    assert_true(num(e, "distance_in") == 5.5);
    assert_true(json_is_false(json_object_get(e, "ok")));
    assert_true(json_number_value(json_array_get(json_object_get(e, "from"), 1)) == 10.0);
    assert_true(json_number_value(json_array_get(json_object_get(e, "to"), 1)) == 15.5);
    e = tr_find(settle(&g, "b1", 10.05, 10.05, 90), "move_check", "b1"); /* put back */
    assert_non_null(e);
    assert_true(json_is_true(json_object_get(e, "put_back")));
    assert_true(json_is_true(json_object_get(e, "ok")));
    /* put back again: nothing more to clear */
    assert_int_equal(json_array_size(settle(&g, "b1", 10, 10, 90)), 0);
    finish(&g);
}

/* The tracker's errors: a move that ends right at the allowance is too
 * close to call when its position is sure only to 0.2" (the move asked
 * with both positions' errors together), and not when they are exact; a move well
 * under it is not close either way. */
static void test_trl_too_close(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "movement", "british");
    const json_t *e = tr_find(settle(&g, "b1", 10, 14, 90), "move_check", "b1");
    assert_true(json_is_false(json_object_get(e, "too_close_to_call")));
    e = tr_find(settle_err(&g, "b2", 14, 14, 90, 0.2), "move_check", "b2");
    assert_non_null(e);
    assert_true(json_is_true(json_object_get(e, "ok")));
    if (!json_is_true(json_object_get(e, "too_close_to_call")))
        tr_dump("at the allowance, 0.2in errors", g.ev);
    assert_true(json_is_true(json_object_get(e, "too_close_to_call")));
    assert_true(num(e, "distance_err95_in") > 0.19); /* 0 where it began, 0.2 where it settled */
    e = tr_find(settle_err(&g, "b3", 18, 11, 90, 0.2), "move_check", "b3");
    assert_true(json_is_false(json_object_get(e, "too_close_to_call")));
    finish(&g);
}

/* Through terrain: a dragoon (8, thin-red-line.txt L220) loses 2 in rough
 * going (L232): 7 in the open is fair, 7 through rough is over. */
static void test_trl_terrain(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "movement", "british");
    const json_t *e = tr_find(settle(&g, "h2", 21, 24, 0), "move_check", "h2");
    assert_non_null(e);
    assert_true(num(e, "allowed_in") == 8.0);
    assert_true(json_is_true(json_object_get(e, "ok")));
    e = tr_find(settle(&g, "h1", 21, 31, 0), "move_check", "h1");
    assert_non_null(e);
    assert_true(num(e, "distance_in") == 7.0);
    assert_true(num(e, "allowed_in") == 6.0);
    assert_true(json_is_false(json_object_get(e, "ok")));
    assert_string_equal(json_string_value(json_array_get(json_object_get(e, "crossed"), 0)), "rough1");
    finish(&g);
}

/* Out of turn: the other side's figure in a side's movement, any figure in
 * the shooting phase, a square (thin-red-line.txt L220). */
static void test_trl_out_of_turn(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "movement", "british");
    const json_t *e = tr_find(settle(&g, "f2", 30, 17, -90), "out_of_turn", "f2");
    assert_non_null(e);
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "british's movement"));
    assert_int_equal(tr_count(g.ev, "move_check"), 0);
    e = tr_find(settle(&g, "sq", 40, 12, 90), "out_of_turn", "sq");
    assert_non_null(e);
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "square"));
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "thin-red-line.txt L220"));
    next(&g), next(&g); /* french movement, british shooting */
    e = tr_find(settle(&g, "b2", 14, 11, 90), "out_of_turn", "b2");
    assert_non_null(e);
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "no figure moves in the shooting phase"));
    finish(&g);
}

/* In the assault phase a stand that settles in base contact with an enemy
 * is checked as a charge (assault 4, thin-red-line.txt L252). */
static void test_trl_charge(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "assault", "british");
    const json_t *e = tr_find(settle(&g, "b3", 18, 12.75, 90), "charge_check", "b3");
    if (!e)
        tr_dump("charge", g.ev);
    assert_non_null(e);
    assert_string_equal(json_string_value(json_object_get(e, "target")), "f3");
    assert_true(json_is_true(json_object_get(e, "ok")));
    assert_true(num(e, "allowed_in") == 4.0);
    assert_int_equal(tr_count(g.ev, "move_check"), 0);
    /* not in contact: an ordinary move check */
    assert_non_null(tr_find(settle(&g, "b4", 22, 11, 90), "move_check", "b4"));
    finish(&g);
}

/* Casualties at a phase's end; a stand lifted and put back is none; the
 * motivation test for a unit that lost stands to shooting, disorientated
 * at 50% since the turn began (thin-red-line.txt L246-248), -1 below half
 * strength (L266). */
static void test_trl_casualties(void **state)
{
    (void)state;
    game g = start("thin-red-line", TRL_TERRAIN, TRL_FIGS);
    set(&g, 1, "shooting", "british");
    lift(&g, "f1");
    lift(&g, "f3");
    settle(&g, "f3", 18, 14, -90); /* put back: no casualty */
    const json_t *ev = next(&g);   /* french shooting */
    const json_t *c = tr_find(ev, "casualties", "4e");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "lost")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "of")), 4);
    assert_int_equal(json_integer_value(json_object_get(c, "since_turn_start")), 1);
    assert_int_equal(tr_count(ev, "morale"), 0); /* called when the shooting phase ends */
    lift(&g, "b1");
    ev = next(&g); /* assault: the shooting phase ended */
    lift(&g, "f2");
    c = tr_find(ev, "casualties", "52nd");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "lost")), 1);
    const json_t *m = tr_find(ev, "morale", "4e");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "call")), "motivation");
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "test"), "dice")), "1d6");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(m, "test"), "needs_by_rating"),
                                                        "steady")),
                     4);
    assert_int_equal(json_array_size(json_object_get(json_object_get(m, "test"), "modifiers")), 0);
    assert_true(json_is_null(json_object_get(m, "result"))); /* 1 of 4 since the turn began */
    assert_non_null(strstr(json_string_value(json_object_get(m, "rule")), "thin-red-line.txt L246"));
    m = tr_find(ev, "morale", "52nd");
    assert_non_null(m);
    /* f2, lifted in turn 1's assault phase, counts as it ends */
    set(&g, 2, "shooting", "british");
    c = tr_find(g.ev, "casualties", "4e");
    assert_non_null(c);
    assert_int_equal(json_integer_value(json_object_get(c, "lost")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "since_turn_start")), 2);
    /* turn 2: the 4e lose the two it began the turn with */
    lift(&g, "f3");
    lift(&g, "f4");
    next(&g);
    ev = next(&g);
    m = tr_find(ev, "morale", "4e");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "result")), "disorientated");
    const json_t *mods = json_object_get(json_object_get(m, "test"), "modifiers");
    assert_int_equal(json_array_size(mods), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(mods, 0), "value")), -1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(mods, 0), "reason")), "below half strength");
    finish(&g);
}

/* Into the Breach!: grenadiers of 7 and an officer, a French line of 4. */
#define ITB_FIG(id, side, unit, type, x, y)                                                                            \
    "{\"id\": \"" id "\", \"side\": \"" side "\", \"unit\": \"" unit "\", \"type\": \"" type "\", \"x\": " #x        \
    ", \"y\": " #y ", \"facing_deg\": 0}"
#define ITB_FIGS                                                                                                       \
    "[" ITB_FIG("g1", "british", "grenadiers", "foot", 10, 10) "," ITB_FIG("g2", "british", "grenadiers", "foot", 10,  \
                                                                          14) "," ITB_FIG("g3", "british",           \
                                                                                          "grenadiers", "foot", 10, \
                                                                                          18) ","                    \
    ITB_FIG("g4", "british", "grenadiers", "foot", 10, 22) "," ITB_FIG("g5", "british", "grenadiers", "foot", 10,      \
                                                                      26) "," ITB_FIG("g6", "british", "grenadiers", \
                                                                                      "foot", 10, 30) ","            \
    ITB_FIG("g7", "british", "grenadiers", "foot", 10, 34) "," ITB_FIG("go", "british", "grenadiers", "officer", 10,   \
                                                                      38) "," ITB_FIG("l1", "french", "line",        \
                                                                                      "foot", 50, 10) ","            \
    ITB_FIG("l2", "french", "line", "foot", 50, 14) "," ITB_FIG("l3", "french", "line", "foot", 50, 18) ","            \
    ITB_FIG("l4", "french", "line", "foot", 50, 22) "]"

/* Into the Breach! (L63-70): the sides alternate actions; morale when all
 * have acted; then another turn.  Dice moves (L74: 1d6+3): within the
 * lowest roll fair, past the highest over, between the roll needed; one
 * action a figure a turn (L65). */
static void test_itb_turn_and_moves(void **state)
{
    (void)state;
    game g = start("into-the-breach", "[]", ITB_FIGS);
    set(&g, 1, "actions", "british");
    assert_at(&g, 1, "actions", "british");
    const json_t *e = tr_find(settle(&g, "g1", 13.5, 10, 0), "move_check", "g1");
    assert_non_null(e);
    assert_true(json_is_true(json_object_get(e, "ok"))); /* 3.5 <= 4, the least of 1d6+3 */
    next(&g), assert_at(&g, 1, "actions", "french");
    next(&g), assert_at(&g, 1, "actions", "british");
    e = tr_find(settle(&g, "g2", 16, 14, 0), "move_check", "g2");
    assert_non_null(e);
    assert_true(json_is_null(json_object_get(e, "ok")));
    assert_true(json_is_null(json_object_get(e, "allowed_in")));
    assert_int_equal(json_integer_value(json_object_get(e, "needs_roll")), 3);
    assert_true(json_number_value(json_array_get(json_object_get(e, "allowed_range_in"), 0)) == 4.0);
    assert_true(json_number_value(json_array_get(json_object_get(e, "allowed_range_in"), 1)) == 9.0);
    e = tr_find(settle(&g, "g3", 20, 18, 0), "move_check", "g3");
    assert_true(json_is_false(json_object_get(e, "ok"))); /* 10 > 9 */
    /* g1 acted in the first activation: a second move this turn */
    e = tr_find(settle(&g, "g1", 15, 10, 0), "out_of_turn", "g1");
    assert_non_null(e);
    assert_non_null(strstr(json_string_value(json_object_get(e, "rule")), "into-the-breach.txt L65"));
    set(&g, 0, "morale", NULL);
    assert_at(&g, 1, "morale", NULL);
    e = tr_find(settle(&g, "g4", 12, 22, 0), "out_of_turn", "g4");
    assert_non_null(e);
    next(&g), assert_at(&g, 2, "actions", "british");
    /* a new turn: g1 may act again */
    assert_non_null(tr_find(settle(&g, "g1", 17, 10, 0), "move_check", "g1"));
    finish(&g);
}

static const json_t *test_of(const json_t *m) { return json_object_get(m, "test"); }

/* Into the Breach! (L8-16): 25% lost 2d6 6+, 50% 8+, each later turn with
 * losses 10+; +1 officer with the unit, +1 grenadiers; breastworks asked. */
static void test_itb_morale(void **state)
{
    (void)state;
    game g = start("into-the-breach", "[]", ITB_FIGS);
    set(&g, 1, "actions", "french");
    lift(&g, "g1");
    next(&g);
    lift(&g, "l1");
    const json_t *ev = set(&g, 0, "morale", NULL);
    assert_int_equal(tr_count(ev, "morale"), 1); /* g: 1 of 8 is under 25%; l: 1 of 4 is 25% */
    const json_t *m = tr_find(ev, "morale", "line");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(test_of(m), "dice")), "2d6");
    assert_int_equal(json_integer_value(json_object_get(test_of(m), "needs")), 6);
    assert_int_equal(json_array_size(json_object_get(test_of(m), "modifiers")), 0);
    assert_non_null(strstr(json_string_value(json_object_get(m, "rule")), "into-the-breach.txt L8-16"));
    next(&g); /* turn 2 */
    lift(&g, "g2");
    ev = set(&g, 0, "morale", NULL);
    m = tr_find(ev, "morale", "grenadiers");
    assert_non_null(m);
    assert_int_equal(json_integer_value(json_object_get(test_of(m), "needs")), 6); /* 2 of 8 */
    const json_t *mods = json_object_get(test_of(m), "modifiers");
    assert_int_equal(json_array_size(mods), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(mods, 0), "reason")), "officer with unit");
    assert_string_equal(json_string_value(json_object_get(json_array_get(mods, 1), "reason")), "unit is grenadiers");
    const json_t *ask = json_object_get(test_of(m), "ask");
    assert_int_equal(json_array_size(ask), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(ask, 0), "reason")),
                        "unit is defending breastworks");
    assert_null(tr_find(ev, "morale", "line")); /* no loss this turn, no new threshold */
    next(&g); /* turn 3: the officer and another fall: 4 of 8 */
    lift(&g, "g3");
    lift(&g, "go");
    ev = set(&g, 0, "morale", NULL);
    m = tr_find(ev, "morale", "grenadiers");
    assert_int_equal(json_integer_value(json_object_get(test_of(m), "needs")), 8);
    assert_int_equal(json_array_size(json_object_get(test_of(m), "modifiers")), 1); /* no officer now */
    next(&g); /* turn 4: no losses, no test */
    ev = set(&g, 0, "morale", NULL);
    assert_null(tr_find(ev, "morale", "grenadiers"));
    next(&g); /* turn 5: one more */
    lift(&g, "g4");
    ev = set(&g, 0, "morale", NULL);
    m = tr_find(ev, "morale", "grenadiers");
    assert_non_null(m);
    assert_int_equal(json_integer_value(json_object_get(test_of(m), "needs")), 10);
    finish(&g);
}

/* All the King's Men: a unit of six foot, an officer and an ensign. */
#define ATKM_FIGS                                                                                                      \
    "[" ITB_FIG("r1", "red", "fus", "foot", 10, 10) "," ITB_FIG("r2", "red", "fus", "foot", 10, 12) ","                \
    ITB_FIG("r3", "red", "fus", "foot", 10, 14) "," ITB_FIG("r4", "red", "fus", "foot", 10, 16) ","                    \
    ITB_FIG("r5", "red", "fus", "foot", 10, 18) "," ITB_FIG("r6", "red", "fus", "foot", 10, 20) ","                    \
    ITB_FIG("ro", "red", "fus", "officer", 12, 10) "," ITB_FIG("re", "red", "fus", "ensign", 12, 12) ","               \
    ITB_FIG("x1", "blue", "ligne", "foot", 50, 10) "]"

/* All the King's Men: casualties downgrade resolve (L533); reduced to its
 * chart's number (infantry 4, L693-703, officers and ensigns not counted)
 * the unit collapses (L691). */
static void test_atkm_calls(void **state)
{
    (void)state;
    game g = start("all-the-kings-men", "[]", ATKM_FIGS);
    set(&g, 1, "activations", "blue");
    lift(&g, "r1");
    const json_t *ev = next(&g);
    assert_at(&g, 1, "activations", "red");
    const json_t *c = tr_find(ev, "casualties", "fus");
    assert_int_equal(json_integer_value(json_object_get(c, "lost")), 1);
    assert_int_equal(json_integer_value(json_object_get(c, "of")), 8);
    const json_t *m = tr_find(ev, "morale", "fus");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "call")), "resolve");
    assert_true(json_is_null(json_object_get(m, "test")));
    assert_non_null(strstr(json_string_value(json_object_get(m, "result")), "downgrades one colour"));
    assert_non_null(strstr(json_string_value(json_object_get(m, "rule")), "L533"));
    next(&g);
    lift(&g, "ro"); /* the officer is not counted */
    ev = next(&g);
    assert_int_equal(tr_count(ev, "morale"), 1); /* resolve only: 5 privates left */
    lift(&g, "r2");
    ev = next(&g);
    assert_int_equal(tr_count(ev, "morale"), 2);
    const json_t *col = NULL;
    for (size_t i = 0; i < json_array_size(ev); i++)
        if (json_string_value(json_object_get(json_array_get(ev, i), "call")) &&
            !strcmp(json_string_value(json_object_get(json_array_get(ev, i), "call")), "collapse"))
            col = json_array_get(ev, i);
    assert_non_null(col);
    assert_non_null(strstr(json_string_value(json_object_get(col, "result")), "collapses"));
    assert_non_null(strstr(json_string_value(json_object_get(col, "rule")), "all-the-kings-men.md L691"));
    finish(&g);
}

/* Fixed Bay'net: a unit at 50% or less takes a GL test (L161-188). */
static void test_fb_glory(void **state)
{
    (void)state;
    game g = start("fixed-bayonet",
                   "[]", "[" ITB_FIG("z1", "zulu", "umcijo", "native", 10, 10) "," ITB_FIG(
                             "z2", "zulu", "umcijo", "native", 10, 14) "," ITB_FIG("z3", "zulu", "umcijo", "native",
                                                                                   10, 18) "," ITB_FIG("z4", "zulu",
                                                                                                       "umcijo",
                                                                                                       "native", 10,
                                                                                                       22) ","
                                                                                   ITB_FIG("e1", "british", "24th",
                                                                                           "european", 50, 10) "]");
    set(&g, 1, "actions", "british");
    lift(&g, "z1");
    next(&g);
    const json_t *ev = set(&g, 0, "glory", NULL);
    assert_null(tr_find(ev, "morale", "umcijo")); /* 1 of 4 */
    next(&g);
    lift(&g, "z2");
    ev = set(&g, 0, "glory", NULL);
    const json_t *m = tr_find(ev, "morale", "umcijo");
    assert_non_null(m);
    assert_string_equal(json_string_value(json_object_get(m, "call")), "glory");
    assert_true(json_is_null(json_object_get(test_of(m), "needs")));
    assert_non_null(strstr(json_string_value(json_object_get(test_of(m), "needs_note")), "GL"));
    assert_non_null(strstr(json_string_value(json_object_get(m, "rule")), "fixed-bayonet.txt L161-168"));
    finish(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trl_order),        cmocka_unit_test(test_bad_phase_and_side),
        cmocka_unit_test(test_peek_next),
        cmocka_unit_test(test_trl_moves),        cmocka_unit_test(test_trl_too_close),
        cmocka_unit_test(test_trl_terrain),
        cmocka_unit_test(test_trl_out_of_turn),  cmocka_unit_test(test_trl_charge),
        cmocka_unit_test(test_trl_casualties),   cmocka_unit_test(test_itb_turn_and_moves),
        cmocka_unit_test(test_itb_morale),       cmocka_unit_test(test_atkm_calls),
        cmocka_unit_test(test_fb_glory),
    };
    int failed = cmocka_run_group_tests_name("referee", tests, NULL, NULL);
    return failed | referee_book_tests();
}
