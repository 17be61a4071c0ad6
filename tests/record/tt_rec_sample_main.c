/* tt_rec_sample_main.c - 'tt-rec-sample OUT.sqlite': record the test
 * fixture game (rec_fixture.h) into a file, for trying 'tabletrack replay'
 * by hand. */
#include <stdio.h>

#include "rec_fixture.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tt-rec-sample OUT.sqlite   (appends a session if OUT exists)\n");
        return 2;
    }
    tt_err err = {0};
    if (fixture_record(argv[1], REC_APPEND, &err) != TT_OK) {
        fprintf(stderr, "tt-rec-sample: %s\n", err.msg);
        return 1;
    }
    return 0;
}
