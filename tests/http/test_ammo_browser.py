#!/usr/bin/env python3
"""test_ammo_browser.py - a Fixed Bay'net howitzer on the live table page in
a real Chromium at phone size (tests/http/data/breach-fixed-bayonet.json, the
breach sample under that ruleset): its "Shell lands..." dice form offers shot
or shell (shell first, a howitzer's default); with shot, clock 12 and 2 on the
distance dice the answer is for shot and lands 2" straight on beyond the aim
point. Screenshot phone-ammo.png in the build folder.

usage: test_ammo_browser.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make test' installs both)."""
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
AIM = (26.0, 16.0)  # mortar1 (the howitzer, 32,17 facing 180): 6.1" off, 9.5 degrees into its 45 degree arc


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    srv = Server(binary, root, scenario_file=os.path.join(HERE, "data/breach-fixed-bayonet.json"))
    check = Checks()
    try:
        p = subprocess.run(["node", os.path.join(HERE, "browser_ammo.js"), srv.url, str(AIM[0]), str(AIM[1]), out],
                           capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        check(r.get("ammo_options") == ["shell", "shot"] and r.get("ammo_first_chosen") == "shell",
              "the dice form offers shell (chosen first, a howitzer's default) or shot: %s, %s"
              % (r.get("ammo_options"), r.get("ammo_first_chosen")))
        shown = r.get("shown") or {}
        q, a = shown.get("query") or {}, shown.get("answer") or {}
        check(q.get("ammo") == "shot" and q.get("dice") == {"clock": 12, "distance": 2},
              "the ammunition and dice chosen are sent: %s" % q)
        check(a.get("ammo") == "shot", "the answer is for shot: %s" % a.get("ammo"))
        m, aim, imp = r.get("mortar1") or {}, q.get("at"), a.get("impact")
        check(aim is not None and math.hypot(aim[0] - AIM[0], aim[1] - AIM[1]) < 0.25,
              "the aim point is where the table was tapped: %s" % aim)
        ok = False
        if aim and imp and "x" in m:
            d = math.hypot(aim[0] - m["x"], aim[1] - m["y"])
            want = [aim[0] + 2 * (aim[0] - m["x"]) / d, aim[1] + 2 * (aim[1] - m["y"]) / d]
            ok = math.hypot(imp[0] - want[0], imp[1] - want[1]) <= 0.02
        check(ok, "clock 12, distance 2: it lands 2\" beyond the aim point along the line of fire: %s from %s"
              % (imp, aim))
        check("shot lands at" in r.get("card", ""), "the card says shot: %r" % r.get("card"))
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        check.screenshots(out, ("phone-ammo",))
    finally:
        srv.end(check)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
