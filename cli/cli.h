/* cli.h - subcommand entry points (argv[0] is the subcommand name) and the
 * few helpers they share. */
#ifndef TT_CLI_H
#define TT_CLI_H

#include "cli_opts.h"
#include "tt_status.h"
#include "vision.h"

/* The option tables (cli_specs.c). */
extern const cli_spec cli_spec_detect, cli_spec_locate, cli_spec_check, cli_spec_calib_camera, cli_spec_calib_projector,
    cli_spec_print_board, cli_spec_print_tags, cli_spec_rules, cli_spec_overlay, cli_spec_track, cli_spec_cameras,
    cli_spec_replay, cli_spec_hall;

int cmd_detect(int argc, char **argv);
int cmd_locate(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_calib(int argc, char **argv);
int cmd_print(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_overlay(int argc, char **argv);
int cmd_track(int argc, char **argv);
int cmd_cameras(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_hall(int argc, char **argv);

/* The broker options shared by track, replay and hall (--mqtt,
 * --mqtt-user, --mqtt-password-file, --mqtt-cafile) into o; 1 if `name`
 * was one of them. */
struct hall_mqtt_opts;
int cli_mqtt_opt(const char *name, const char *val, struct hall_mqtt_opts *o);

/* Print "tabletrack <cmd>: <message>" to stderr and return exit code 1. */
int cli_fail(const char *cmd, const tt_err *err);

/* Print a usage error for <cmd> and return exit code 2. */
int cli_usage(const char *cmd, const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A whole number from lo to hi, written in decimal with nothing around it,
 * into *out.  Returns 0 (and leaves *out) for anything else: empty text,
 * other characters, out of range. */
int cli_int(const char *s, long lo, long hi, int *out);

/* Ctrl-C and SIGTERM call handler (which sets a flag the command polls);
 * SIGPIPE is ignored (a closed pipe or socket is an error return). */
void cli_on_stop(void (*handler)(int));

/* Write text to path atomically (temp file + rename); "-" means stdout. */
tt_status cli_write_text(const char *path, const char *text, tt_err *err);

/* Parse one detector option at argv[i] (--family, --decimate,
 * --refine-edges, --threads) into o.  Returns the number of argv entries
 * consumed, 0 if argv[i] is not a detector option, -1 on a bad or missing
 * value (*bad names the option). */
int cli_detector_opt(int argc, char **argv, int i, vision_detector_opts *o, const char **bad);

/* Apply detector option `name` (--family, --decimate, --refine-edges,
 * --threads) with value `val` to o.  Returns 1 when applied, 0 when name is
 * not a detector option, -1 on a bad value. */
int cli_detector_apply(const char *name, const char *val, vision_detector_opts *o);

/* locate's figures on f (cmd_locate_out.c): one JSON object when json is
 * set, else a table to read (locate prints that to a terminal).  names[i]
 * (names may be NULL, an entry NULL) is figure i's scenario name. */
struct calib_figure;
struct calib_pose;
void cli_locate_print(FILE *f, int json, const struct calib_figure *figs, const char *const *names, int n,
                      const struct calib_pose *pose);

/* locate with a rig of several cameras (cmd_locate_cams.c): one frame per
 * camera in rig order (already counted), each camera's pose from its own
 * anchors, the figures fused (calib/fuse.h) and printed as
 * cli_locate_print does, with each camera's pose and the cameras that saw
 * each figure; sightings that disagree are warned about on stderr.
 * Returns the exit code. */
struct calib_rig;
struct rules_scenario;
int cli_locate_cams(const struct calib_rig *rig, const char *const *images, const struct rules_scenario *sc,
                    vision_detector_opts *o, int rescale, int json);

/* check with a rig of several cameras (cmd_check_cams.c): one frame per
 * camera in rig order (already counted); prints the report (calib/
 * check_cams.h) in words or as JSON.  Returns the exit code: 0 when no
 * spot of the table is left unread. */
int cli_check_cams(const struct calib_rig *rig, const char *const *images, int json);
#endif
