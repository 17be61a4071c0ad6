/* test_referee_util.h - scenarios and event lookups for the referee tests. */
#ifndef TT_TEST_REFEREE_UTIL_H
#define TT_TEST_REFEREE_UTIL_H

#include <jansson.h>

#include "referee.h"
#include "rules.h"

/* A scenario of `ruleset` on a 72x48 table with the terrain and figures
 * given as JSON array texts; fails the test if it does not load. */
rules_scenario *tr_scenario(const char *ruleset, const char *terrain, const char *figures);
/* A referee for sc, every figure seen where the scenario stands it. */
referee *tr_referee(rules_scenario *sc, const char *figures);
/* The first event of `name` in events (for figure or unit `who` when not
 * NULL), or NULL. */
const json_t *tr_find(const json_t *events, const char *name, const char *who);
/* How many events of `name` there are. */
size_t tr_count(const json_t *events, const char *name);
/* events as one line, for messages. */
void tr_dump(const char *what, const json_t *events);

#endif
