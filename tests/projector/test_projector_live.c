/* test_projector_live.c - 'tabletrack calib projector --live': the
 * procedure the live tool runs by itself, showing each pattern fullscreen
 * (under Xvfb) and grabbing a frame for it.  The "camera" is an image
 * sequence of the simulated rig's photos of the patterns, in pattern order,
 * so the whole path runs except real camera timing.  Exits 77 (skipped)
 * when Xvfb is missing. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cvwrap.h"
#include "pjsim.h"
#include "projector.h"

#define PW 640
#define PH 400

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static const char *find_prog(const char *name)
{
    static char buf[256];
    const char *dirs[] = {"/usr/bin", "/usr/local/bin", "/bin"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(buf, sizeof buf, "%s/%s", dirs[i], name);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

static pid_t spawn(const char *prog, char *const argv[], const char *out_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        /* SDL's X11 back end keeps allocations until exit (see the overlay
         * window test); leaks of our own code are checked elsewhere. */
        const char *asan = getenv("ASAN_OPTIONS");
        char opts[512];
        snprintf(opts, sizeof opts, "%s%sdetect_leaks=0", asan ? asan : "", asan && asan[0] ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        int fd = open(out_path ? out_path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(prog, argv);
        _exit(127);
    }
    return pid;
}

int main(void)
{
    const char *xvfb = find_prog("Xvfb");
    if (!xvfb) {
        printf("SKIP: Xvfb not installed (apt-get install xvfb)\n");
        return 77;
    }
    pjsim_options o;
    pjsim *sim = NULL;
    tt_err err = {0};
    pjsim_options_default(&o);
    o.pj_w = PW;
    o.pj_h = PH;
    o.pj_f = 1750.0 * PW / 1280;
    o.seed = 21;
    char dir[64], caps[128], kept[128], glob[160], out[128], log[128];
    snprintf(dir, sizeof dir, "/tmp/tt_pjlive_XXXXXX");
    if (!mkdtemp(dir) || pjsim_create(&o, &sim, &err) != TT_OK) {
        printf("FAIL: setup: %s\n", err.msg);
        return 1;
    }
    snprintf(caps, sizeof caps, "%s/caps", dir);
    snprintf(kept, sizeof kept, "%s/kept", dir);
    snprintf(glob, sizeof glob, "%s/*.png", caps);
    snprintf(out, sizeof out, "%s/projector.json", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    mkdir(caps, 0777);
    int n = calib_projector_pattern_count(PW, PH);
    for (int i = 0; i < n; i++) {
        tt_image pat = {0}, cap = {0};
        char p[256];
        snprintf(p, sizeof p, "%s/%03d.png", caps, i);
        if (calib_projector_pattern_render(PW, PH, i, &pat, &err) != TT_OK ||
            pjsim_capture(sim, &pat, &cap, &err) != TT_OK || cvw_image_write(p, &cap, &err) != TT_OK) {
            printf("FAIL: simulated photo %d: %s\n", i, err.msg);
            return 1;
        }
        tt_image_free(&pat);
        tt_image_free(&cap);
    }

    char disp[16], sock[64];
    int dn = 0;
    for (int k = 0; k < 200; k++) {
        dn = 560 + (int)((getpid() + k) % 300);
        char lock[64];
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", dn);
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", dn);
        if (!exists(sock) && !exists(lock))
            break;
    }
    snprintf(disp, sizeof disp, ":%d", dn);
    char screen[32];
    snprintf(screen, sizeof screen, "%dx%dx24", PW, PH);
    char *xargv[] = {"Xvfb", disp, "-screen", "0", screen, "-nolisten", "tcp", NULL};
    pid_t xpid = spawn(xvfb, xargv, NULL);
    int rc = 1;
    for (int t = 0; t < 200 && !exists(sock); t++)
        sleep_ms(50);
    if (!exists(sock)) {
        printf("SKIP: Xvfb did not start on %s\n", disp);
        rc = 77;
        goto done;
    }
    char wb[16], hb[16];
    snprintf(wb, sizeof wb, "%d", PW);
    snprintf(hb, sizeof hb, "%d", PH);
    char *argv[] = {TT_BIN, "calib", "projector", "--rig", sim->rig_path, "--live", "--source", glob, "--window",
                    disp, "--width", wb, "--height", hb, "--out", out, "--keep-captures", kept, NULL};
    pid_t pid = spawn(TT_BIN, argv, log);
    int st = 0;
    waitpid(pid, &st, 0);
    char text[8192] = "";
    FILE *lf = fopen(log, "r");
    if (lf) {
        size_t k = fread(text, 1, sizeof text - 1, lf);
        text[k] = '\0';
        fclose(lf);
    }
    printf("%s", text);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("FAIL: calib projector --live exited with %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        goto done;
    }
    /* The solved map agrees with the simulated projector's truth. */
    calib_projector *pj = NULL;
    if (calib_projector_load(out, &pj, &err) != TT_OK) {
        printf("FAIL: %s\n", err.msg);
        goto done;
    }
    double worst = 0;
    int checked = 0;
    for (double x = 20; x <= 52; x += 4)
        for (double y = 14; y <= 34; y += 4) {
            double truth[2], xy[2] = {x, y}, got[2];
            if (!pjsim_truth(sim, x, y, truth) || truth[0] < 20 || truth[0] > PW - 20 || truth[1] < 20 ||
                truth[1] > PH - 20)
                continue;
            calib_projector_map(pj, xy, 1, got);
            double e = (got[0] - truth[0]) * (got[0] - truth[0]) + (got[1] - truth[1]) * (got[1] - truth[1]);
            worst = e > worst ? e : worst;
            checked++;
        }
    calib_projector_destroy(pj);
    /* Every grabbed frame kept under its pattern's name. */
    int kept_ok = 0;
    for (int i = 0; i < n; i++) {
        calib_projector_pattern info;
        char p[300];
        calib_projector_pattern_info(PW, PH, i, &info, NULL);
        snprintf(p, sizeof p, "%s/%s", kept, info.name);
        kept_ok += exists(p);
    }
    printf("live calibration: %d points checked, worst %.3f px from the truth; %d/%d frames kept\n", checked,
           worst > 0 ? __builtin_sqrt(worst) : 0.0, kept_ok, n);
    if (checked < 10 || worst > 1.0 || kept_ok != n || !strstr(text, "residual:")) {
        printf("FAIL\n");
        goto done;
    }
    printf("projector_live: 1 passed, 0 failed\n");
    rc = 0;
done:
    kill(xpid, SIGTERM);
    waitpid(xpid, NULL, 0);
    pjsim_destroy(sim);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
