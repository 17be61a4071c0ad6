/* families.h - the tag families libapriltag 3.3 ships, by name: one table
 * for detection (vision/), printing (print/) and the test renderer.  Its
 * own small library (tt_families: libapriltag only, no OpenCV).
 *
 * Families are created by the caller and destroyed with the matching
 * vision_family_destroy; libapriltag's detector keeps a pointer to them.
 */
#ifndef TT_VISION_FAMILIES_H
#define TT_VISION_FAMILIES_H

#ifdef __cplusplus
extern "C" {
#endif

struct apriltag_family;

/* Number of families, and the index of a name (-1 if unknown). */
int vision_family_count(void);
int vision_family_index(const char *name);
const char *vision_family_name(int idx);

/* Bits the detector may correct: 1 for tagCircle49h12, tagCustom48h12 and
 * tagStandard52h13 (2 would allocate 4-7 GB in libapriltag 3.3), else 2. */
int vision_family_bits_corrected(int idx);

struct apriltag_family *vision_family_create(int idx);
void vision_family_destroy(int idx, struct apriltag_family *fam); /* accepts NULL */

/* Is name a family libapriltag 3.3 ships? */
int vision_family_known(const char *name);

/* Comma-separated list of the family names (static string). */
const char *vision_family_list(void);

#ifdef __cplusplus
}
#endif
#endif
