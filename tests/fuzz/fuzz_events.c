/* fuzz_events.c - libFuzzer harness for the JSON a recording stores: the
 * input's lines are the rig, the scenario (its "tags" and "figures" name
 * the figures), then query / answer pairs.  They go through the recorder
 * (rec_session_begin, rec_frame, rec_event, rec_query) and back out through
 * the replay reader (rec_game_load, JSON Lines). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "rec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *lines[16] = {0};
    int n = 0;
    for (char *s = text; s && n < 16; n++) {
        lines[n] = s;
        s = strchr(s, '\n');
        if (s)
            *s++ = '\0';
    }
    char path[128], wal[140], shm[140];
    snprintf(path, sizeof path, "%s/game.sqlite", fuzz_dir());
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    unlink(path);
    rec *r = NULL;
    tt_err err = {0};
    int began = rec_open(path, REC_CREATE_NEW, &r, &err) == TT_OK &&
                rec_session_begin(r, n > 0 ? lines[0] : NULL, n > 1 ? lines[1] : NULL, NULL, &err) == TT_OK;
    if (began) {
        rec_figure f = {"tag36h11", 1, 10, 10, 0, REC_SEEN, 0, 0, 0, 0};
        double from[2] = {10, 10}, to[2] = {12, 11};
        rec_frame(r, 0, 0, &f, 1, &err);
        f.x = 12;
        f.y = 11;
        rec_frame(r, 1, 40, &f, 1, &err);
        rec_event(r, 1, 40, REC_EV_MOVED, "tag36h11", 1, from, to, &err);
        for (int i = 2; i + 1 < n; i += 2)
            rec_query(r, 1, 40 + i, lines[i], lines[i + 1], &err);
    }
    if (rec_close(r, &err) == TT_OK && began) {
        rec_game *g = NULL;
        if (rec_game_load(path, 0, REC_TIME_UNSET, REC_TIME_UNSET, &g, &err) != TT_OK)
            abort(); /* what the recorder accepted, the reader must read */
        FILE *devnull = fopen("/dev/null", "w");
        if (devnull) {
            rec_game_write_json(g, devnull, &err);
            fclose(devnull);
        }
        rec_game_destroy(g);
    }
    unlink(path);
    unlink(wal);
    unlink(shm);
    free(text);
    return 0;
}
