/* fuzz_scenario.c - libFuzzer target: scenario text -> load -> a few
 * queries.  Build with clang (tests/rules/CMakeLists.txt), run e.g.
 *   ./fuzz_rules_scenario -max_total_time=60 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "tt_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const dirs[] = {TT_SOURCE_DIR, NULL};
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    json_t *j = NULL;
    rules_scenario *sc = NULL;
    tt_err err = {0};
    if (tt_json_parse(text, "fuzz", &j, &err) == TT_OK &&
        rules_scenario_from_json(j, "fuzz", NULL, dirs, &sc, &err) == TT_OK) {
        size_t n = rules_scenario_figure_count(sc);
        const json_t *figs = json_object_get(j, "figures");
        for (size_t i = 0; i < n && i < 4; i++) {
            const char *a = rules_scenario_figure_id(sc, i), *b = rules_scenario_figure_id(sc, (i + 1) % n);
            const json_t *fa = json_array_get(figs, i), *fb = json_array_get(figs, (i + 1) % n);
            const char *ua = json_string_value(json_object_get(fa, "unit")), *ub = json_string_value(json_object_get(fb, "unit"));
            rules_point to = {json_number_value(json_object_get(fb, "x")), json_number_value(json_object_get(fb, "y"))};
            rules_result r;
            /* unit fire (bonus dice, the defender's roll) and a move towards the next figure */
            if (ua && ub && rules_fire(sc, ua, ub, NULL, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_move(sc, a, to, -1, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_fire(sc, a, b, NULL, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_visibility(sc, a, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_grape(sc, a, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_ball(sc, a, b, NULL, &r, &err) == TT_OK)
                rules_result_free(&r);
            /* a shot aimed at the next figure's place: every kind of
             * deviation's dice, and a kind of ammunition */
            static const char *const dev[] = {
                "{\"long_short\": 6, \"long_short_in\": 2, \"left_right\": 1, \"left_right_in\": 3}",
                "{\"clock\": 3, \"distance\": 2}", "{\"explodes\": 4}"};
            for (int k = 0; k < 3; k++) {
                json_t *dq = json_pack("{s:s, s:s, s:[f,f], s:s, s:o}", "q", "deviate", "from", a, "at", to.x, to.y,
                                       "ammo", "shot", "dice", json_loads(dev[k], 0, NULL)),
                       *dans = NULL;
                if (dq && k < 2)
                    json_object_del(dq, "ammo");
                if (dq && rules_query_json(sc, dq, &dans, &err) == TT_OK)
                    json_decref(dans);
                if (dq && k == 1) { /* again with a kind of ammunition */
                    json_object_set_new(dq, "ammo", json_string("shell"));
                    if (rules_query_json(sc, dq, &dans, &err) == TT_OK)
                        json_decref(dans);
                }
                json_decref(dq);
            }
            if (rules_los(sc, a, b, &r, &err) == TT_OK)
                rules_result_free(&r);
            if (rules_charge(sc, a, b, 3, &r, &err) == TT_OK)
                rules_result_free(&r);
            /* a revealed target (hidden troops, where the ruleset has them) */
            json_t *q = json_pack("{s:s, s:s, s:s, s:b}", "q", i % 2 ? "fire" : "los", "from", a, "to", b,
                                  "target_revealed", 1), *ans = NULL;
            if (q && rules_query_json(sc, q, &ans, &err) == TT_OK)
                json_decref(ans);
            json_decref(q);
        }
    }
    rules_scenario_destroy(sc);
    json_decref(j);
    free(text);
    return 0;
}
