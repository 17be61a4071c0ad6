#!/usr/bin/env python3
"""test_window_keys.py - the projector window under Xvfb, keys pressed with
xdotool (XTEST) as a player's fingers would: a stray key, H (hide) and one
Esc leave the game running; Esc twice within 2 seconds ends it with exit 0.

usage: test_window_keys.py TABLETRACK SOURCE_ROOT
Exit 77 (skipped) without Xvfb or xdotool ('make deps' installs them)."""
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_server import Server  # noqa: E402


def main():
    binary, root = sys.argv[1], sys.argv[2]
    if not shutil.which("Xvfb") or not shutil.which("xdotool"):
        print("skipped: no Xvfb or xdotool")
        return 77
    disp = ":%d" % (60 + os.getpid() % 200)
    xvfb = subprocess.Popen(["Xvfb", disp, "-screen", "0", "1920x1080x24"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    env = dict(os.environ, DISPLAY=disp)
    ok = True

    def check(c, what):
        nonlocal ok
        print(("ok: " if c else "FAIL: ") + what, flush=True)
        ok &= bool(c)

    def key(k):
        subprocess.run(["xdotool", "key", k], env=env, check=True)
        time.sleep(0.5)

    srv = None
    try:
        time.sleep(1)
        srv = Server(binary, root, extra=["--window", disp])
        srv.wait_state(lambda s: s["camera"] == "ended", timeout=120)
        wid = ""
        for _ in range(50):
            wid = subprocess.run(["xdotool", "search", "--name", "tabletrack overlay"], env=env,
                                 capture_output=True, text=True).stdout.split()
            if wid:
                break
            time.sleep(0.1)
        check(bool(wid), "the projector window is open")
        subprocess.run(["xdotool", "windowfocus", "--sync", wid[0]], env=env, check=True)
        key("x")
        key("f")
        key("f")
        key("h")
        check(srv.proc.poll() is None, "a stray key, F twice and H leave the game running")
        key("Escape")
        time.sleep(2.5)
        check(srv.proc.poll() is None and "press Esc again" in srv.stderr(),
              "one Esc only asks for a second one")
        subprocess.run(["xdotool", "key", "Escape"], env=env, check=True)
        time.sleep(0.3)
        subprocess.run(["xdotool", "key", "Escape"], env=env, check=True)
        t0 = time.time()
        while srv.proc.poll() is None and time.time() - t0 < 10:
            time.sleep(0.1)
        rc, _ = srv.stop()
        check(rc == 0 and "Esc pressed twice" in srv.stderr(), "Esc twice ends the game with exit 0 (%s)" % rc)
        if rc != 0:
            print(srv.stderr()[-3000:])
    finally:
        if srv:
            srv.cleanup()
        xvfb.terminate()
        xvfb.wait()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
