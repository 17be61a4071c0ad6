#!/usr/bin/env python3
"""test_replay_turns.py - the replay page of a game played with the
referee's phases (issue 30), in Chromium: the held-out game
(tests/referee/heldout: rendered frames, scripted phases, two turns of Into
the Breach!) tracked with --phases and recorded, then 'replay --html'.  The
timeline marks each turn (T1, T2) and each phase where it began; the log
has a line a turn; Page Down / Page Up, the Turn buttons and a click on a
turn jump to its start; beside the clock and in #tt-state, where the game
stands; on the table, the checks as the felt showed them (an over-move's
path and words, cleared by the next phase).  Screenshots are kept in the build folder (replay-turns-*.png).

usage: test_replay_turns.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make test' installs both)."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "http"))
from tt_checks import Checks, browser_missing, page_result  # noqa: E402

DOT = "\u00b7"


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    check = Checks()
    tmp = tempfile.mkdtemp(prefix="tt-replay-turns-")
    try:
        h = os.path.join(root, "tests/referee/heldout")
        rec, html = os.path.join(tmp, "game.sqlite"), os.path.join(tmp, "replay.html")
        env = dict(os.environ, TABLETRACK_DATA=root)
        subprocess.run([binary, "track", "--rig", os.path.join(h, "rig.json"), "--source", os.path.join(h, "game.mp4"),
                        "--scenario", os.path.join(root, "samples/breach/scenario.json"), "--grace", "15",
                        "--phases", os.path.join(h, "phases.jsonl"), "--record", rec], check=True,
                       capture_output=True, timeout=600, env=env)
        subprocess.run([binary, "replay", rec, "--html", html], check=True, capture_output=True, timeout=120)
        p = subprocess.run(["node", os.path.join(HERE, "replay_turns.js"), html, out], capture_output=True,
                           text=True, timeout=300)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        d = r.get("data") or {}
        ref = d.get("referee") or {"phases": [], "log": []}
        t0, t1 = d.get("t0", 0), d.get("t1", 1)
        phases, log = ref["phases"], ref["log"]
        check(len(phases) == 6, "the six phases of the script are in the data: %s" % phases)
        check([l["turn"] for l in log] == [1, 2], "a log line for each of the two turns: %s" % log)
        marks = r.get("marks") or []
        turns = [m for m in marks if m["cls"] == "turn"]
        check([m["label"] for m in turns] == ["T1", "T2"], "the timeline marks turns T1 and T2: %s" % turns)
        check(len(marks) == len([x for x in phases if t0 <= x["t"] <= t1]),
              "a mark for every phase in the replay (%d marks)" % len(marks))
        for m, x in zip(marks, phases):
            want = (x["t"] - t0) / max(1, t1 - t0)
            check(abs(m["frac"] - want) < 0.03 and m["visible"],
                  "turn %d %s's mark sits where it began along the slider (%.3f, want %.3f)"
                  % (x["turn"], x["phase"], m["frac"], want))
        check(any(m["title"] == "Turn 2 %s french %s actions" % (DOT, DOT) for m in marks),
              "a mark says where the game stood: %s" % [m["title"] for m in marks])
        shown = r.get("log") or []
        check([s["text"] for s in shown] == [l["text"] for l in log], "the log shows the story's lines: %s" % shown)
        t1_text = log[0]["text"] if log else ""
        for piece in ("Turn 1 %s british moved 3 figures" % DOT, "gren1 needs 3+, gren1 out of turn",
                      "gren3 1.0\" over", "gren4 1.0\" over", "french moved 2 figures, fus2 out of turn",
                      "french lost 2 of la-sarre: morale 8+ (L8-16)"):
            check(piece in t1_text, "turn 1's line says %r: %s" % (piece, t1_text))
        t2_text = log[1]["text"] if len(log) > 1 else ""
        check(t2_text == "Turn 2 %s french moved 1 figure; french lost 1 of la-sarre: morale 10+ (L8-16)" % DOT,
              "turn 2's line: %s" % t2_text)
        check(r.get("buttons") == [True, True], "the Turn buttons are shown")
        turn_t = [max(t0, l["t"]) for l in log]

        def at(key, turn, phase_text):
            s = r.get(key) or {}
            check(len(turn_t) == 2 and s.get("now") == turn_t[turn - 1] and s.get("active") == turn - 1 and
                  (s.get("probe_phase") or {}).get("turn") == turn and s.get("phase_text") == phase_text,
                  "%s: at turn %d's start, %r beside the clock, its log line marked: %s" % (key, turn, phase_text, s))

        first = "Turn 1 %s british %s actions" % (DOT, DOT)
        second = "Turn 2 %s french %s actions" % (DOT, DOT)
        at("start", 1, first)
        at("after_pagedown", 2, second)
        at("after_pagedown2", 2, second)
        at("after_pageup", 1, first)
        at("after_next_button", 2, second)
        at("after_log_click", 1, first)
        mid = r.get("mid_phase") or {}
        check(mid.get("phase_text") == "Turn 1 %s french %s actions" % (DOT, DOT),
              "in the second activation the page says so: %s" % mid)
        ph = r.get("phone") or {}
        check(ph.get("timeline_width", 0) >= 0.9 and ph.get("turn_marks") == 2 and ph.get("marks_inside"),
              "on a phone the timeline takes the width with its turn marks: %s" % ph)
        # turn 1 has over-moves (gren3 and gren4 1.0" over): the table shows them as the felt did
        om = r.get("over_move") or {}
        check({"line", "polyline"} & set(om.get("blocked", [])) and "text" in om.get("blocked", []),
              "after an over-move the table draws its path and words as the felt did (blocked): %s" % om)
        check(om.get("next_phase_blocked") == [], "a new phase clears them: %s" % om.get("next_phase_blocked"))
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        for shot in ("replay-turns-laptop", "replay-turns-laptop-turn2", "replay-turns-laptop-over", "replay-turns-phone"):
            f = os.path.join(out, shot + ".png")
            check(os.path.exists(f) and os.path.getsize(f) > 10000, "screenshot %s.png" % shot)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
