#!/usr/bin/env python3
"""test_zoom_browser.py - the live table page in a player's hand, on a
tracked 100-figure 72x48 table (tt-render draws the camera's 1080p frame;
'tabletrack track --http' tracks it): fat-finger picking in the most crowded
spots at the default zoom and zoomed, a pinch, a pan and Fit as touch
events, the figure picked listed by /api/state and ringed on the projector
image, a wall traced zoomed with a snapped corner and a dragged one, a line
of sight blocked by it; then a laptop's wheel zoom, mouse drag and click.
Screenshots are kept in the build folder (tests/http/zoom-*.png).

usage: test_zoom_browser.py TABLETRACK TT_RENDER SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make test' installs both)."""
import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FIGURES = 100


def seg_dist(p, a, b):
    """Distance from point p to segment ab."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    u = max(0, min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy)))
    return math.hypot(a[0] + u * dx - p[0], a[1] + u * dy - p[1])


def make_table(render, out):
    """The rendered table, its scenario (with a barn beside the line of
    sight from a to b), a projector.json, and the plan for the wall."""
    scene = os.path.join(out, "zoom-scene")
    if not os.path.exists(os.path.join(scene, "truth.json")):
        subprocess.run([render, "--out", scene, "--width", "1920", "--height", "1080", "--f-px", "1450",
                        "--bases", str(FIGURES), "--base-size", "1.4", "--out-format", "pgm", "--seed", "7",
                        "--quiet"], check=True)
    truth = json.load(open(os.path.join(scene, "truth.json")))
    pos = {f["id"]: (f["x"], f["y"]) for f in truth["figures"]}
    figs, tags = [], {}
    for i, f in enumerate(truth["figures"]):
        fid = "f%d" % f["id"]
        figs.append({"id": fid, "side": "british" if f["x"] < 36 else "french", "unit": "u%d" % (i // 5), "type": "foot",
                     "weapon": "musket", "x": f["x"], "y": f["y"], "facing_deg": f["facing_deg"]})
        tags[str(f["id"])] = fid
    # a and b: 12-30" apart, nothing within 2" of the line between them,
    # room for the barn (3x3" from 2" beside the line's middle) on the table
    plan = None
    ids = sorted(pos)
    for ia in ids:
        for ib in ids:
            a, b = pos[ia], pos[ib]
            L = math.hypot(b[0] - a[0], b[1] - a[1])
            if ia >= ib or not 12 <= L <= 30:
                continue
            al = ((b[0] - a[0]) / L, (b[1] - a[1]) / L)
            ac = (-al[1], al[0])
            m = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            c = (m[0] + 2 * ac[0], m[1] + 2 * ac[1])
            barn = [c, (c[0] + 3 * al[0], c[1] + 3 * al[1]), (c[0] + 3 * al[0] + 3 * ac[0], c[1] + 3 * al[1] + 3 * ac[1]),
                    (c[0] + 3 * ac[0], c[1] + 3 * ac[1])]
            wall_end = (c[0] - 4 * ac[0], c[1] - 4 * ac[1])
            if not all(4 < p[0] < 68 and 4 < p[1] < 44 for p in barn + [wall_end]):
                continue
            if any(k not in (ia, ib) and seg_dist(pos[k], a, b) < 2 for k in ids):
                continue
            if any(math.hypot(pos[k][0] - p[0], pos[k][1] - p[1]) < 2 for k in ids for p in barn + [wall_end]):
                continue
            plan = {"a": "f%d" % ia, "b": "f%d" % ib, "corner": [round(c[0], 2), round(c[1], 2)],
                    "along": list(al), "across": list(ac)}
            barn = [[round(p[0], 2), round(p[1], 2)] for p in barn]
            break
        if plan:
            break
    if plan is None:
        raise SystemExit("no clear line of sight on the rendered table: change the seed")
    plan["corner"] = barn[0]
    plan["ring_in"] = 1.4 * 2.1 * math.sqrt(0.5) + 0.1  # overlay_tag_ring_in(1.4)
    scenario = os.path.join(scene, "scenario.json")
    with open(scenario, "w") as fh:
        json.dump({"ruleset": "into-the-breach", "table": {"width_in": 72, "depth_in": 48},
                   "terrain": [{"id": "barn", "kind": "building", "polygon": barn}],
                   "figures": figs, "tags": tags}, fh)
    seq = os.path.join(scene, "seq")
    os.makedirs(seq, exist_ok=True)
    for i in range(3):
        link = os.path.join(seq, "f%d.pgm" % i)
        if not os.path.lexists(link):
            os.symlink("../frame.pgm", link)
    projector = os.path.join(scene, "projector.json")
    with open(projector, "w") as fh:  # 25 px per inch
        json.dump({"width": 1920, "height": 1280, "table_to_projector": [[25, 0, 60], [0, 25, 40], [0, 0, 1]]}, fh)
    return scene, scenario, projector, plan


def main():
    binary, render, root, out = sys.argv[1:5]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    scene, scenario, projector, plan = make_table(render, out)
    srv = Server(binary, root, rig=os.path.join(scene, "rig.json"), source=os.path.join(scene, "seq", "*.pgm"),
                 scenario_file=scenario, projector=projector)
    check = Checks()
    try:
        p = subprocess.run(["node", os.path.join(HERE, "browser_zoom.js"), srv.url, projector, srv.overlay_dir, out,
                            json.dumps(plan)], capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        check(r.get("figures", 0) >= FIGURES - 2, "the table tracks %s of %d figures" % (r.get("figures"), FIGURES))

        lf = r.get("labels_fit", {})
        check(lf.get("shown", 0) >= 10 and lf.get("overlaps") == 0,
              "at fit, names never lie on each other (%s shown, %s overlaps)" % (lf.get("shown"), lf.get("overlaps")))
        lz = r.get("labels_zoomed", {})
        hs = lf.get("heights", []) + lz.get("heights", [])
        check(hs and min(hs) >= 11 and max(hs) <= 18, "names are 11-18 px high at every zoom: %s..%s"
              % (min(hs) if hs else None, max(hs) if hs else None))

        taps = r.get("fit_taps", [])
        named = [t for t in taps if t["direct"] or (t["listed"] and t["chosen"])]
        check(len(taps) == 10 and len(named) == 10,
              "default zoom, the 10 most crowded figures (gaps %s in): a tap 4 px off names each, directly or in "
              "a chooser: %d of %d" % (r.get("crowded_gaps_in"), len(named), len(taps)))
        check(any(t["listed"] for t in taps) and all(t["nearest_first"] for t in taps if t["listed"]),
              "the chooser lists the figure tapped first (nearest first): %s" % taps)

        fa = r.get("fit_all", {})
        sizes = sorted(fa.get("chooser_sizes", [])) or [0]
        check(fa.get("taps", 0) >= FIGURES - 2 and fa.get("named") == fa.get("taps"),
              "default zoom, every figure: a tap 4 px off toward its nearest neighbour names it: %s of %s "
              "(%s directly; choosers of %s-%s, median %s)" % (fa.get("named"), fa.get("taps"), fa.get("direct"),
                                                               sizes[0], sizes[-1], sizes[len(sizes) // 2]))
        check(r.get("pinch_zoom", 0) >= 7.9, "a pinch 40 -> 320 px zooms to 8x: %s" % r.get("pinch_zoom"))
        check(r.get("pinch_drift_px", 99) <= 2, "the figure under the fingers stays there: %.2f px"
              % r.get("pinch_drift_px", 99))
        zt = r.get("zoom_taps", [])
        check(len(zt) >= 8 and all(t["ok"] for t in zt),
              "zoomed, a tap 8 px beside a crowded figure opens its menu: %d of %d" % (sum(t["ok"] for t in zt), len(zt)))
        check(zt and all(t["picked"] == [t["id"]] for t in zt), "/api/state lists it in picked: %s" % zt)
        ring = r.get("pick_ring", {})
        check(ring.get("before") == 0 and ring.get("after", 0) > 60,
              "the projector rings the figure picked: yellow pixels around it %s -> %s"
              % (ring.get("before"), ring.get("after")))
        check(r.get("picked_after_close") == [] and r.get("pick_ring_after_close") == 0,
              "closing the menu withdraws the pick (DELETE /api/pick) and the ring: %s, %s"
              % (r.get("picked_after_close"), r.get("pick_ring_after_close")))
        pm = r.get("pan_moved_px", [0, 0])
        check(abs(pm[0] - 80) <= 1 and abs(pm[1] - 40) <= 1, "a one-finger drag pans the table with it: %s" % pm)
        check(r.get("pan_menu_open") is False, "a pan opens nothing")
        check(r.get("fit_zoom") == 1, "Fit shows the whole table: zoom %s" % r.get("fit_zoom"))

        check(r.get("setup_zoom", 0) >= 5.5, "set-up zoomed by a pinch: %s" % r.get("setup_zoom"))
        tr = r.get("trace") or []
        check(tr and tr[0] == plan["corner"], "the first corner, tapped 5 px off the barn's, snaps onto it: %s vs %s"
              % (tr[:1], plan["corner"]))
        check(abs(r.get("drag_moved_in", 0) - 30 / (r.get("px_per_inch_fit", 1) * r.get("setup_zoom", 1))) < 0.05,
              "a placed corner is dragged: %.3f in" % r.get("drag_moved_in", 0))
        c, al, ac = plan["corner"], plan["along"], plan["across"]
        want = [c, [c[0] + al[0], c[1] + al[1]], [c[0] + al[0] - 4 * ac[0], c[1] + al[1] - 4 * ac[1]],
                [c[0] - 4 * ac[0], c[1] - 4 * ac[1]]]
        poly = (r.get("wall") or {}).get("polygon") or []
        check(r.get("saved") == "Saved." and len(poly) == 4 and
              all(math.hypot(p[0] - q[0], p[1] - q[1]) <= 0.05 for p, q in zip(poly, want)),
              "the wall traced zoomed is saved where it was tapped (0.05\"): %s" % poly)
        check(r.get("search_hint", "").startswith(plan["a"] + " \u00b7 foot \u00b7 u") and r.get("search_zoom", 0) >= 4,
              "the search box finds a figure, names it (id, type, unit) and shows it close up: %r at %s"
              % (r.get("search_hint"), r.get("search_zoom")))
        check("Blocked by building-1" in r.get("los_card", ""),
              "a later line of sight across the wall is blocked by it: %r" % r.get("los_card"))

        check(r.get("wheel_zoom", 0) > 2.5 and r.get("wheel_drift_px", 99) <= 1.5,
              "laptop: the wheel zooms about the pointer (%s, %.2f px)" % (r.get("wheel_zoom"), r.get("wheel_drift_px", 99)))
        mp = r.get("mouse_pan_px", [0, 0])
        check(abs(mp[0] + 120) <= 1 and abs(mp[1] + 60) <= 1 and r.get("mouse_pan_menu_open") is False,
              "laptop: a drag pans, and opens nothing: %s" % mp)
        lc = r.get("laptop_click", {})
        check(lc.get("hint", "").startswith(str(lc.get("id")) + " \u00b7") and not lc.get("choices"),
              "laptop: a click 8 px beside a figure opens its menu: %s" % lc)
        check(r.get("laptop_picked") == [lc.get("id")], "... and it is picked: %s" % r.get("laptop_picked"))
        check(r.get("laptop_fit_zoom") == 1, "laptop: Fit")
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        check.screenshots(out, ("zoom-phone-fit", "zoom-phone-chooser", "zoom-phone-menu", "zoom-phone-setup",
                                "zoom-phone-search", "zoom-phone-blocked", "zoom-laptop"))
    finally:
        srv.end(check)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
