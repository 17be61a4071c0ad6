#!/usr/bin/env python3
"""test_windows_two.py - two projectors, each in its own window on its own
X screen (issue 31): 'track --projector P1 --window :D.1 --projector P2
--window :D.2' under an Xvfb of three screens (0 the laptop's, 1 and 2 the
projectors'). Each projector's screen shows that projector's picture (the
overlay_NNNNN_pK.png written beside it), not the other's; the laptop's
screen gets no window; Esc twice in the second projector's window ends the
game; a screen the display lacks, or a window on another display, is
refused saying so.

usage: test_windows_two.py TABLETRACK SOURCE_ROOT TT_XWD_MATCH
Exit 77 (skipped) without Xvfb, xwd or xdotool ('make deps' installs them)."""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_server import Server  # noqa: E402

HANG_S = 300  # guards against a hang, never reached on a working machine, however busy


def free_display():
    for k in range(400):
        n = 300 + (os.getpid() + k) % 400
        if not os.path.exists("/tmp/.X11-unix/X%d" % n) and not os.path.exists("/tmp/.X%d-lock" % n):
            return n
    raise RuntimeError("no free X display number")


def main():
    binary, root, matcher = sys.argv[1], sys.argv[2], sys.argv[3]
    if not all(shutil.which(p) for p in ("Xvfb", "xwd", "xdotool")):
        print("skipped: no Xvfb, xwd or xdotool")
        return 77
    n = free_display()
    disp = ":%d" % n
    xvfb = subprocess.Popen(["Xvfb", disp, "-nolisten", "tcp", "-screen", "0", "800x600x24", "-screen", "1",
                             "1920x1080x24", "-screen", "2", "1920x1080x24"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ok = True
    scratch = tempfile.mkdtemp(prefix="tt-win2-")

    def check(c, what):
        nonlocal ok
        print(("ok: " if c else "FAIL: ") + what, flush=True)
        ok &= bool(c)

    def windows(screen):
        r = subprocess.run(["xdotool", "search", "--screen", str(screen), "--name", "tabletrack overlay"],
                           env=dict(os.environ, DISPLAY="%s.%d" % (disp, screen)), capture_output=True, text=True)
        return r.stdout.split()

    def shows(screen, png):
        shot = os.path.join(scratch, "screen%d.xwd" % screen)
        subprocess.run(["xwd", "-root", "-silent", "-display", "%s.%d" % (disp, screen), "-out", shot], check=True)
        r = subprocess.run([matcher, shot, png], capture_output=True, text=True)
        return r.returncode == 0, (r.stdout + r.stderr).strip()

    srv = None
    try:
        t0 = time.time()
        while not os.path.exists("/tmp/.X11-unix/X%d" % n) and time.time() - t0 < HANG_S:
            time.sleep(0.1)
        # the second projector sees the table 12" further right (its own picture)
        pj = json.load(open(os.path.join(root, "samples/breach/projector.json")))
        pj["table_to_projector"] = [[r[0], r[1], r[2] - 12 * r[0]] for r in pj["table_to_projector"]]
        p2 = os.path.join(scratch, "right.json")
        json.dump(pj, open(p2, "w"))

        srv = Server(binary, root, extra=["--window", disp + ".1", "--projector", p2, "--window", disp + ".2"])
        srv.wait_state(lambda s: s["camera"] == "ended", timeout=HANG_S)
        last = {k: sorted(glob.glob(os.path.join(srv.overlay_dir, "overlay_*_p%d.png" % k)))[-1:] for k in (1, 2)}
        check(all(last.values()), "each projector's pictures are written (%s)" % last)
        # each screen shows its own projector's last picture (polled: a busy
        # machine presents it a little later)
        seen = {}
        t0 = time.time()
        while time.time() - t0 < HANG_S:
            seen = {k: shows(k, last[k][0]) for k in (1, 2)}
            if all(v[0] for v in seen.values()):
                break
            time.sleep(1)
        check(seen[1][0], "screen 1 shows projector 1's picture (%s)" % seen[1][1])
        check(seen[2][0], "screen 2 shows projector 2's picture (%s)" % seen[2][1])
        swapped = shows(1, last[2][0])
        check(not swapped[0], "screen 1 does not show projector 2's picture (%s)" % swapped[1])
        w = {k: windows(k) for k in (0, 1, 2)}
        check(len(w[0]) == 0 and len(w[1]) == 1 and len(w[2]) == 1,
              "one window on each projector's screen, none on the laptop's (%s)" % w)

        # Esc twice in the second projector's window ends the game
        env2 = dict(os.environ, DISPLAY=disp + ".2")
        if w[2]:
            subprocess.run(["xdotool", "windowfocus", "--sync", w[2][0]], env=env2, check=True)
            subprocess.run(["xdotool", "key", "Escape"], env=env2, check=True)
            subprocess.run(["xdotool", "key", "Escape"], env=env2, check=True)
        t0 = time.time()
        while srv.proc.poll() is None and time.time() - t0 < HANG_S:
            time.sleep(0.2)
        rc, _ = srv.stop()
        check(rc == 0 and "Esc pressed twice" in srv.stderr(),
              "Esc twice in projector 2's window ends the game with exit 0 (%s)" % rc)
        srv.cleanup()
        srv = None

        # a screen the display lacks; a window on another display
        for windows_args, says in (([disp + ".1", disp + ".5"], "has no screen 5"),
                                   ([disp + ".1", ":%d.0" % (n + 1)], "must be a screen of the same X display")):
            args = [binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                    os.path.join(root, "samples/breach/game.mp4"), "--projector",
                    os.path.join(root, "samples/breach/projector.json"), "--window", windows_args[0],
                    "--projector", p2, "--window", windows_args[1]]
            r = subprocess.run(args, capture_output=True, text=True, timeout=HANG_S,
                               env=dict(os.environ, TABLETRACK_DATA=root))
            check(r.returncode != 0 and says in r.stderr,
                  "--window %s is refused: '%s' (%d: %s)" % (windows_args[1], says, r.returncode,
                                                              r.stderr.strip()[-300:]))
    finally:
        if srv:
            srv.cleanup()
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
