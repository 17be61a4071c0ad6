/* phantom.c - see phantom.h. */
#include "phantom.h"

#include <math.h>

calib_phantom_kind calib_phantom(const calib_rig *rig, const vision_detection *d, double x, double y)
{
    if (!(d->margin >= CALIB_PHANTOM_MARGIN))
        return CALIB_PHANTOM_WEAK;
    /* a base: about 1.5 times its tag */
    double edge = 1.5 * (rig->base_size_in > 0 ? rig->base_size_in : 1);
    if (!(x >= -edge && y >= -edge && x <= rig->width_in + edge && y <= rig->depth_in + edge))
        return CALIB_PHANTOM_OFF_TABLE;
    return CALIB_NOT_PHANTOM;
}

int calib_drop_phantoms(const calib_rig *rig, const vision_detections *dets, calib_figure *figs, int *n)
{
    int m = 0;
    for (int i = 0; i < *n; i++)
        if (calib_phantom(rig, &dets->items[figs[i].det_index], figs[i].x, figs[i].y) == CALIB_NOT_PHANTOM)
            figs[m++] = figs[i];
    int dropped = *n - m;
    *n = m;
    return dropped;
}
