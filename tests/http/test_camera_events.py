#!/usr/bin/env python3
"""test_camera_events.py - a camera lost mid-game and back (the fault:
source) is written in --events as {"event":"camera","state":"lost"} then
"back", the game goes on, and the run ends with exit 0.

usage: test_camera_events.py TABLETRACK SOURCE_ROOT"""
import json
import os
import subprocess
import sys
import tempfile


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

    # a camera that stops sending (it stalls 3 s after frame 20) is lost
    # after --camera-timeout, and back when frames come again
    with tempfile.TemporaryDirectory() as d:
        ev = os.path.join(d, "events.jsonl")
        p = subprocess.run([binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
                            "fault:stall=20,for=3:" + os.path.join(root, "samples/breach/game.mp4"),
                            "--camera-timeout", "500", "--events", ev], capture_output=True, text=True, timeout=300)
        lines = [json.loads(l) for l in open(ev)]
    cams = [l for l in lines if l.get("event") == "camera"]
    frames = [l["frame"] for l in lines if "figures" in l]
    check(p.returncode == 0, "stalled camera: exit 0 (%d): %s" % (p.returncode, p.stderr[-500:]))
    check([c["state"] for c in cams] == ["lost", "back"] and cams[0]["frame"] == 19,
          "a stalled camera is lost after --camera-timeout, then back: %s" % cams)
    check("no frame from the camera for 500 ms" in p.stderr, "stderr names the timeout")
    check(frames and frames[-1] == 119, "every frame is tracked once it is back (last %s)" % frames[-1:])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
