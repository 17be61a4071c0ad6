/* tt_rec_sample_main.c - 'tt-rec-sample [--heights] OUT.sqlite': record the
 * test fixture game (rec_fixture.h) into a file, for trying 'tabletrack
 * replay' by hand and for the hall's tests; --heights: f1 and f2 on a hill. */
#include <stdio.h>
#include <string.h>

#include "rec_fixture.h"

int main(int argc, char **argv)
{
    int heights = argc == 3 && !strcmp(argv[1], "--heights");
    if (argc != 2 + heights) {
        fprintf(stderr, "usage: tt-rec-sample [--heights] OUT.sqlite   (appends a session if OUT exists)\n");
        return 2;
    }
    tt_err err = {0};
    const char *out = argv[1 + heights];
    if ((heights ? fixture_record_heights(out, REC_APPEND, &err) : fixture_record(out, REC_APPEND, &err)) != TT_OK) {
        fprintf(stderr, "tt-rec-sample: %s\n", err.msg);
        return 1;
    }
    return 0;
}
