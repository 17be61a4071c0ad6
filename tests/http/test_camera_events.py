#!/usr/bin/env python3
"""test_camera_events.py - a camera lost mid-game and back (the fault:
source) is written in --events as {"event":"camera","state":"lost"} then
"back", the game goes on, and the run ends with exit 0; a camera silent for
2 s is lost too; one that never comes back ends the game cleanly after
--camera-timeout seconds.

usage: test_camera_events.py TABLETRACK SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import sqlite3
import tempfile
import time


def main():
    binary, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as d:
        ev = os.path.join(d, "events.jsonl")
        p = subprocess.run([binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                            "fault:lose=30,for=1:" + os.path.join(root, "samples/breach/game.mp4"), "--events", ev],
                           capture_output=True, text=True, timeout=300)
        lines = [json.loads(l) for l in open(ev)]
    cams = [l for l in lines if l.get("event") == "camera"]
    frames = [l["frame"] for l in lines if "figures" in l]
    ok = True

    def check(c, what):
        nonlocal ok
        print(("ok: " if c else "FAIL: ") + what)
        ok &= bool(c)

    check(p.returncode == 0, "exit 0 (%d): %s" % (p.returncode, p.stderr[-500:]))
    check([c["state"] for c in cams] == ["lost", "back"], "camera lost then back in --events: %s" % cams)
    check(cams and cams[0]["frame"] == 29, "lost after the last frame seen (29): %s" % cams[:1])
    check(frames and frames[-1] > 60, "the game goes on after the camera is back (last frame %s)" % frames[-1:])
    check("camera lost" in p.stderr and "camera back" in p.stderr, "stderr says so")

    # a camera that stops sending (it stalls 3.5 s after frame 20) is lost
    # after 2 s of silence, and back when frames come again
    with tempfile.TemporaryDirectory() as d:
        ev = os.path.join(d, "events.jsonl")
        p = subprocess.run([binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                            "fault:stall=20,for=3.5:" + os.path.join(root, "samples/breach/game.mp4"),
                            "--events", ev], capture_output=True, text=True, timeout=300)
        lines = [json.loads(l) for l in open(ev)]
    cams = [l for l in lines if l.get("event") == "camera"]
    frames = [l["frame"] for l in lines if "figures" in l]
    check(p.returncode == 0, "stalled camera: exit 0 (%d): %s" % (p.returncode, p.stderr[-500:]))
    check([c["state"] for c in cams] == ["lost", "back"] and cams[0]["frame"] == 19,
          "a camera silent for 2 s is lost, then back: %s" % cams)
    check("no frame from the camera for 2000 ms" in p.stderr, "stderr says how long it was silent")
    check(frames and frames[-1] == 119, "every frame is tracked once it is back (last %s)" % frames[-1:])

    # a camera that never comes back: the game ends cleanly after
    # --camera-timeout seconds, the figures kept (none removed), stats
    # printed, the recording closed
    for fault in ("lose=30,for=-1",):
        with tempfile.TemporaryDirectory() as d:
            ev, rec = os.path.join(d, "events.jsonl"), os.path.join(d, "game.sqlite")
            t0 = time.time()
            p = subprocess.run([binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                                "fault:%s:" % fault + os.path.join(root, "samples/breach/game.mp4"),
                                "--camera-timeout", "2", "--events", ev, "--record", rec, "--stats"],
                               capture_output=True, text=True, timeout=300)
            took = time.time() - t0
            lines = [json.loads(l) for l in open(ev)]
            db = sqlite3.connect("file:%s?mode=ro" % rec, uri=True)
            ended = db.execute("SELECT ended_utc, last_frame FROM session").fetchall()
            db.close()
        cams = [l["state"] for l in lines if l.get("event") == "camera"]
        removed = [l for l in lines if l.get("event") == "removed"]
        stats = p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else []
        check(p.returncode == 0 and "gone for 2 s (--camera-timeout): ending the game" in p.stderr,
              "%s: the game ends cleanly after --camera-timeout 2 (%d): %s" % (fault, p.returncode, p.stderr[-300:]))
        check(cams == ["lost"] and not removed, "%s: lost, never back; no figure removed" % fault)
        check(stats and json.loads(stats[0]).get("frames") == 30, "%s: stats printed (%s)" % (fault, stats))
        check(len(ended) == 1 and ended[0][0] is not None and ended[0][1] == 29,
              "%s: the recording is closed cleanly at frame 29: %s" % (fault, ended))
        check(took < 60, "%s: it did not wait for ever (%.1f s)" % (fault, took))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
