/* families.c - see families.h. */
#include "families.h"

#include <string.h>

#include <apriltag/apriltag.h>
#include <apriltag/tag16h5.h>
#include <apriltag/tag25h9.h>
#include <apriltag/tag36h10.h>
#include <apriltag/tag36h11.h>
#include <apriltag/tagCircle21h7.h>
#include <apriltag/tagCircle49h12.h>
#include <apriltag/tagCustom48h12.h>
#include <apriltag/tagStandard41h12.h>
#include <apriltag/tagStandard52h13.h>

static const struct {
    const char *name;
    apriltag_family_t *(*create)(void);
    void (*destroy)(apriltag_family_t *);
    int bits;
} vision__families[] = {
    {"tag36h11", tag36h11_create, tag36h11_destroy, 2},
    {"tag36h10", tag36h10_create, tag36h10_destroy, 2},
    {"tag25h9", tag25h9_create, tag25h9_destroy, 2},
    {"tag16h5", tag16h5_create, tag16h5_destroy, 2},
    {"tagCircle21h7", tagCircle21h7_create, tagCircle21h7_destroy, 2},
    {"tagStandard41h12", tagStandard41h12_create, tagStandard41h12_destroy, 2},
    {"tagCircle49h12", tagCircle49h12_create, tagCircle49h12_destroy, 1},
    {"tagCustom48h12", tagCustom48h12_create, tagCustom48h12_destroy, 1},
    {"tagStandard52h13", tagStandard52h13_create, tagStandard52h13_destroy, 1},
};
#define VISION__NFAM ((int)(sizeof vision__families / sizeof vision__families[0]))

int vision_family_count(void)
{
    return VISION__NFAM;
}

int vision_family_index(const char *name)
{
    for (int i = 0; name && i < VISION__NFAM; i++)
        if (!strcmp(vision__families[i].name, name))
            return i;
    return -1;
}

const char *vision_family_name(int idx)
{
    return idx >= 0 && idx < VISION__NFAM ? vision__families[idx].name : NULL;
}

int vision_family_bits_corrected(int idx)
{
    return idx >= 0 && idx < VISION__NFAM ? vision__families[idx].bits : 0;
}

apriltag_family_t *vision_family_create(int idx)
{
    return idx >= 0 && idx < VISION__NFAM ? vision__families[idx].create() : NULL;
}

void vision_family_destroy(int idx, apriltag_family_t *fam)
{
    if (fam && idx >= 0 && idx < VISION__NFAM)
        vision__families[idx].destroy(fam);
}

int vision_family_known(const char *name)
{
    return vision_family_index(name) >= 0;
}

const char *vision_family_list(void)
{
    return "tag36h11, tag36h10, tag25h9, tag16h5, tagCircle21h7, tagStandard41h12, "
           "tagCircle49h12, tagCustom48h12, tagStandard52h13";
}
