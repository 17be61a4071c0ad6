#!/usr/bin/env python3
"""test_state_phase.py - /api/state says where the game stands: "phase" is
null until a phase is set, then {"turn", "phase", "side"} as the --phases
lines set it (the sample game, Into the Breach!: British actions from frame
0, the morale phase from frame 110, its side null) or POST /api/phase does
(with the key; Next before a phase, an unknown phase or side refused).

usage: test_state_phase.py TABLETRACK SOURCE_ROOT"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "http"))
from tt_server import Server  # noqa: E402


def main():
    binary, root = sys.argv[1], sys.argv[2]
    ok = True

    def check(c, what):
        nonlocal ok
        print(("ok: " if c else "FAIL: ") + what)
        ok &= bool(c)

    srv = Server(binary, root, projector=False)
    s = srv.wait_state(lambda s: s["camera"] == "ended", timeout=400)
    check("phase" in s and s["phase"] is None, "no --phases: \"phase\" is null: %s" % s.get("phase", "absent"))
    st, j = srv.json("POST", "/api/phase", '{"next": true}')
    check(st == 403 and "needs the table's key" in j.get("error", ""), "Next without the key: 403 %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"next": true}', key="testkey")
    check(st == 400 and "no phase is set yet" in j.get("error", ""), "Next before a phase: %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"phase": "melee", "side": "british"}', key="testkey")
    check(st == 404 and "its phases are actions, morale" in j.get("error", ""), "unknown phase: %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"phase": "actions", "side": "prussian"}', key="testkey")
    check(st == 404 and "its sides are british, french" in j.get("error", ""), "unknown side: %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"phase": "actions", "sid": "british"}', key="testkey")
    check(st == 400 and 'unknown key "sid"' in j.get("error", ""), "unknown key: %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"turn": 2, "phase": "actions", "side": "french"}', key="testkey")
    check(st == 200 and j == {"turn": 2, "phase": "actions", "side": "french"}, "set: %s %s" % (st, j))
    st, j = srv.json("POST", "/api/phase", '{"next": true}', key="testkey")
    check(st == 200 and j == {"turn": 2, "phase": "actions", "side": "british"}, "Next: %s %s" % (st, j))
    s = srv.json("GET", "/api/state")[1]
    check(s["phase"] == {"turn": 2, "phase": "actions", "side": "british"}, "the state says so: %s" % s["phase"])
    rc, _ = srv.stop()
    check(rc == 0, "the server ends cleanly (%d)" % rc)

    with tempfile.TemporaryDirectory() as d:
        phases = os.path.join(d, "phases.jsonl")
        with open(phases, "w") as f:
            f.write('{"frame": 0, "phase": "actions", "side": "british"}\n{"frame": 110, "phase": "morale"}\n')
        srv = Server(binary, root, projector=False, extra=["--phases", phases])
        s = srv.wait_state(lambda s: s["camera"] == "ended", timeout=400)
        check(s["phase"] == {"turn": 1, "phase": "morale", "side": None}, "at the end, the morale phase: %s" % s["phase"])
        rc, _ = srv.stop()
        check(rc == 0, "the server ends cleanly (%d)" % rc)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
