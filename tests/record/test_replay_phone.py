#!/usr/bin/env python3
"""test_replay_phone.py - the replay page of the demo game (the breach
video tracked with its questions, as 'make demo' records it) in Chromium at
phone (390x844) and laptop (1400x900) sizes: the table first and the width
of a phone, no two labels over each other or over another figure, a legend
for every mark, arrows step a frame (shift: a second), space plays, the
lists reachable by Tab and Enter, a default speed that shows a short game
in real time.  Screenshots are kept in the build folder (replay-*.png).

usage: test_replay_phone.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make test' installs both)."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
from tt_checks import Checks, browser_missing, page_result  # noqa: E402


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    check = Checks()

    tmp = tempfile.mkdtemp(prefix="tt-replay-")
    try:
        b = os.path.join(root, "samples/breach")
        rec, html = os.path.join(tmp, "game.sqlite"), os.path.join(tmp, "replay.html")
        subprocess.run([binary, "track", "--rig", os.path.join(b, "rig.json"), "--source", os.path.join(b, "game.mp4"),
                        "--scenario", os.path.join(b, "scenario.json"), "--projector", os.path.join(b, "projector.json"),
                        "--queries", os.path.join(b, "queries.jsonl"), "--record", rec], check=True,
                       capture_output=True, timeout=300)
        subprocess.run([binary, "replay", rec, "--html", html], check=True, capture_output=True, timeout=120)
        p = subprocess.run(["node", os.path.join(HERE, "replay_phone.js"), html, out], capture_output=True,
                           text=True, timeout=300)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        check(r.get("phone_table_width", 0) >= 0.9, "on a phone the table takes %.0f %% of the width (>= 90 %%)"
              % (100 * r.get("phone_table_width", 0)))
        check(r.get("laptop_table_width", 0) >= 0.6, "on a laptop the table takes most of the width")
        for size in ("phone", "laptop"):
            c = r.get("clashes", {}).get(size)
            check(c == [], "%s: no label over another label or another figure: %s" % (size, c))
            check(r.get(size + "_labels", 0) >= 10, "%s: the labels are drawn (%s)" % (size, r.get(size + "_labels")))
        legend = " ".join(r.get("legend", []))
        for word in ("can see", "blocked", "grape", "cannonball", "blast", "command", "sees", "hit", "last 15 s",
                     "hidden", "lost"):
            check(word in legend, "the legend explains '%s'" % word)
        check(r.get("length_ms", 0) < 300000 and r.get("default_speed") == "1",
              "a short game plays in real time by default (%s)" % r.get("default_speed"))
        f = r.get("frame_ms") or 0
        st = r.get("steps") or [0, 0, 0]
        check(20 <= f <= 50 and abs(st[0] - f) < 1e-6 and abs(st[1] - 1000) < 1e-6 and abs(st[2] + f) < 1e-6,
              "arrows step a frame (%.1f ms), shift+arrow a second: %s" % (f, st))
        check(r.get("space_plays") is True and r.get("played_ms", 0) > 200 and r.get("space_pauses") is True,
              "space plays (%.0f ms in 0.6 s) and pauses" % r.get("played_ms", 0))
        check(r.get("tab_reaches_question") is not None and abs(r.get("enter_time", 1e9)) < 1e-6,
              "Tab reaches the question list and Enter jumps to the question")
        ql = r.get("qlines") or []
        check(len(ql) >= 3, "the question list has the demo's questions (%d)" % len(ql))
        for i, q in enumerate(ql):
            check(q.get("ans") and "undefined" not in q["ans"] and "NaN" not in q["ans"],
                  "question %d (%s) says its answer in words: %r" % (i, q.get("q"), q.get("ans")))
            check(q.get("want_rule") and q.get("rule") == q.get("want_rule"),
                  "question %d (%s) shows the rule its answer cites: %r" % (i, q.get("q"), q.get("rule")))
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        for shot in ("replay-phone", "replay-phone-full", "replay-laptop"):
            check(os.path.getsize(os.path.join(out, shot + ".png")) > 10000, "screenshot %s.png" % shot)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
