/* overlay_map.c - mappers: table inches -> projector pixels (projector.json)
 * or camera pixels (camera + pose, with lens distortion). */
#include "overlay.h"
#include "overlay_internal.h"

#include <math.h>
#include <string.h>

static void map__projector(const void *user, const double *xy, int n, double *px)
{
    calib_projector_map(user, xy, n, px);
}

void overlay_mapper_projector(overlay_mapper *m, const calib_projector *pj)
{
    memset(m, 0, sizeof *m);
    m->map = map__projector;
    m->user = pj;
    calib_projector_size(pj, &m->width, &m->height);
}

static void map__projector3(const void *user, const double *xyz, int n, double *px)
{
    const overlay_projector_map *st = user;
    calib_projector_map3(st->pj, xyz, n, px);
}

void overlay__map_on_ground(const tt_ground *g, void (*map3)(const void *user, const double *xyz, int n, double *px),
                            const void *map_user, const double *xy, int n, double *px)
{
    double xyz[3 * 64];
    for (int i = 0; i < n; i += 64) {
        int k = n - i < 64 ? n - i : 64;
        for (int j = 0; j < k; j++) {
            double x = xy[2 * (i + j)], y = xy[2 * (i + j) + 1];
            xyz[3 * j] = x;
            xyz[3 * j + 1] = y;
            xyz[3 * j + 2] = tt_ground_height(g, x, y);
        }
        map3(map_user, xyz, k, px + 2 * i);
    }
}

/* Each point at the ground's height under it. */
static void map__projector_ground(const void *user, const double *xy, int n, double *px)
{
    const overlay_projector_map *st = user;
    overlay__map_on_ground(&st->ground, map__projector3, st, xy, n, px);
}

void overlay_mapper_projector_ground(overlay_mapper *m, overlay_projector_map *state, const calib_projector *pj,
                                     const tt_ground *ground)
{
    overlay_mapper_projector(m, pj);
    if (!ground || !ground->height_at || !calib_projector_is_3d(pj))
        return;
    state->pj = pj;
    state->ground = *ground;
    m->map = map__projector_ground;
    m->map3 = map__projector3;
    m->user = state;
    m->ground = *ground;
}

int overlay__mapper_straight(const overlay_mapper *m)
{
    if (m->map == map__projector_ground)
        return !calib_projector_has_grid(((const overlay_projector_map *)m->user)->pj);
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

/* Points with heights (n*3), each run of one height projected at once (the
 * ground is flat in pieces: a hill's top, the felt). */
static void map__camera3(const void *user, const double *xyz, int n, double *px)
{
    const overlay_camera_map *cm = user;
    double xy[2 * 64];
    for (int i = 0; i < n;) {
        double z = xyz[3 * i + 2];
        int k = 0;
        while (i + k < n && k < 64 && xyz[3 * (i + k) + 2] == z) {
            xy[2 * k] = xyz[3 * (i + k)];
            xy[2 * k + 1] = xyz[3 * (i + k) + 1];
            k++;
        }
        if (!isfinite(z) || calib_project(cm->cam, &cm->pose, xy, k, z, px + 2 * i, NULL) != TT_OK)
            for (int j = 0; j < 2 * k; j++)
                px[2 * i + j] = NAN;
        i += k;
    }
}

/* Each point at the ground's height under it. */
static void map__camera_ground(const void *user, const double *xy, int n, double *px)
{
    const overlay_camera_map *cm = user;
    overlay__map_on_ground(&cm->ground, map__camera3, cm, xy, n, px);
}

void overlay_mapper_camera(overlay_mapper *m, overlay_camera_map *state, const cvw_camera *cam,
                           const calib_pose *pose)
{
    overlay_mapper_camera_ground(m, state, cam, pose, NULL);
}

void overlay_mapper_camera_ground(overlay_mapper *m, overlay_camera_map *state, const cvw_camera *cam,
                                  const calib_pose *pose, const tt_ground *ground)
{
    memset(m, 0, sizeof *m);
    state->cam = cam;
    state->pose = *pose;
    state->ground = ground ? *ground : (tt_ground){0};
    m->map = map__camera;
    m->user = state;
    m->width = cam->width;
    m->height = cam->height;
    if (!ground || !ground->height_at)
        return;
    m->map = map__camera_ground;
    m->map3 = map__camera3;
    m->ground = *ground;
}
