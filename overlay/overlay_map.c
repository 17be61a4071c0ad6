/* overlay_map.c - mappers: table inches -> projector pixels (projector.json)
 * or camera pixels (camera + pose, with lens distortion). */
#include "overlay.h"
#include "overlay_internal.h"

#include <math.h>

static void map__projector(const void *user, const double *xy, int n, double *px)
{
    calib_projector_map(user, xy, n, px);
}

void overlay_mapper_projector(overlay_mapper *m, const calib_projector *pj)
{
    m->map = map__projector;
    m->user = pj;
    calib_projector_size(pj, &m->width, &m->height);
}

int overlay__mapper_straight(const overlay_mapper *m)
{
    return m->map == map__projector && !calib_projector_has_grid(m->user);
}

static void map__camera(const void *user, const double *xy, int n, double *px)
{
    const overlay_camera_map *cm = user;
    /* points behind the camera or far outside its view come back unusable */
    if (calib_project(cm->cam, &cm->pose, xy, n, 0.0, px, NULL) != TT_OK)
        for (int i = 0; i < 2 * n; i++)
            px[i] = NAN;
}

void overlay_mapper_camera(overlay_mapper *m, overlay_camera_map *state, const cvw_camera *cam,
                           const calib_pose *pose)
{
    state->cam = cam;
    state->pose = *pose;
    m->map = map__camera;
    m->user = state;
    m->width = cam->width;
    m->height = cam->height;
}
