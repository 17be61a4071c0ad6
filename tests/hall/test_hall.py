#!/usr/bin/env python3
"""test_hall.py BIN ROOT REC_SAMPLE CASE - the convention hall against a real
mosquitto started here on a free loopback port (and stopped at the end):

  live        one live table (track --mqtt on the breach video) into a hall:
              the hall's copy equals the table's recording; /api/tables, the page
  broker      a replayed table; the broker killed (-9) and restarted mid-game:
              the copy still equals the recording
  hall        the same with the hall killed (-9) and restarted mid-game
  password    a wrong password: the hall stops with a clear error; a table keeps
              playing and recording, and says what is undelivered; the right
              password gathers the game
  twelve      twelve replayed tables at once: every copy equal, /api/tables
              p95 under 0.5 s while they publish
  acl         the shipped samples/hall/hall.acl: a table writes its own topics,
              and what it writes as another table never reaches the hall
  page        the hall page in Chromium at 390x844 and 1400x900 while three
              tables publish (screenshots in OUT_DIR, the 5th argument)

Exit 77 (skipped) only when the mosquitto binary is not installed."""
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hall_util as U  # noqa: E402

TT, ROOT, SAMPLE, CASE = [os.path.abspath(a) for a in sys.argv[1:4]] + [sys.argv[4]]
FAILS = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILS.append(what)


def sample(dir, name):
    """The record tests' fixture game (20 s, 200 frames, events, queries) as name.sqlite."""
    path = os.path.join(dir, name + ".sqlite")
    subprocess.run([SAMPLE, path], check=True)
    return path


def replay(dir, broker, path, table, speed, env=None, extra=()):
    return U.Proc([TT, "replay", path, "--mqtt", broker.addr, "--table", table, "--speed", str(speed)] + list(extra),
                  dir, "replay-" + table, env)


def delivered(r, rec, copy, when):
    """The table r exits 0 and the hall's copy equals its recording rec."""
    rc = r.wait(90)
    check(rc == 0, "%s: the table exits 0 once the hall holds the game (rc %s): %s" % (when, rc, r.stderr()[-600:]))
    d = U.wait_equal(rec, copy, 30)
    check(not d, "%s: the hall's copy equals the recording, row for row: %s" % (when, d))
    return r.stderr()


def case_live(dir, broker):
    games = os.path.join(dir, "games")
    hall = U.start_hall(TT, broker, dir, games)
    try:
        check(os.path.isdir(games), "the hall made --dir")
        rec = os.path.join(dir, "table.sqlite")
        b = os.path.join(ROOT, "samples/breach")
        t = U.Proc([TT, "track", "--rig", b + "/rig.json", "--source", b + "/game.mp4", "--scenario",
                    b + "/scenario.json", "--record", rec, "--mqtt", broker.addr, "--table", "table-1"],
                   dir, "track", {"TABLETRACK_DATA": ROOT})
        seen = None
        deadline = time.time() + 60
        while time.time() < deadline and t.proc.poll() is None:
            tables = U.get_json(hall.url + "api/tables")
            if tables and tables[0].get("frame") is not None and tables[0]["connected"]:
                seen = tables[0]
            time.sleep(0.1)
        rc = t.wait(120)
        check(rc == 0, "track --mqtt exits 0 once the hall holds the game (rc %s): %s" % (rc, t.stderr()[-600:]))
        check("the hall's broker holds the whole game" in t.stderr(), "track says the game was delivered")
        d = U.wait_equal(rec, os.path.join(games, "table-1.sqlite"), 20)
        check(not d, "the hall's copy equals the table's recording, row for row: %s" % d)
        rows = U.session_rows(rec)
        check(len(rows["state"]) > 20 and len(rows["event"]) > 0, "the game has states (%d) and events (%d)" % (
            len(rows["state"]), len(rows["event"])))
        check(seen is not None and set(seen) == {"table", "ruleset", "frame", "t_ms", "figures", "connected",
                                                 "last_seen_s"},
              "/api/tables while playing has exactly the contract's keys: %s" % seen)
        check(seen and seen["table"] == "table-1" and seen["ruleset"] == "into-the-breach" and seen["connected"]
              and seen["figures"] > 0 and 0 <= seen["last_seen_s"] < 5, "/api/tables while playing: %s" % seen)
        after = U.get_json(hall.url + "api/tables")[0]
        check(after["connected"] is False, "after the game the table shows as not connected: %s" % after)
        st = U.get_json(hall.url + "tables/table-1/state")
        check(len(st["figures"]) == seen["figures"] or len(st["figures"]) > 0, "the table's last state is served")
        page = urllib.request.urlopen(hall.url, timeout=5).read().decode()
        check("tabletrack hall" in page and "api/tables" in page, "the hall page is served")
        check(urllib.request.urlopen(hall.url + "draw.js", timeout=5).status == 200, "draw.js is served")
        # the replay of the hall's copy reads as the table's own
        a = subprocess.run([TT, "replay", rec, "--json"], capture_output=True, text=True)
        b2 = subprocess.run([TT, "replay", os.path.join(games, "table-1.sqlite"), "--json"], capture_output=True,
                            text=True)
        la, lb = a.stdout.splitlines(), b2.stdout.splitlines()
        check(a.returncode == 0 and b2.returncode == 0 and la[1:] == lb[1:] and len(la) > 10,
              "replay --json of the copy equals the table's, past the header (%d lines)" % len(la))
    finally:
        hall.stop()
    check(hall.proc.returncode == 0, "the hall ends cleanly on SIGTERM (rc %s)" % hall.proc.returncode)


def case_broker(dir, broker):
    games = os.path.join(dir, "games")
    hall = U.start_hall(TT, broker, dir, games)
    try:
        rec = sample(dir, "game")
        r = replay(dir, broker, rec, "t1", 2)
        time.sleep(3)
        broker.kill()
        check(r.proc.poll() is None, "the table goes on while the broker is down")
        time.sleep(2)
        broker.start()
        err = delivered(r, rec, os.path.join(games, "t1.sqlite"), "after the broker's restart")
        check("lost the broker" in err, "the table said it lost the broker: %s" % err[-400:])
    finally:
        hall.stop()


def case_hall(dir, broker):
    games = os.path.join(dir, "games")
    hall = U.start_hall(TT, broker, dir, games)
    rec = sample(dir, "game")
    r = replay(dir, broker, rec, "t1", 2)
    try:
        time.sleep(3)
        hall.stop(signal.SIGKILL)
        time.sleep(2)
        part = U.session_rows(os.path.join(games, "t1.sqlite"))
        full = U.session_rows(rec)
        check(0 < len(part["state"]) < len(full["state"]), "the hall was killed mid-game (%d of %d states)" % (
            len(part["state"]), len(full["state"])))
        hall = U.start_hall(TT, broker, dir, games, name="hall2")
        delivered(r, rec, os.path.join(games, "t1.sqlite"), "after the hall's restart")
        db = sqlite3.connect(os.path.join(games, "t1.sqlite"))
        check(db.execute("SELECT count(*) FROM session").fetchone()[0] == 1, "one session in the copy, not two")
        db.close()
    finally:
        hall.stop()
        r.stop()


def case_password(dir, broker):
    games = os.path.join(dir, "games")
    wrong = os.path.join(dir, "wrong.txt")
    with open(wrong, "w") as f:
        f.write("not-the-password\n")
    h = U.Proc([TT, "hall", "--mqtt", broker.addr, "--http", "127.0.0.1:0", "--dir", games, "--mqtt-user", "hall",
                "--mqtt-password-file", wrong], dir, "hall-wrong")
    rc = h.wait(30)
    err = h.stderr()
    check(rc == 1, "a hall with a wrong password exits 1 (rc %s)" % rc)
    check("refused user 'hall': wrong user name or password" in err, "it says so: %s" % err)
    check(err.count("refused user") == 1, "once")
    check("not-the-password" not in err, "the password is never printed")
    # a table with the wrong password keeps playing and recording
    rec = os.path.join(dir, "table.sqlite")
    b = os.path.join(ROOT, "samples/breach")
    t = U.Proc([TT, "track", "--rig", b + "/rig.json", "--source", b + "/game.mp4", "--scenario",
                b + "/scenario.json", "--record", rec, "--mqtt", broker.addr, "--table", "t1", "--mqtt-user", "table1"],
               dir, "track-wrong", {"TABLETRACK_DATA": ROOT, "TABLETRACK_MQTT_PASSWORD": "nope"})
    rc = t.wait(120)
    err = t.stderr()
    check(rc == 1, "track with a wrong password ends with exit 1 (rc %s)" % rc)
    check("refused user 'table1': wrong user name or password" in err and "undelivered" in err and
          "tabletrack replay " + rec in err, "it says the broker refused it, what is undelivered and how to send it: %s"
          % err[-800:])
    rows = U.session_rows(rec)
    check(len(rows["state"]) > 20 and rows["session"][0][8] is not None,
          "and recorded the whole game locally (%d states, ended %s)" % (len(rows["state"]), rows["session"][0][8]))
    # no password at all
    t = U.Proc([TT, "replay", rec, "--mqtt", broker.addr, "--table", "t1", "--mqtt-user", "table1"], dir, "nopw",
               {"TABLETRACK_MQTT_PASSWORD": ""})
    rc = t.wait(30)
    check(rc == 1 and "needs a password" in t.stderr() and "never on the command line" in t.stderr(),
          "a user without a password: %s" % t.stderr())
    # the right passwords: the game the table recorded reaches the hall afterwards
    good = os.path.join(dir, "hall.txt")
    with open(good, "w") as f:
        f.write("hall-secret\n")
    hall = U.start_hall(TT, broker, dir, games, ["--mqtt-user", "hall", "--mqtt-password-file", good], name="hall")
    try:
        r = U.Proc([TT, "replay", rec, "--mqtt", broker.addr, "--table", "t1", "--mqtt-user", "table1", "--speed",
                    "10000"], dir, "resend", {"TABLETRACK_MQTT_PASSWORD": "table-secret"})
        delivered(r, rec, os.path.join(games, "t1.sqlite"), "the resend command it printed, with the right passwords")
    finally:
        hall.stop()


def case_twelve(dir, broker):
    games = os.path.join(dir, "games")
    hall = U.start_hall(TT, broker, dir, games)
    try:
        recs = [sample(dir, "g%02d" % i) for i in range(12)]
        rs = [replay(dir, broker, recs[i], "table-%02d" % i, 2) for i in range(12)]
        lat = []
        while any(r.proc.poll() is None for r in rs):
            t0 = time.time()
            n = len(U.get_json(hall.url + "api/tables"))
            lat.append(time.time() - t0)
            time.sleep(0.1)
        rcs = [r.wait(90) for r in rs]
        check(rcs == [0] * 12, "twelve replays exit 0: %s" % rcs)
        lat.sort()
        p95 = lat[int(len(lat) * 0.95)] if lat else 9
        print("GET /api/tables while 12 tables publish: %d requests, p50 %.1f ms, p95 %.1f ms" % (
            len(lat), lat[len(lat) // 2] * 1e3, p95 * 1e3))
        check(len(lat) > 20 and p95 < 0.5, "/api/tables answers within 0.5 s (p95 %.3f s)" % p95)
        check(n == 12, "the hall lists twelve tables (%d)" % n)
        for i in range(12):
            d = U.wait_equal(recs[i], os.path.join(games, "table-%02d.sqlite" % i), 20)
            check(not d, "table-%02d: the copy equals the recording: %s" % (i, d))
        stats = U.get_json(hall.url + "api/hall")
        print("hall: %s" % stats)
    finally:
        hall.stop()


def case_acl(dir, broker):
    games = os.path.join(dir, "games")
    pw = os.path.join(dir, "hall.txt")
    with open(pw, "w") as f:
        f.write("hall-secret\n")
    hall = U.start_hall(TT, broker, dir, games, ["--mqtt-user", "hall", "--mqtt-password-file", pw])
    try:
        rec = sample(dir, "game")
        env = {"TABLETRACK_MQTT_PASSWORD": "one-secret"}
        r = replay(dir, broker, rec, "table-1", 10000, env, ["--mqtt-user", "table-1"])
        delivered(r, rec, os.path.join(games, "table-1.sqlite"), "table-1 publishing as itself")
        # table-1's user writing as table-2: the broker drops it all
        r = replay(dir, broker, rec, "table-2", 10000, env, ["--mqtt-user", "table-1"])
        r.wait(90)
        check("refused" not in r.stderr() and "cannot reach" not in r.stderr(),
              "table-1's user is let in and publishes as table-2: %s" % r.stderr()[-300:])
        time.sleep(1)
        names = [t["table"] for t in U.get_json(hall.url + "api/tables")]
        check(names == ["table-1"], "nothing written as table-2 by table-1's user reaches the hall: %s" % names)
        check(not os.path.exists(os.path.join(games, "table-2.sqlite")), "and no copy of it is made")
    finally:
        hall.stop()


def case_page(dir, broker):
    sys.path.insert(0, os.path.join(ROOT, "tests/http"))
    from tt_checks import browser_missing
    missing = browser_missing()
    if missing is not None:
        return missing
    out = os.path.abspath(sys.argv[5])
    os.makedirs(out, exist_ok=True)
    games = os.path.join(dir, "games")
    hall = U.start_hall(TT, broker, dir, games)
    rs = []
    try:
        rs = [replay(dir, broker, sample(dir, "g%d" % i), "table-%d" % (i + 1), 1) for i in range(3)]
        p = subprocess.run(["node", os.path.join(os.path.dirname(os.path.abspath(__file__)), "hall_page.js"),
                            hall.url, out, "3"], capture_output=True, text=True, timeout=200)
        sys.stderr.write(p.stderr)
        lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
        r = U.json.loads(lines[-1]) if lines else {"error": "no result: " + p.stdout[-2000:]}
        print(U.json.dumps(r, indent=1))
        check("error" not in r, "the page shows every table: %s" % r.get("error", ""))
        for name, cols in (("phone", 1), ("laptop", 3)):
            v = r.get(name, {})
            check(v.get("cards") == 3, "%s: three cards (%s)" % (name, v.get("cards")))
            check(v.get("lefts") == cols, "%s: %d column(s) (%s)" % (name, cols, v.get("lefts")))
            check(v.get("overflow") is False, "%s: nothing wider than the screen" % name)
            # the fixture's nine figures (one may not have come on yet in a table just started)
            check(v.get("figures") and all(f in (8, 9) for f in v.get("figures")),
                  "%s: each thumbnail draws the figures: %s" % (name, v.get("figures")))
            check(all(t >= 3 for t in v.get("terrain", [])), "%s: and the terrain: %s" % (name, v.get("terrain")))
            check(all("last frame" in a and "ago" in a for a in v.get("ages", [])), "%s: the age of the last frame: %s"
                  % (name, v.get("ages")))
            check(all("into-the-breach" in m for m in v.get("meta", [])), "%s: ruleset and frame: %s" % (
                name, v.get("meta")))
            check("3 tables" in v.get("summary", ""), "%s: the summary: %s" % (name, v.get("summary")))
        v = r.get("stream", {})
        check(v.get("figures") == 9 and v.get("name") == "table-1", "the stream page draws table-1's figures: %s" % v)
        check(v.get("background") in ("rgba(0, 0, 0, 0)", "transparent"), "?transparent=1: no background (%s)" %
              v.get("background"))
        check(v.get("answer") and v.get("answer_px", 0) >= 48, "the answer in words, large enough for a stream: %s"
              % v)
        check(v.get("overflow") is False and v.get("svg", [0])[0] >= 1800, "1920x1080, the table across it: %s" % v)
        print("screenshots: %s/hall-phone.png, %s/hall-laptop.png, %s/hall-stream.png" % (out, out, out))
    finally:
        for x in rs:
            x.stop()
        hall.stop()


def main():
    if not U.MOSQUITTO:
        print("skipped: the mosquitto broker is not installed (make deps installs it)")
        return 77
    dir = tempfile.mkdtemp(prefix="tt-hall-")
    users = {"hall": "hall-secret", "table1": "table-secret"} if CASE == "password" else None
    acl = None
    if CASE == "acl":
        users = {"hall": "hall-secret", "table-1": "one-secret", "table-2": "two-secret"}
        acl = os.path.join(ROOT, "samples/hall/hall.acl")
    broker = U.Broker(dir, users=users, acl=acl)
    try:
        rc = {"live": case_live, "broker": case_broker, "hall": case_hall, "password": case_password,
              "twelve": case_twelve, "page": case_page, "acl": case_acl}[CASE](dir, broker)
    finally:
        broker.stop()
    if rc is not None:
        return rc
    if FAILS:
        print("%d failed; files in %s" % (len(FAILS), dir))
        return 1
    shutil.rmtree(dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
