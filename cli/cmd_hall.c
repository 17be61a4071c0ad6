/* cmd_hall.c - 'tabletrack hall': reads the options and runs the hall
 * (hall/) until Ctrl-C. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "hall_server.h"

static volatile sig_atomic_t hall__stop;

static void hall__on_signal(int sig)
{
    (void)sig;
    hall__stop = 1;
}

int cmd_hall(int argc, char **argv)
{
    const cli_spec *S = &cli_spec_hall;
    hall_mqtt_opts mo = {0};
    const char *http = NULL, *dir = NULL, *name, *val;
    cli_args args;
    int k;
    cli_args_init(&args, S, argc, argv);
    while ((k = cli_args_next(&args, &name, &val)) != CLI_END) {
        if (k == CLI_STOP)
            return args.rc;
        if (k == CLI_POSITIONAL)
            return cli_spec_usage(S, "unexpected argument '%s'", val);
        if (cli_mqtt_opt(name, val, &mo))
            continue;
        if (!strcmp(name, "--http"))
            http = val;
        else if (!strcmp(name, "--dir"))
            dir = val;
    }
    if (!mo.broker)
        return cli_spec_usage(S, "no --mqtt HOST[:PORT] given (the broker the tables publish to)");
    if (!http)
        return cli_spec_usage(S, "no --http [HOST:]PORT given (where to serve the hall page)");
    if (!dir)
        return cli_spec_usage(S, "no --dir DIR given (where to keep the tables' recordings)");
    cli_on_stop(hall__on_signal);

    tt_err err = {0};
    hall_server *h = NULL;
    if (hall_server_start(&mo, http, dir, &h, &err) != TT_OK)
        return cli_fail("hall", &err);
    fprintf(stderr, "hall: %s (recordings in %s)\n", hall_server_url(h), dir);
    fflush(stderr);
    int rc = 0;
    while (!hall__stop) {
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
        if (hall_server_check(h, &err) != TT_OK) {
            rc = cli_fail("hall", &err);
            break;
        }
    }
    hall_server_stop(h);
    return rc;
}
