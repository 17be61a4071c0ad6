/* rig_text.h - for the rig-file tests: a rig written from text into a
 * folder and loaded, and a rig that must be refused with given words.
 * Include after cmocka.h, stdio.h, string.h and calib.h. */
#ifndef TT_TEST_RIG_TEXT_H
#define TT_TEST_RIG_TEXT_H

/* text written as DIR/rig.json, then loaded (calib_rig_load's status). */
static inline tt_status rig_text_load(const char *dir, const char *text, calib_rig **rig, tt_err *err)
{
    char p[600];
    snprintf(p, sizeof p, "%s/rig.json", dir);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return calib_rig_load(p, rig, err);
}

/* The rig `text` loads no rig, its message holding want1 (and want2 when
 * not NULL); returns the status, *err the message. */
static inline tt_status rig_text_refused(const char *dir, const char *text, const char *want1, const char *want2,
                                         tt_err *err)
{
    calib_rig *rig = NULL;
    tt_status st = rig_text_load(dir, text, &rig, err);
    assert_null(rig);
    if (!strstr(err->msg, want1) || (want2 && !strstr(err->msg, want2)))
        fail_msg("message: %s\nwanted: %s%s%s", err->msg, want1, want2 ? " and " : "", want2 ? want2 : "");
    return st;
}
#endif
