#!/usr/bin/env python3
"""test_slope_browser.py - a hill's slope ("slope_in", issue 29) set on the
live table page's Set up tab, in a real Chromium at phone size against a
real 'tabletrack track --http' on the breach sample (browser_slope.js): only
areas that raise offer it; a negative slope and one in millimetres are
refused with what to give, and so is Save while one is wrong; 1.5" is drawn
where the sides meet the felt, saved in the scenario the page PUTs, and
served back. Screenshots phone-slope.png, phone-slope-refused.png and
laptop-slope.png in the build folder.

usage: test_slope_browser.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make deps' installs both)."""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def grown(top, run):
    """Where the sides of a convex top sloping out over run meet the felt:
    each edge's line moved out by run, meeting its neighbours' (hips)."""
    n = len(top)
    area = sum(top[i][0] * top[(i + 1) % n][1] - top[(i + 1) % n][0] * top[i][1] for i in range(n))
    lines = []
    for i in range(n):
        (ax, ay), (bx, by) = top[i], top[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay)
        dx, dy = (bx - ax) / length, (by - ay) / length
        nx, ny = (dy, -dx) if area > 0 else (-dy, dx)  # outward
        lines.append(((ax + nx * run, ay + ny * run), (dx, dy)))
    out = []
    for k in range(n):
        (p1, d1), (p2, d2) = lines[k - 1], lines[k]
        t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / (d1[0] * d2[1] - d1[1] * d2[0])
        out.append([p1[0] + t * d1[0], p1[1] + t * d1[1]])
    return out


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    srv = Server(binary, root)
    check = Checks()
    try:
        p = subprocess.run(["node", os.path.join(HERE, "browser_slope.js"), srv.url, out],
                           capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        check(sorted(r.get("sloped") or []) == ["hill-1", "house"],
              "the hill and the house (kinds that raise) offer a slope, the walls and the rubble do not: %s"
              % r.get("sloped"))
        neg = r.get("negative") or {}
        check("cannot be negative" in neg.get("msg", "") and neg.get("invalid") == "true",
              "a negative slope is refused, saying what to give: %s" % neg)
        check(r.get("save_refused", "").startswith("Not saved: The slope of hill-1"),
              "Save refuses while a slope is wrong: %r" % r.get("save_refused"))
        mm = r.get("millimetres") or {}
        check("millimetres" in mm.get("msg", "") and mm.get("invalid") == "true",
              "100\" is taken for millimetres: %s" % mm)
        good = r.get("good") or {}
        check(good.get("invalid") == "false" and "1.5" in good.get("msg", ""), "1.5\" is taken: %s" % good)
        foot = [[float(v) for v in xy.split(",")] for xy in ((r.get("foot") or [""])[0] or "").split()]
        top = (r.get("served") or {}).get("polygon") or []
        want = grown(top, 1.5) if len(top) == 4 else []
        check(len(foot) == 4 and len(want) == 4 and
              all(math.hypot(a[0] - b[0], a[1] - b[1]) < 0.01 for a, b in zip(foot, want)),
              "where its sides meet the felt is drawn, 1.5\" out from the top %s: %s (want %s)" % (top, foot, want))
        check(r.get("saved") == "Saved.", "saved: %r" % r.get("saved"))
        served = r.get("served") or {}
        check(served.get("slope_in") == 1.5 and served.get("kind") == "hill",
              "the table serves the hill with its slope: %s" % served)
        with open(srv.scenario) as fh:
            hill = [t for t in json.load(fh)["terrain"] if t["id"] == "hill-1"]
        check(len(hill) == 1 and hill[0].get("slope_in") == 1.5, "the scenario file holds slope_in 1.5: %s" % hill)
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        check.screenshots(out, ("phone-slope", "phone-slope-refused", "laptop-slope"))
    finally:
        srv.end(check)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
