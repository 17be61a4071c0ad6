/* test_overlay_window.c - 'tabletrack overlay --window DISPLAY' under Xvfb:
 * the fullscreen window must show exactly the projector image (compared
 * with the PNG written in the same run, through an xwd screenshot).
 * Exits 77 (skipped) when Xvfb or xwd is not installed. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cvwrap.h"
#include "xwd_read.h"

#define W 1280
#define H 800

static const char *find_prog(const char *name)
{
    static char buf[2][512];
    static int k;
    const char *dirs[] = {"/usr/bin", "/usr/local/bin", "/bin", NULL};
    k ^= 1;
    for (int i = 0; dirs[i]; i++) {
        snprintf(buf[k], sizeof buf[k], "%s/%s", dirs[i], name);
        if (access(buf[k], X_OK) == 0)
            return buf[k];
    }
    return NULL;
}

static pid_t spawn(const char *prog, char *const argv[], int quiet)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* SDL's X11 back end and the libraries it dlopens (dbus, GL
         * drivers) keep allocations until exit and are unloaded before
         * LeakSanitizer can name them; our own code's leaks are checked by
         * the 'overlay' test, which draws the same image without SDL. */
        const char *asan = getenv("ASAN_OPTIONS");
        char opts[512];
        snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && asan[0] ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        if (quiet) {
            int fd = open("/dev/null", O_WRONLY);
            if (fd >= 0) {
                dup2(fd, 1);
                dup2(fd, 2);
            }
        }
        execv(prog, argv);
        _exit(127);
    }
    return pid;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int main(void)
{
    const char *xvfb = find_prog("Xvfb"), *xwd = find_prog("xwd");
    if (!xvfb || !xwd) {
        printf("SKIP: Xvfb or xwd not installed (apt-get install xvfb x11-apps)\n");
        return 77;
    }
    char dir[64], disp[16], sock[64], pj[128], png[128], shot[128];
    snprintf(dir, sizeof dir, "/tmp/tt_ovwin_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    int dn = 0;
    for (int k = 0; k < 200; k++) {
        dn = 140 + (int)((getpid() + k) % 400);
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", dn);
        char lock[64];
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", dn);
        if (!exists(sock) && !exists(lock))
            break;
    }
    snprintf(disp, sizeof disp, ":%d", dn);
    snprintf(pj, sizeof pj, "%s/pj.json", dir);
    snprintf(png, sizeof png, "%s/ov.png", dir);
    snprintf(shot, sizeof shot, "%s/shot.xwd", dir);
    FILE *f = fopen(pj, "w");
    fprintf(f, "{\"width\":%d,\"height\":%d,\"table_to_projector\":[[16.0,1.3,40.0],[0.5,14.7,27.0],"
               "[0.0012,0.0045,1.0]]}",
            W, H);
    fclose(f);

    char screen[32];
    snprintf(screen, sizeof screen, "%dx%dx24", W, H);
    char *xargv[] = {"Xvfb", disp, "-screen", "0", screen, "-nolisten", "tcp", NULL};
    pid_t xpid = spawn(xvfb, xargv, 1);
    int rc = 1;
    for (int t = 0; t < 200 && !exists(sock); t++)
        sleep_ms(50);
    if (!exists(sock)) {
        printf("SKIP: Xvfb did not start on %s\n", disp);
        rc = 77;
        goto done_x;
    }
    char *oargv[] = {TT_BIN, "overlay", "--rig", TT_SOURCE_DIR "/samples/table/rig.json", "--projector", pj,
                     "--scenario", TT_SOURCE_DIR "/samples/scenarios/into-the-breach-farm.json", "--query",
                     "{\"q\":\"grape\",\"from\":\"gun1\"}", "--query", "{\"q\":\"fire\",\"from\":\"m1\",\"to\":\"f1\"}",
                     "--query", "{\"q\":\"command\",\"from\":\"gen\"}", "--out", png, "--window", disp, "--hold-ms",
                     "6000", NULL};
    pid_t opid = spawn(TT_BIN, oargv, 0);
    for (int t = 0; t < 300 && !exists(png); t++)
        sleep_ms(50);
    /* The window is on the screen within the hold time: shots every half
     * second until one matches the PNG (a loaded machine maps it late). */
    tt_image im = {0};
    tt_err err = {0};
    int sw = 0, sh = 0, tries = 0;
    long lit = 0, match = 0, total = 0;
    rc = 1;
    if (cvw_image_read(png, 3, &im, &err) != TT_OK) {
        printf("FAIL: cannot read the PNG (%s)\n", err.msg);
        waitpid(opid, NULL, 0);
        goto done_x;
    }
    for (; tries < 10 && rc; tries++) {
        sleep_ms(500);
        char *wargv[] = {"xwd", "-root", "-display", disp, "-silent", "-out", shot, NULL};
        pid_t wpid = spawn(xwd, wargv, 0);
        int ws = 0;
        waitpid(wpid, &ws, 0);
        uint8_t *s = xwd_read(shot, &sw, &sh);
        if (!s)
            continue;
        xwd_compare(s, sw, sh, im.data, W, H, (int)im.stride, &match, &lit, &total);
        free(s);
        rc = (sw == W && sh == H && match >= total * 995 / 1000 && lit > 1000) ? 0 : 1;
    }
    printf("screen %dx%d, %ld of %ld pixels match the PNG, %ld lit (shot %d)\n", sw, sh, match, total, lit, tries);
    tt_image_free(&im);
    int os = 0;
    waitpid(opid, &os, 0);
    if (!WIFEXITED(os) || WEXITSTATUS(os) != 0) {
        printf("FAIL: tabletrack overlay --window exited with %d\n", WIFEXITED(os) ? WEXITSTATUS(os) : -1);
        rc = 1;
    }
done_x:
    kill(xpid, SIGTERM);
    waitpid(xpid, NULL, 0);
    remove(pj);
    remove(png);
    remove(shot);
    remove(dir);
    return rc;
}
