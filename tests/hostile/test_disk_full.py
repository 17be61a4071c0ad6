#!/usr/bin/env python3
"""test_disk_full.py - the disk fills up in the middle of a game, through
'tabletrack track' itself: the file-size limit (RLIMIT_FSIZE) stands in for
a full disk, so writes past 150 kB fail as they would with ENOSPC/EFBIG.
The game must go on (every frame tracked), the failure is said once on
stderr with the frame, the exit code is 1, and the recording is marked
truncated at the last frame saved, which replay then reports.

usage: test_disk_full.py TABLETRACK SOURCE_ROOT"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from tt_checks import Checks  # noqa: E402

LIMIT = 150_000


def main():
    binary, root = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="tt-full-")
    check = Checks()

    def small_disk():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))

    try:
        rec = os.path.join(tmp, "game.sqlite")
        p = subprocess.run([binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                            os.path.join(root, "samples/breach/game.mp4"), "--record", rec, "--stats"],
                           preexec_fn=small_disk, capture_output=True, text=True, timeout=300)
        print(p.stderr)
        check(p.returncode == 1, "track exits 1 after a recording failure (%d)" % p.returncode)
        said = re.findall(r"recording stopped at frame (\d+): .*truncated at frame (\d+)", p.stderr)
        check(len(said) == 1, "the failure is said once, at once, with the frame: %s" % said)
        stats = json.loads(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}
        check(stats.get("frames") == 120, "the game went on: every frame tracked (%s)" % stats.get("frames"))
        if said:
            failed_at, saved = int(said[0][0]), int(said[0][1])
            check(0 < saved < failed_at < 119, "it failed mid-game (frame %d, saved up to %d)" % (failed_at, saved))
            r = subprocess.run([binary, "replay", rec, "--json"], capture_output=True, text=True, timeout=120)
            end = json.loads(r.stdout.strip().splitlines()[-1])
            check(end.get("ended_cleanly") is False and end.get("truncated_at_frame") == saved,
                  "the recording is marked truncated at frame %d: %s" % (saved, end))
            frames = [json.loads(l)["frame"] for l in r.stdout.splitlines() if '"figures"' in l]
            check(frames and max(frames) <= saved, "nothing after the last frame saved is in it")
            h = subprocess.run([binary, "replay", rec, "--html", os.path.join(tmp, "r.html")], capture_output=True,
                               text=True, timeout=120)
            check(h.returncode == 0 and ("truncated at frame %d" % saved) in h.stderr,
                  "replay says where it is truncated: %s" % h.stderr.strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
