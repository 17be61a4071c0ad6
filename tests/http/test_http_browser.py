#!/usr/bin/env python3
"""test_http_browser.py - the live table page in a real Chromium at phone
size, against a real 'tabletrack track --http' on the breach sample: tap a
shooter and a target, read the answer card, see the line of fire on the
projector image, trace a building on the table picture and save, and see a
later line of sight blocked by it; then the recording holds the questions.
Screenshots are kept in the build folder (tests/http/*.png).

usage: test_http_browser.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make test' installs both)."""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    srv = Server(binary, root)
    check = Checks()

    try:
        p = subprocess.run(["node", os.path.join(HERE, "browser.js"), srv.url,
                            os.path.join(root, "samples/breach/projector.json"), srv.overlay_dir, out],
                           capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        # a private rallies nobody in Into the Breach! (only command figures, L112)
        check(set(r.get("menu", [])) >= {"fire", "los", "move", "charge", "visibility"} and
              not set(r.get("menu", [])) & {"grape", "ball", "deviate", "command"},
              "tapping a musketeer offers what a musket allows: %s" % r.get("menu"))
        check(set(r.get("gun_menu", [])) >= {"fire", "grape", "ball"}, "a gun offers grape and ball: %s" % r.get("gun_menu"))
        check("deviate" in r.get("mortar_menu", []) and "grape" not in r.get("mortar_menu", []),
              "a mortar is aimed at a spot: %s" % r.get("mortar_menu"))
        check(r.get("inch_die_hidden_first") is True and r.get("inch_die_shown_when_long") is True,
              "the die of inches is asked for only when the shell goes long or short")
        dev = r.get("deviate_shown") or {}
        check(dev.get("query", {}).get("dice") == {"long_short": 6, "long_short_in": 2, "left_right": 3},
              "the dice typed are sent: %s" % dev.get("query"))
        imp, aim = (dev.get("answer") or {}).get("impact"), r.get("aim")
        check(imp is not None and aim is not None and 1.9 < ((imp[0] - aim[0]) ** 2 + (imp[1] - aim[1]) ** 2) ** 0.5 < 2.1,
              "the shell lands 2\" long of the aim point: %s from %s" % (imp, aim))
        check("lands at" in r.get("deviate_card", ""), "the card says where it lands: %r" % r.get("deviate_card"))
        check("to contact" in r.get("charge_card", "") or "Charge" in r.get("charge_card", ""),
              "the charge card: %r" % r.get("charge_card"))
        uf = r.get("unit_fire") or {}
        check(uf.get("shots", 0) >= 1 and uf.get("drawn") == uf.get("shots"),
              "a unit's fire draws every firer's line to its target: %s" % uf)
        lk = r.get("looks") or {}
        check(lk.get("answers", 0) >= 3 and lk.get("with_look") == lk.get("answers") and
              lk.get("prims", 0) >= 3 and lk.get("drawn") == lk.get("prims"),
              "every answer shown carries its look, and each of its lines and labels is drawn where it says: %s" % lk)
        nk = r.get("new_kind") or {}
        check(nk.get("polyline") == "1,2 3,4 5,2" and nk.get("polyline_colour") == "#cc79a7" and
              nk.get("dashed") not in (None, "none") and nk.get("sector_fill") == "#e69f00" and
              nk.get("ring") == ["7", "8", "0.7", "#f0e442"] and nk.get("label") == "no parley" and
              nk.get("label_colour") == "#d55e00" and nk.get("elements") == 4,
              "an answer of a kind no page knows is drawn from its primitives, by their roles (no tag mask): %s" % nk)
        check(set(r.get("kinds_offered", [])) == {"building", "wall", "hedge", "woods", "hill", "river", "rough",
                                                   "breastworks"},
              "the set-up offers the ruleset's terrain kinds: %s" % r.get("kinds_offered"))
        ed = {t["id"]: t for t in r.get("edited_terrain", [])}
        check(ed.get("rubble", {}).get("kind") == "woods", "a piece's kind is changed: %s" % ed.get("rubble"))
        poly = ed.get("house", {}).get("polygon") or []
        check(ed.get("house", {}).get("kind") == "building" and len(poly) == 4 and
              all(abs(p[0] - q[0]) <= 0.1 and abs(p[1] - q[1]) <= 0.1
                  for p, q in zip(poly, [[26, 4], [30, 4], [30, 7], [26, 7]])),
              "a piece is redrawn, keeping its id and kind: %s" % ed.get("house"))
        card = r.get("fire_card", "")
        check("to hit" in card or "No shot" in card, "the answer card reads as a player would: %r" % card)
        check("range" in card, "the card names the range: %r" % card)
        check("into-the-breach.txt L" in card, "the card cites the rulebook line of its answer: %r" % card)
        check("house:" in r.get("los_card", ""), "a house reading says so on its card: %r" % r.get("los_card"))
        check(r.get("points_checked", 0) >= 3 and r.get("felt_before", 999) < 60 and r.get("felt_after", 0) > 150,
              "the projector image shows the line of fire between them (brightness %s -> %s)"
              % (r.get("felt_before"), r.get("felt_after")))
        check(r.get("saved") is True, "a building traced on the table picture is saved")
        check("Blocked by building-1" in r.get("los_card", ""),
              "a later line of sight is blocked by it: %r" % r.get("los_card"))
        check(r.get("menu_closed") is True, "the question menu closes once the question is asked")
        check(r.get("outside_requests") == [], "the page asks nothing of any other server: %s" % r.get("outside_requests"))
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        for shot in ("phone-table", "phone-menu", "phone-answer", "phone-setup", "phone-blocked", "phone-mortar-menu",
                     "phone-dice", "phone-deviate", "phone-edit", "laptop-table"):
            check(os.path.getsize(os.path.join(out, shot + ".png")) > 10000, "screenshot %s.png" % shot)
        with open(srv.scenario) as fh:
            check(any(t["id"] == "building-1" for t in json.load(fh)["terrain"]), "the scenario file holds it")
    finally:
        rc, _ = srv.stop()
        check(rc == 0, "the server ends cleanly (%d)" % rc)
        db = sqlite3.connect("file:%s?mode=ro" % srv.record, uri=True)
        qs = [json.loads(q) for (q,) in db.execute("SELECT query_json FROM query ORDER BY id")]
        db.close()
        check({"q": "fire", "from": "gren1", "to": "fus1"} in qs and {"q": "los", "from": "gren1", "to": "fus1"} in qs
              and any(q.get("q") == "deviate" and q.get("dice") for q in qs)
              and {"q": "charge", "from": "crew1", "to": "fus1"} in qs,
              "the recording holds the questions asked from the phone: %s" % qs)
        srv.cleanup()
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
