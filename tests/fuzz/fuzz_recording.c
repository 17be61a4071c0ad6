/* fuzz_recording.c - libFuzzer harness: bytes as a recording file ->
 * rec_game_load (header checks, SQLite, the schema, every row) -> the
 * game as JSON Lines and as the replay page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = fuzz_file("game.sqlite", data, size);
    if (!p)
        return 0;
    char path[128];
    snprintf(path, sizeof path, "%s", p);
    rec_game *g = NULL;
    tt_err err = {0};
    if (rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err) == TT_OK) {
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            rec_game_write_json(g, devnull, &err);
            fclose(devnull);
        }
        char html[140];
        snprintf(html, sizeof html, "%s/page.html", fuzz_dir());
        rec_game_write_html(g, html, &err);
    }
    rec_game_destroy(g);
    return 0;
}
