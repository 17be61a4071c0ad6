/* render_terrain.c - the renderer's raised terrain: the ground's height and
 * gradient under a point, tags stood on it (tilted on a slope), and a
 * tilted tag's axes and corners.
 *
 * Heights here are "up" (height above the felt); the renderer's 3D frame
 * has z = -height (render.h). */
#include "render_internal.h"

#include <math.h>
#include <string.h>

int rnd__poly_inside(const double (*pts)[2], int n, double x, double y)
{
    int in = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double xi = pts[i][0], yi = pts[i][1], xj = pts[j][0], yj = pts[j][1];
        if ((yi > y) != (yj > y) && x < xj + (y - yj) * (xi - xj) / (yi - yj))
            in = !in;
    }
    return in;
}

double rnd__poly_dist(const double (*pts)[2], int n, double x, double y, double dir[2])
{
    double best = INFINITY;
    dir[0] = dir[1] = 0;
    for (int i = 0, j = n - 1; i < n; j = i++) {
        double ax = pts[j][0], ay = pts[j][1], ex = pts[i][0] - ax, ey = pts[i][1] - ay;
        double ee = ex * ex + ey * ey, t = ee > 0 ? ((x - ax) * ex + (y - ay) * ey) / ee : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        double qx = x - (ax + t * ex), qy = y - (ay + t * ey), d = hypot(qx, qy);
        if (d < best) {
            best = d;
            dir[0] = d > 0 ? qx / d : 0;
            dir[1] = d > 0 ? qy / d : 0;
        }
    }
    return best;
}

double rnd__piece_height(const rnd_piece *p, double x, double y, double g[2])
{
    double dir[2];
    g[0] = g[1] = 0;
    if (rnd__poly_inside(p->pts, p->npts, x, y))
        return p->height_in;
    if (!(p->slope_in > 0))
        return 0;
    double d = rnd__poly_dist(p->pts, p->npts, x, y, dir);
    if (d >= p->slope_in)
        return 0;
    double k = p->height_in / p->slope_in;
    g[0] = -k * dir[0];
    g[1] = -k * dir[1];
    return p->height_in - k * d;
}

double rnd_ground_gradient(const rnd_scene *sc, double x, double y, double g[2])
{
    double best = 0, gi[2];
    g[0] = g[1] = 0;
    for (int i = 0; sc && i < sc->npieces; i++) {
        double h = rnd__piece_height(&sc->pieces[i], x, y, gi);
        if (h > best) {
            best = h;
            g[0] = gi[0];
            g[1] = gi[1];
        }
    }
    return best;
}

double rnd_ground_height(const rnd_scene *sc, double x, double y)
{
    double g[2];
    return rnd_ground_gradient(sc, x, y, g);
}

void rnd_place_on_ground(const rnd_scene *sc, rnd_tag *tag, double base_height_in)
{
    double g[2], h = rnd_ground_gradient(sc, tag->x, tag->y, g);
    /* the base stands on the ground at (x, y); its top, the tag, is
     * base_height_in away along the ground's normal */
    double L = sqrt(1 + g[0] * g[0] + g[1] * g[1]);
    tag->x += base_height_in * -g[0] / L;
    tag->y += base_height_in * -g[1] / L;
    tag->height_in = h + base_height_in / L;
    tag->slope[0] = g[0];
    tag->slope[1] = g[1];
}

void rnd_tag_base_xy(const rnd_tag *tag, double base_height_in, double xy[2])
{
    double gx = tag->slope[0], gy = tag->slope[1], L = sqrt(1 + gx * gx + gy * gy);
    xy[0] = tag->x - base_height_in * -gx / L;
    xy[1] = tag->y - base_height_in * -gy / L;
}

void rnd__tag_axes(const rnd_tag *tag, double r[3], double d[3], double n[3])
{
    double f = tag->facing_deg * (M_PI / 180), cf = cos(f), sf = sin(f);
    double r0[3] = {-sf, cf, 0}, d0[3] = {-cf, -sf, 0};
    double gx = tag->slope[0], gy = tag->slope[1], gg = hypot(gx, gy);
    if (!(gg > 0)) {
        memcpy(r, r0, sizeof r0);
        memcpy(d, d0, sizeof d0);
        n[0] = n[1] = 0;
        n[2] = 1;
        return;
    }
    /* the rotation taking up (0, 0, 1) to the ground's normal, about the
     * horizontal axis k = up x n (Rodrigues) */
    double L = sqrt(1 + gg * gg), c = 1 / L, s = gg / L;
    double k[3] = {gy / gg, -gx / gg, 0};
    const double *in[2] = {r0, d0};
    double *out[2] = {r, d};
    for (int a = 0; a < 2; a++) {
        const double *v = in[a];
        double kxv[3] = {k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]};
        double kv = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
        for (int i = 0; i < 3; i++)
            out[a][i] = v[i] * c + kxv[i] * s + k[i] * kv * (1 - c);
    }
    n[0] = -gx / L;
    n[1] = -gy / L;
    n[2] = 1 / L;
}

void rnd_tag_corners3(const rnd_tag *tag, double corners[4][3])
{
    /* tag-local (right, down) offsets in half sizes: bottom-left,
     * bottom-right, top-right, top-left of the printed tag */
    static const double uv[4][2] = {{-1, 1}, {1, 1}, {1, -1}, {-1, -1}};
    double r[3], d[3], n[3], hs = tag->size_in * 0.5, c0[3] = {tag->x, tag->y, tag->height_in};
    rnd__tag_axes(tag, r, d, n);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++)
            corners[k][i] = c0[i] + hs * (uv[k][0] * r[i] + uv[k][1] * d[i]);
}
