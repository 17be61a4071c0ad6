/* fuzz_query.c - libFuzzer target: one query line against a fixed
 * scenario (samples/scenarios/into-the-breach-farm.json). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rules_scenario *sc;
    static const char *const dirs[] = {TT_SOURCE_DIR, NULL};
    if (!sc) {
        tt_err err = {0};
        if (rules_scenario_load(TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json", dirs, &sc, &err))
            abort();
    }
    char *line = malloc(size + 1);
    if (!line)
        return 0;
    memcpy(line, data, size);
    line[size] = '\0';
    free(rules_query_line(sc, line));
    free(line);
    return 0;
}
