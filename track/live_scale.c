/* live_scale.c - see live_scale.h. */
#include "live_scale.h"

#include <string.h>

#include "scale.h"

void track_live_scale_init(track_live_scale *s)
{
    memset(s, 0, sizeof *s);
}

static tt_status live__scale(track_live_scale *s, const calib_rig *rig, const calib_pose *pose, int solves,
                             vision_tracker *trk, int width, int height, int *search_again, tt_err *err)
{
    if (search_again)
        *search_again = 0;
    if (!pose || solves == s->solves)
        return TT_OK;
    s->solves = solves;
    tt_status st = calib_fine_rect(rig, pose, width, height, s->rect, err);
    if (st != TT_OK)
        return st;
    if ((st = vision_tracker_set_fine(trk, s->rect, s->rect[2] > 0 ? 1 : 0, err)) != TT_OK)
        return st;
    if (search_again)
        *search_again = s->rect[2] > 0;
    return TT_OK;
}

tt_status track_live_scale_update(track_live_scale *s, const calib_rig *rig, const track_live *live,
                                  vision_tracker *trk, int width, int height, int *search_again, tt_err *err)
{
    return live__scale(s, rig, track_live_pose(live), track_live_pose_solves(live), trk, width, height,
                       search_again, err);
}

tt_status track_live_scale_update_cam(track_live_scale *s, const track_live *live, int k, vision_tracker *trk,
                                      int width, int height, int *search_again, tt_err *err)
{
    return live__scale(s, track_live_view(live, k), track_live_pose_cam(live, k), track_live_pose_solves_cam(live, k),
                       trk, width, height, search_again, err);
}
