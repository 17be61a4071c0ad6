/* rec_fixture.c - the recorded test game (see rec_fixture.h). */
#include "rec_fixture.h"

#include <math.h>
#include <stdio.h>

const char fixture_scenario_json[] =
    "{\"ruleset\":\"into-the-breach\",\"table\":{\"width_in\":72,\"depth_in\":48},"
    "\"terrain\":[{\"id\":\"house\",\"kind\":\"building\",\"polygon\":[[30,20],[36,20],[36,26],[30,26]]},"
    "{\"id\":\"wall\",\"kind\":\"wall\",\"line\":[[24,34],[24,42]]},"
    "{\"id\":\"copse\",\"kind\":\"woods\",\"polygon\":[[50,36],[56,35],[57,42],[51,43]]}],"
    "\"figures\":["
    "{\"id\":\"gun\",\"side\":\"british\",\"type\":\"artillery\",\"weapon\":\"artillery\",\"x\":10,\"y\":24,"
    "\"facing_deg\":0,\"base\":{\"rect_in\":[2,1.5]}},"
    "{\"id\":\"crew\",\"side\":\"british\",\"x\":8,\"y\":24,\"facing_deg\":0},"
    "{\"id\":\"m1\",\"side\":\"british\",\"unit\":\"line\",\"weapon\":\"musket\",\"x\":12,\"y\":30,\"facing_deg\":0},"
    "{\"id\":\"m2\",\"side\":\"british\",\"unit\":\"line\",\"weapon\":\"musket\",\"x\":12,\"y\":32,\"facing_deg\":0},"
    "{\"id\":\"f1\",\"side\":\"french\",\"weapon\":\"musket\",\"x\":50,\"y\":24,\"facing_deg\":180},"
    "{\"id\":\"f2\",\"side\":\"french\",\"weapon\":\"musket\",\"x\":50,\"y\":20,\"facing_deg\":180},"
    "{\"id\":\"f3\",\"side\":\"french\",\"weapon\":\"musket\",\"x\":52,\"y\":28,\"facing_deg\":180},"
    "{\"id\":\"mortar\",\"side\":\"french\",\"weapon\":\"mortar\",\"x\":60,\"y\":10,\"facing_deg\":180}],"
    "\"tags\":{\"1\":\"gun\",\"2\":\"crew\",\"10\":\"m1\",\"11\":\"m2\",\"20\":\"f1\",\"21\":\"f2\",\"22\":\"f3\","
    "\"24\":\"mortar\"}}";

const char fixture_rig_json[] = "{\"table\":{\"width_in\":72,\"depth_in\":48},\"camera\":\"camera.yaml\"}";

static const struct {
    int tag;
    double x, y, facing;
} fix_start[] = {{1, 10, 24, 0},  {2, 8, 24, 0},    {10, 12, 30, 0},  {11, 12, 32, 0},
                 {20, 50, 24, 180}, {21, 50, 20, 180}, {22, 52, 28, 180}, {24, 60, 10, 180},
                 {99, 36, 44, 90}}; /* tag 99 is not in the scenario */

static double fix_lerp(double a, double b, long long t, long long t0, long long t1)
{
    if (t <= t0)
        return a;
    if (t >= t1)
        return b;
    return a + (b - a) * (double)(t - t0) / (double)(t1 - t0);
}

int fixture_pose(int tag, long long t, double *x, double *y, double *facing, rec_state *state)
{
    for (size_t i = 0; i < sizeof fix_start / sizeof fix_start[0]; i++) {
        if (fix_start[i].tag != tag)
            continue;
        double px = fix_start[i].x, py = fix_start[i].y, pf = fix_start[i].facing;
        rec_state st = REC_SEEN;
        if (tag == 10) /* m1 marches 8" right from 2 s to 6 s */
            px = fix_lerp(12, 20, t, 2000, 6000);
        if (tag == 11 && t >= 5000 && t < 7000) /* a hand over m2 */
            st = REC_OCCLUDED;
        if (tag == 20) { /* f1 advances 10" left and wheels, 8 s to 12 s */
            px = fix_lerp(50, 40, t, 8000, 12000);
            pf = fix_lerp(180, 160, t, 8000, 12000);
        }
        if (tag == 1) /* the gun pivots 20 degrees at 8.5 s */
            pf = fix_lerp(0, 20, t, 8000, 8500);
        if (tag == 22 && t >= 15000) /* f3 is taken off the table */
            return 0;
        if (tag == 99 && t < 3000) /* an unknown tag appears at 3 s */
            return 0;
        if (x)
            *x = px;
        if (y)
            *y = py;
        if (facing)
            *facing = pf;
        if (state)
            *state = st;
        return 1;
    }
    return 0;
}

/* Camera noise well below the change thresholds (0.02", 1 degree). */
static double fix_jitter(long frame, int tag, int k)
{
    unsigned h = (unsigned)frame * 2654435761u ^ (unsigned)tag * 40503u ^ (unsigned)k * 97u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return ((double)(h % 2001) / 1000.0 - 1.0); /* -1 .. 1 */
}

/* With heights: f1 and f2 (tags 20, 21) climb onto a 1.5" hill at 5 s. */
static double fix_z(int tag, long long t_ms)
{
    return (tag == 20 || tag == 21) && t_ms >= 5000 ? 1.5 : 0;
}

static tt_status fixture__record(const char *path, rec_mode mode, int heights, tt_err *err)
{
    rec *r = NULL;
    tt_status s = rec_open(path, mode, &r, err);
    if (s != TT_OK)
        return s;
    rec_meta meta = {"frames/*.png", "test fixture"};
    if ((s = rec_session_begin(r, fixture_rig_json, fixture_scenario_json, &meta, err)) != TT_OK)
        goto done;
    const size_t nstart = sizeof fix_start / sizeof fix_start[0];
    for (long fr = 0; fr < FIX_FRAMES; fr++) {
        long long t = (long long)fr * FIX_DT_MS;
        rec_figure figs[16];
        size_t n = 0;
        for (size_t i = 0; i < nstart; i++) {
            double x, y, f;
            rec_state st;
            int tag = fix_start[i].tag;
            if (!fixture_pose(tag, t, &x, &y, &f, &st))
                continue;
            figs[n] = (rec_figure){"tag36h11", tag, x + 0.004 * fix_jitter(fr, tag, 0),
                                   y + 0.004 * fix_jitter(fr, tag, 1), f + 0.3 * fix_jitter(fr, tag, 2), st,
                                   heights ? fix_z(tag, t) : 0, 0, 0, 0};
            if (heights && t == 5000 && fix_z(tag, t) > 0) {
                double to[2] = {figs[n].x, figs[n].y};
                if ((s = rec_event_height(r, fr, t, "tag36h11", tag, to, fix_z(tag, t), err)) != TT_OK)
                    goto done;
            }
            n++;
        }
        if ((s = rec_frame(r, fr, t, figs, n, err)) != TT_OK)
            goto done;
        if (fr == 0)
            for (size_t i = 0; i < n; i++) {
                double to[2] = {figs[i].x, figs[i].y};
                if ((s = rec_event(r, fr, t, REC_EV_APPEARED, "tag36h11", figs[i].id, NULL, to, err)) != TT_OK)
                    goto done;
            }
        if (t == 6500) {
            double a[2] = {12, 30}, b[2] = {20, 30};
            s = rec_event(r, fr, t, REC_EV_MOVED, "tag36h11", 10, a, b, err);
        } else if (t == 12500) {
            double a[2] = {50, 24}, b[2] = {40, 24};
            s = rec_event(r, fr, t, REC_EV_MOVED, "tag36h11", 20, a, b, err);
        } else if (t == 15500) {
            double a[2] = {52, 28};
            s = rec_event(r, fr, t, REC_EV_REMOVED, "tag36h11", 22, a, NULL, err);
        } else if (t == 4000) {
            s = rec_query(r, fr, t, "{\"q\":\"los\",\"from\":\"m1\",\"to\":\"f2\"}",
                          "{\"visible\":false,\"blocked_by\":\"house\"}", err);
        } else if (t == 9000) {
            s = rec_query(r, fr, t, "{\"q\":\"grape\",\"from\":\"gun\"}", "{\"to_hit\":4,\"targets\":[]}", err);
        } else if (t == 13000) {
            s = rec_query(r, fr, t, "{\"q\":\"blast\",\"at\":[40,20],\"weapon\":\"grenade\"}",
                          "{\"to_hit\":3,\"hit\":[]}", err);
        } else if (t == 14000) {
            s = rec_query(r, fr, t, "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}",
                          "{\"distance_in\":19.0,\"bracket\":\"out\",\"visible\":true,\"cover\":\"none\","
                          "\"to_hit\":null}", err);
        }
        if (s != TT_OK)
            goto done;
    }
done:
    if (s != TT_OK) {
        rec_close(r, NULL);
        return s;
    }
    return rec_close(r, err);
}

tt_status fixture_record(const char *path, rec_mode mode, tt_err *err)
{
    return fixture__record(path, mode, 0, err);
}

tt_status fixture_record_heights(const char *path, rec_mode mode, tt_err *err)
{
    return fixture__record(path, mode, 1, err);
}

tt_status fixture_record_shots(const char *path, tt_err *err)
{
    rec *r = NULL;
    rec_meta meta = {"frames/*.png", "test fixture: shots"};
    /* m1 (12,30), m2 (12,32) (the unit "line"), f1 (22,24), f2 (50,20), the mortar (60,10) */
    const rec_figure figs[] = {{"tag36h11", 10, 12, 30, 0, REC_SEEN, 0, 0, 0, 0},
                               {"tag36h11", 11, 12, 32, 0, REC_SEEN, 0, 0, 0, 0},
                               {"tag36h11", 20, 22, 24, 180, REC_SEEN, 0, 0, 0, 0},
                               {"tag36h11", 21, 50, 20, 180, REC_SEEN, 0, 0, 0, 0},
                               {"tag36h11", 24, 60, 10, 180, REC_SEEN, 0, 0, 0, 0}};
    /* the answers as 'tabletrack rules' gives them (the replay asks again
     * and draws only an answer that comes out the same) */
    static const char *const qa[3][2] = {
        {"{\"q\":\"deviate\",\"from\":\"mortar\",\"at\":[45,20],\"dice\":{\"long_short\":6,\"long_short_in\":3,"
         "\"left_right\":1,\"left_right_in\":2}}",
         "{\"impact\":[43.61,23.33],\"hit\":[],\"went_off\":true,\"radius_in\":2.0,\"to_hit\":3,\"rule\":\"x\"}"},
        {"{\"q\":\"charge\",\"from\":\"m1\",\"to\":\"f2\",\"roll\":3}",
         "{\"charger\":\"m1\",\"target\":\"f2\",\"path\":[[12.0,30.0],[49.03,20.25]],\"distance_in\":38.29,"
         "\"allowed_in\":0.0,\"ok\":false,\"crossed\":[\"house\"]}"},
        {"{\"q\":\"fire\",\"from\":\"line\",\"to\":\"f1\"}",
         "{\"distance_in\":10.66,\"bracket\":\"long\",\"visible\":true,\"to_hit\":6,\"dice\":null,\"firers\":[\"m1\","
         "\"m2\"],\"targets\":[\"f1\"],\"shots\":[{\"from\":\"m1\",\"to\":\"f1\",\"bracket\":\"long\"},{\"from\":\"m2\","
         "\"to\":\"f1\",\"bracket\":\"long\"}]}"}};
    tt_status s = rec_open(path, REC_CREATE_NEW, &r, err);
    if (s != TT_OK)
        return s;
    s = rec_session_begin(r, fixture_rig_json, fixture_scenario_json, &meta, err);
    for (long fr = 0; fr < 3 && s == TT_OK; fr++)
        s = rec_frame(r, fr, fr * 500, figs, sizeof figs / sizeof figs[0], err);
    for (int k = 0; k < 3 && s == TT_OK; k++)
        s = rec_query(r, 1, 500, qa[k][0], qa[k][1], err);
    tt_status c = rec_close(r, s == TT_OK ? err : NULL);
    return s != TT_OK ? s : c;
}
