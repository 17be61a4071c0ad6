/* pair.c - several sources' frames paired by time (see source.h). */
#include "source.h"

int vision_frames_pair(const double *t_ms, const int *have, int n, double period_ms, int *use)
{
    double newest = 0;
    int any = 0, m = 0;
    for (int k = 0; k < n; k++)
        if (have[k] && (!any++ || t_ms[k] > newest))
            newest = t_ms[k];
    for (int k = 0; k < n; k++) {
        use[k] = have[k] && t_ms[k] >= newest - period_ms;
        m += use[k];
    }
    return m;
}
