#!/usr/bin/env python3
"""test_referee_browser.py - the referee on the live table page (issue 30),
in a real Chromium on a phone and a laptop (browser_referee.js) against two
real 'tabletrack track --http' servers on the sample game, played as The
Thin Red Line (the breach scenario with that ruleset; its movement chart
gives foot 4", L220):
 A. --phases sets British movement from frame 0: /api/state lists this
    phase's checks (gren2's 5.0" of 4" over; gren1, light, 5.2" of 6") and where Next goes; the turn
    bar says so, the over-move is listed first; Next without the key is a
    card with the server's 403 and changes nothing; with it the French move
    and the fusilier taken off is a casualty card; at the turn's end the
    page asks who won the initiative; a phase picked directly; a phase the
    ruleset does not know refused, naming its phases;
 B. no --phases: "Start the game", the initiative asked, turn 1 set.
Screenshots in the build folder: {phone,laptop}-referee-*.png.

usage: test_referee_browser.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make deps' installs both)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DOT = "\u00b7"


def trl_scenario(root, out):
    """The breach sample's scenario as The Thin Red Line: its weapons
    renamed to that book's (a gun, a howitzer, muskets); gren1 a light
    infantryman (6", L220), the first to move, so a fair move comes before
    the over-moves."""
    sc = json.load(open(os.path.join(root, "samples/breach/scenario.json")))
    sc["ruleset"] = "thin-red-line"
    rename = {"artillery": "light-artillery", "mortar": "howitzer", "grenade": "musket"}
    for f in sc["figures"]:
        f["weapon"] = rename.get(f["weapon"], f["weapon"])
        if f["id"] == "gren1":
            f["type"] = "light"
    with open(out, "w") as f:
        json.dump(sc, f)


def judge_api(check, s):
    checks = {c["id"]: c for c in s.get("checks") or []}
    g1, g2 = checks.get("gren1") or {}, checks.get("gren2") or {}
    check(g2.get("event") == "move_check" and g2.get("ok") is False and g2.get("allowed_in") == 4 and
          abs(g2.get("distance_in", 0) - 5.0) < 0.05 and "thin-red-line.txt L220" in g2.get("rule", ""),
          "/api/state checks: gren2 moved 5.0\" of foot's 4\" (L220), over: %s" % g2)
    check(g1.get("ok") is True and g1.get("allowed_in") == 6 and abs(g1.get("distance_in", 0) - 5.22) < 0.05,
          "/api/state checks: gren1, light infantry, moved 5.2\" of 6\": fair: %s" % g1)
    check([c["id"] for c in s.get("checks") or []][:2] == ["gren1", "gren2"], "in the order they came: %s"
          % [c["id"] for c in s.get("checks") or []])
    check(s.get("phase") == {"turn": 1, "phase": "movement", "side": "british"} and
          s.get("next_phase") == {"turn": 1, "phase": "movement", "side": "french"},
          "/api/state: British movement, Next goes to the French: %s -> %s" % (s.get("phase"), s.get("next_phase")))
    check(s.get("calls") == [], "no calls before the phase ends: %s" % s.get("calls"))
    g2_lines = [p for p in g2.get("look") or [] if p.get("kind") == "polyline" and p.get("role") == "blocked"]
    check(any(p.get("dashed") and abs(p["points"][0][0] - g2["from"][0]) < 0.05 and abs(p["points"][0][1] - g2["from"][1]) < 0.05
              for p in g2_lines),
          "/api/state: gren2's over-move carries its look, a dashed blocked path from where it stood: %s" % g2.get("look"))
    check(all(c.get("event") in ("move_check", "charge_check", "out_of_turn") and not c.get("put_back")
              for c in s.get("checks") or []), "the checks are checks, none put back: %s" % s.get("checks"))
    return checks


def judge_list(check, name, v, api_checks):
    check(v.get("bar") and v.get("text") == "Turn 1 %s British %s movement" % (DOT, DOT) and v.get("next") and
          not v.get("start") and v.get("bar_in_view"),
          "%s: the turn bar says Turn 1 · British · movement, with Next, on screen: %s" % (name, v.get("text")))
    listed = v.get("checks") or []
    check(len(listed) == len(api_checks) and listed and listed[0]["id"] == "gren2" and "over" in listed[0]["cls"] and
          listed[-1]["id"] == "gren1" and "fair" in listed[-1]["cls"],
          "%s: every check listed, the over-moves first, gren1's fair move (it came first) last: %s"
          % (name, [c["id"] for c in listed]))
    check(listed and listed[0]["big"] == 'gren2 5.0" of 4" \u2014 1.0" over' and
          listed[-1]["big"] == 'gren1 5.2" of 6"',
          "%s: it says how far over: %r, %r" % (name, listed and listed[0]["big"], listed and listed[-1]["big"]))
    over = [c for c in api_checks.values() if c.get("ok") is False]
    check(v.get("over_moves", 0) >= len(over) > 0,
          "%s: the board draws each over-move as the felt does, a dashed blocked path: %s drawn for %d over"
          % (name, v.get("over_moves"), len(over)))
    ranks = ["over", "out", "close", "roll", "fair"]
    order = [next(i for i, k in enumerate(ranks) if k in c["cls"].split()) for c in listed]
    check(order == sorted(order), "%s: over-moves, then out of turn, then the rest: %s" % (name, order))


def judge(check, r):
    judge_list(check, "phone", r.get("phone_end") or {}, r.get("api_checks") or {})
    judge_list(check, "laptop", r.get("laptop_end") or {}, r.get("api_checks") or {})
    for name in ("laptop_nokey", "phone_nokey"):
        t = [c for c in (r.get(name) or {}).get("troubles") or [] if c["key"] == "phase"]
        check(len(t) == 1 and "needs the table\u2019s key" in t[0]["big"] and
              "this changes the game and needs the table's key" in t[0]["small"] and t[0]["in_view"],
              "%s: Next without the key: a card saying the key is needed, with the server's answer: %s" % (name, t))
    check(r.get("phase_after_nokey") == {"turn": 1, "phase": "movement", "side": "british"},
          "Next without the key changed nothing: %s" % r.get("phase_after_nokey"))
    fr = r.get("phone_french") or {}
    calls = fr.get("calls") or []
    check(fr.get("text") == "Turn 1 %s French %s movement" % (DOT, DOT) and fr.get("checks") == [],
          "Next with the key: the French move, the list starts empty: %s %s" % (fr.get("text"), fr.get("checks")))
    check(any(c["unit"] == "la-sarre" and c["event"] == "casualties" and c["big"] == "la-sarre lost 1 of 4"
              for c in calls), "the fusilier taken off: a casualty card for la-sarre: %s" % calls)
    fs = r.get("french_state") or {}
    fs_calls = [{k: v for k, v in c.items() if k != "look"} for c in fs.get("calls") or []]
    check(all("look" in c for c in fs.get("calls") or []), "each call carries its look: %s" % fs.get("calls"))
    check(fs.get("checks") == [] and fs_calls == [{"event": "casualties", "unit": "la-sarre", "lost": 1, "of": 4,
                                                           "since_turn_start": 1}],
          "/api/state: a new phase empties the checks; the casualty is this turn's call: %s %s"
          % (fs.get("checks"), fs_calls))
    t2 = r.get("turn2_state") or {}
    check(t2.get("calls") == [] and t2.get("checks") == [] and
          t2.get("next_phase") == {"turn": 2, "phase": "movement", "side": "british"},
          "/api/state: a new turn drops the last turn's calls; Next goes to the British: %s %s"
          % (t2.get("calls"), t2.get("next_phase")))
    check(len(r.get("steps") or []) == 4, "Next through shooting and assault, each side in turn: %s" % r.get("steps"))
    ini = r.get("initiative") or {}
    check("Turn 2: who won the initiative roll?" in (ini.get("ask") or "") and ini.get("ask_sides") == ["British", "French"],
          "after the last phase the page asks who won the initiative: %r %s" % (ini.get("ask"), ini.get("ask_sides")))
    check(r.get("phase_while_asking") == {"turn": 1, "phase": "assault", "side": "french"},
          "asking changed nothing yet: %s" % r.get("phase_while_asking"))
    check((r.get("turn2") or {}).get("text") == "Turn 2 %s French %s movement" % (DOT, DOT),
          "the French won it: turn 2 starts with them: %s" % (r.get("turn2") or {}).get("text"))
    check((r.get("picked") or {}).get("text") == "Turn 2 %s British %s shooting" % (DOT, DOT),
          "a phase picked directly: %s" % (r.get("picked") or {}).get("text"))
    t = [c for c in (r.get("unknown_phase") or {}).get("troubles") or [] if c["key"] == "phase"]
    check(len(t) == 1 and '"melee" is not a phase of thin-red-line: its phases are movement, shooting, assault'
          in t[0]["small"], "a phase the book does not know: a card naming its phases: %s" % t)
    check(r.get("phase_after_unknown") == {"turn": 2, "phase": "shooting", "side": "british"},
          "and the game stays where it was: %s" % r.get("phase_after_unknown"))
    st = r.get("start") or {}
    check(st.get("bar") and st.get("start") and not st.get("next") and st.get("checks") == [],
          "no phase yet: Start the game, no Next, nothing checked: %s" % {k: st.get(k) for k in ("text", "start", "next")})
    sa = r.get("start_ask") or {}
    check("Turn 1: who won the initiative roll?" in (sa.get("ask") or "") and sa.get("ask_sides") == ["British", "French"],
          "Start the game asks who won the initiative: %r" % sa.get("ask"))
    check(r.get("started_state") == {"turn": 1, "phase": "movement", "side": "british"} and
          (r.get("started") or {}).get("text") == "Turn 1 %s British %s movement" % (DOT, DOT),
          "the British won it: turn 1 starts: %s" % r.get("started_state"))


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    check = Checks()
    with tempfile.TemporaryDirectory() as d:
        scen = os.path.join(d, "scenario.json")
        trl_scenario(root, scen)
        phases = os.path.join(d, "phases.jsonl")
        with open(phases, "w") as f:
            f.write('{"frame": 0, "turn": 1, "phase": "movement", "side": "british"}\n')
        a = Server(binary, root, scenario_file=scen, extra=["--phases", phases])
        b = None
        try:
            # the sample game played to its end (as long as a hang guard allows: a starved machine
            # plays it slowly); server B only then, so the two do not share the cores meanwhile
            s = a.wait_state(lambda s: s["camera"] == "ended", timeout=HANG_S)
            b = Server(binary, root, scenario_file=scen, projector=False)
            api_checks = judge_api(check, s)
            p = subprocess.run(["node", os.path.join(HERE, "browser_referee.js"), a.url, b.url, out],
                               capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
            r = page_result(p, hide=lambda k: k.endswith("state") or k == "state_end")
            r["api_checks"] = api_checks
            print(json.dumps({"api_checks": api_checks}))
            check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
            judge(check, r)
            check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
            check.screenshots(out, ["phone-referee-checks", "laptop-referee-checks", "laptop-referee-nokey",
                                    "phone-referee-nokey", "phone-referee-calls", "phone-referee-initiative",
                                    "phone-referee-unknown", "phone-referee-start", "laptop-referee-end"])
            # the felt: the over-move's path and words were drawn (the projector's frames)
            frames = sorted(f for f in os.listdir(a.overlay_dir) if f.endswith(".png"))
            check(len(frames) > 0, "the projector's frames were written: %d" % len(frames))
        finally:
            if b:
                b.end(check)
            a.end(check)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
