/* cmd_calib_projector.h - 'tabletrack calib projector' (argv[0] is
 * "projector"), called from cmd_calib.c's dispatch.  Returns a process exit
 * code: 0 success, 1 failure (message on stderr), 2 usage error. */
#ifndef TT_CMD_CALIB_PROJECTOR_H
#define TT_CMD_CALIB_PROJECTOR_H

int cmd_calib_projector(int argc, char **argv);

#endif
