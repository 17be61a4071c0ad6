#!/usr/bin/env python3
"""test_http_api.py - the table server's API, every endpoint and every bad
request, against a real 'tabletrack track --http' on the bundled breach
sample (a video: the server stays up with the last state after it ends).

usage: test_http_api.py TABLETRACK SOURCE_ROOT"""
import json
import http.client
import re
import os
import socket
import subprocess
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_server import Server  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    else:
        print("ok:", what, flush=True)


def sse_events(srv, n, timeout=20):
    """The first n (event, data) pairs of /api/live, read with a raw socket
    over HTTP/1.0 (no chunked framing: the bytes are the event stream).
    Every message must be well formed: "event: NAME" and one "data: JSON"
    line, or a ": comment"; nothing else, not a stray byte."""
    host, port = srv.base[len("http://"):].split(":")
    s = socket.create_connection((host, int(port)), timeout=timeout)
    s.sendall(b"GET /api/live HTTP/1.0\r\nHost: x\r\n\r\n")
    buf, out, head = b"", [], None
    deadline = time.time() + timeout
    while len(out) < n and time.time() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
        if head is None:
            if b"\r\n\r\n" not in buf:
                continue
            head, buf = buf.split(b"\r\n\r\n", 1)
            check(b"text/event-stream" in head and b"chunked" not in head.lower(),
                  "/api/live answers an event stream: %r" % head[:200])
        while b"\n\n" in buf:
            block, buf = buf.split(b"\n\n", 1)
            m = re.fullmatch(rb"event: (\w+)\ndata: ([^\n]*)", block)
            if m is None:
                check(re.fullmatch(rb": [^\n]*", block) is not None, "a well-formed SSE message: %r" % block[:120])
                continue
            json.loads(m.group(2))  # raises on anything but one JSON value
            out.append((m.group(1).decode(), m.group(2).decode()))
    s.close()
    return out


def newest_overlay(srv):
    names = sorted(n for n in os.listdir(srv.overlay_dir) if n.endswith(".png"))
    return os.path.join(srv.overlay_dir, names[-1]) if names else None


def zbar(png):
    """The QR codes zbarimg reads in a PNG (a list of texts)."""
    if png is None:
        return ["no projector image was written"]
    p = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", png],
                       capture_output=True, text=True)
    return [l for l in p.stdout.splitlines() if l]


def raw(srv, head, body=b""):
    """(status, body) of a request written by hand on a socket."""
    host, port = srv.base[len("http://"):].split(":")
    s = socket.create_connection((host, int(port)), timeout=30)
    s.sendall(head.encode())
    try:
        s.sendall(body)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may answer before the body is sent
    data = b""
    try:
        while True:
            c = s.recv(65536)
            if not c:
                break
            data += c
            if b"\r\n\r\n" in data:
                head_end = data.index(b"\r\n\r\n")
                headers = data[:head_end].decode().lower()
                if "content-length:" in headers:
                    n = int(headers.split("content-length:")[1].split("\r\n")[0])
                    if len(data) >= head_end + 4 + n:
                        break
    except ConnectionResetError:
        pass
    s.close()
    status = int(data.split(b" ", 2)[1])
    return status, data.split(b"\r\n\r\n", 1)[1]


def main():
    binary, root = sys.argv[1], sys.argv[2]
    srv = Server(binary, root)
    try:
        run(srv)
    finally:
        srv.cleanup()
    srv = Server(binary, root, scenario=False, projector=False)
    try:
        bare_rig(srv)
    finally:
        srv.cleanup()
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def bare_rig(srv):
    """A new group: --scenario names a file not made yet; the table starts
    empty and the page's first Save writes it."""
    check("does not exist yet" in srv.stderr(), "a scenario file to be made is announced: " + srv.stderr()[-300:])
    s = srv.wait_state(lambda s: s["camera"] == "ended", timeout=400)
    check(s["ruleset"] is None and s["figures"] and all(f["id"] is None for f in s["figures"])
          and 23 in s["unassigned"], "a bare rig: every tag seen is unassigned")
    scen = {"ruleset": "into-the-breach", "table": s["table"], "terrain": [],
            "figures": [{"id": "g1", "side": "british", "type": "foot", "weapon": "musket", "x": 5, "y": 5}],
            "tags": {"23": "g1"}}
    st, j = srv.json("PUT", "/api/scenario", json.dumps(scen), key="testkey")
    check(st == 200, "the first set-up is saved: %s" % j)
    with open(srv.scenario) as fh:
        check(json.load(fh)["tags"] == {"23": "g1"} and not os.path.exists(srv.scenario + ".bak"),
              "the scenario file is made, with no .bak")
    s = srv.json("GET", "/api/state")[1]
    check(s["ruleset"] == "into-the-breach" and any(f["id"] == "g1" and f["tag"] == 23 for f in s["figures"]),
          "the table now names the figure")
    rc, _ = srv.stop()
    check(rc == 0, "the server ends cleanly (%d)" % rc)


def run(srv):
    check(srv.url.startswith("http://127.0.0.1:") and srv.url.endswith("/?key=testkey"),
          "stderr names the table: " + srv.url)

    # the game runs to the end of the video, then keeps its last state
    s = srv.wait_state(lambda s: s["camera"] == "ended", timeout=400)
    check(s["ruleset"] == "into-the-breach" and s["table"] == {"width_in": 36.0, "depth_in": 24.0},
          "state: ruleset and table")
    ids = {f["id"] for f in s["figures"]}
    check({"gun1", "gren1", "fus1"} <= ids, "state: figures named from the scenario's tags")
    f = next(f for f in s["figures"] if f["id"] == "gren1")
    check(set(f) == {"id", "tag", "side", "unit", "x", "y", "z_in", "facing_deg", "state", "err95_in", "z_err95_in",
                     "facing_err95_deg"}, "state: figure fields")
    check(all(isinstance(f[k], (int, float)) and 0 < f[k] < 1 for k in ("err95_in", "z_err95_in", "facing_err95_deg")),
          "state: a figure's 95%% errors, each above 0 and under 1 (inch, inch, degree) on the sample's flat felt: %r"
          % ({k: f[k] for k in ("err95_in", "z_err95_in", "facing_err95_deg")},))
    check(f["z_in"] == 0, "state: z_in 0 for a figure on the felt (the scenario raises nothing under it)")
    check(f["tag"] == 23 and f["side"] == "british" and f["unit"] == "grenadiers", "state: tag, side, unit")
    check(abs(f["x"] - round(f["x"], 2)) < 1e-9, "state: positions to 0.01 inch")
    check(len(s["terrain"]) == 4 and s["shown"] == [], "state: terrain, nothing shown yet")
    check(s["scenario_rev"] == 1 and "roster" not in s, "state: scenario_rev 1 (the roster is at /api/scenario)")
    frame_end = s["frame"]
    time.sleep(0.5)
    check(srv.json("GET", "/api/state")[1]["frame"] == frame_end, "the last state is kept after the source ended")

    # the felt shows the table's address as a QR code until the first
    # question: a real decoder (zbarimg, zbar-tools) reads it off the
    # projector image
    qr_before = zbar(newest_overlay(srv))
    check(qr_before == [srv.url], "the projector image holds the table's address as a QR code: %s" % qr_before)

    # the page and its parts are served from the binary
    st, h, body = srv.request("GET", "/")
    check(st == 200 and h.get("Content-Type", "").startswith("text/html") and b"<html" in body.lower(), "GET / is the app")
    for part, typ in (("/app.js", "javascript"), ("/draw.js", "javascript"), ("/style.css", "text/css")):
        st, h, body = srv.request("GET", part)
        check(st == 200 and typ in h.get("Content-Type", "") and len(body) > 100, "GET %s" % part)
    st, h, body = srv.request("GET", "/")
    check(b"http://" not in body.replace(b"http://www.w3.org", b"") and b"https://" not in body,
          "the app loads nothing from elsewhere")

    # reading needs no key; changing needs it
    q = json.dumps({"q": "fire", "from": "gren1", "to": "fus1"})
    st, j = srv.json("POST", "/api/query", q)
    check(st == 403 and "key" in j["error"], "POST without a key: 403 with a JSON error")
    st, j = srv.json("POST", "/api/query", q, key="wrong")
    check(st == 403, "POST with a wrong key: 403")
    before = os.path.join(srv.overlay_dir, "overlay_%05d.png" % frame_end)
    with open(before, "rb") as fh:
        png_before = fh.read()
    st, j = srv.json("POST", "/api/query", q, headers={"X-Table-Key": "testkey"})
    check(st == 200 and j["qid"] == 1 and "to_hit" in j["answer"] and j["answer"]["visible"] in (True, False),
          "POST /api/query with X-Table-Key: answered %s" % json.dumps(j)[:200])
    st, j2 = srv.json("POST", "/api/query", json.dumps({"q": "grape", "from": "gun1"}), key="testkey")
    check(st == 200 and j2["qid"] == 2, "POST ?key=: a second question gets qid 2")
    s = srv.json("GET", "/api/state")[1]
    check([x["qid"] for x in s["shown"]] == [1, 2] and s["shown"][0]["query"]["to"] == "fus1"
          and s["shown"][0]["answer"] == j["answer"], "state lists the questions shown with their answers")
    # each answer carries what it looks like (table_look's primitives, docs/api.md): the reply and the
    # state alike while nothing moves (the video has ended), the line of fire from gren1 to fus1 among them
    look = j.get("look")
    at = {f["id"]: (f["x"], f["y"]) for f in s["figures"]}
    near = lambda p, f: abs(p[0] - at[f][0]) < 1 and abs(p[1] - at[f][1]) < 1  # a base's front or centre
    check(isinstance(look, list) and look and all({"kind", "role"} <= set(p) for p in look) and
          s["shown"][0]["look"] == look and
          any(p["kind"] == "polyline" and near(p["points"][0], "gren1") and near(p["points"][-1], "fus1") for p in look),
          "the reply and the state carry the answer's look, its line from gren1 to fus1: %s" % json.dumps(look)[:300])
    # redrawn by the game's loop, not by the request: waited for (generously:
    # the machine may be loaded), not timed
    deadline, png_after = time.time() + 60, png_before
    while png_after == png_before and time.time() < deadline:
        time.sleep(0.1)
        with open(before, "rb") as fh:
            png_after = fh.read()
    check(png_after != png_before, "with no frames coming, the projector image is redrawn at once")
    # the image with the question drawn may be written more than once (each
    # redraw): read the newest once it holds no QR code, within the deadline
    codes = zbar(before)
    while codes != [] and time.time() < deadline:
        time.sleep(0.2)
        codes = zbar(before)
    check(codes == [], "the QR code is gone once a question is asked: %s" % codes)

    # bad questions
    st, j = srv.json("POST", "/api/query", '{"q": "los", "from": "gren1",\n "to": }', key="testkey")
    check(st == 400 and "line 2" in j["error"] and "column" in j["error"], "malformed JSON: 400 with line and column: " + j["error"])
    st, j = srv.json("POST", "/api/query", json.dumps({"q": "los", "from": "gren1", "to": "nobody"}), key="testkey")
    check(st == 404 and "nobody" in j["error"], "unknown figure: 404 naming it")
    st, j = srv.json("POST", "/api/query", json.dumps({"q": "teleport", "from": "gren1"}), key="testkey")
    check(st == 400 and j.get("error"), "unknown question: 400 with a JSON error")
    st, j = srv.json("POST", "/api/query", "[1,2]", key="testkey")
    check(st == 400 and j.get("error"), "not an object: 400")
    st, body = raw(srv, "POST /api/query?key=testkey HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n"
                        "Expect: 100-continue\r\n\r\n")
    check(st == 413 and "1 MB" in json.loads(body)["error"],
          "a body announced over 1 MB by a client that waits (Expect: 100-continue): 413 before it is sent")
    st, body = raw(srv, "POST /api/query?key=testkey HTTP/1.1\r\nHost: x\r\nContent-Length: 40000000\r\n\r\n")
    check(st == 413 and "1 MB" in json.loads(body)["error"], "a body announced over 16 MB: 413 before it is sent")
    # Python's http.client sends the body straight after the headers: each
    # of three 1.1 MB posts, on new connections while a viewer holds
    # /api/live, reads its 413 (the server drains the body before answering;
    # it used to close first, and the client saw a broken pipe)
    host, port = srv.base[len("http://"):].split(":")
    viewer = socket.create_connection((host, int(port)), timeout=10)
    viewer.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n")
    viewer.recv(64)
    for i in range(3):
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        try:
            conn.request("POST", "/api/query?key=testkey", body=b"x" * (1100 * 1024),
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            st, body = resp.status, resp.read()
        except OSError as e:
            st, body = None, str(e).encode()
        conn.close()
        check(st == 413 and b"1 MB" in body, "1.1 MB post %d with a viewer on /api/live: 413 (%s)" % (i + 1, st))
    viewer.close()
    st, h, body = srv.request("GET", "/favicon.ico")
    check(st == 200 and h.get("Content-Type") == "image/svg+xml" and b"<svg" in body, "GET /favicon.ico: an icon")
    chunk = b"x" * 65536
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(17)) + b"0\r\n\r\n"
    st, body = raw(srv, "POST /api/query?key=testkey HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                   chunks)
    check(st == 413 and "1 MB" in json.loads(body)["error"], "a chunked body over 1 MB: 413")
    st, j = srv.json("POST", "/api/query", "", key="testkey")
    check(st == 400, "an empty body: 400")
    st, j = srv.json("GET", "/api/nothing")
    check(st == 404 and j.get("error"), "unknown address: 404 JSON")
    st, j = srv.json("PUT", "/api/query", "{}", key="testkey")
    check(st == 405 and j.get("error"), "wrong method: 405 JSON")

    # the table picture
    st, h, png = srv.request("GET", "/api/table.png")
    check(st == 200 and h.get("Content-Type") == "image/png" and png[:8] == b"\x89PNG\r\n\x1a\n", "GET /api/table.png")
    w, hgt = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    check((w, hgt) == (360, 240), "table.png at the default 10 ppi is 360x240 for a 36x24 table: %dx%d" % (w, hgt))
    st, h, png = srv.request("GET", "/api/table.png?ppi=5")
    check(st == 200 and int.from_bytes(png[16:20], "big") == 180, "table.png?ppi=5 is 180 wide")
    for bad in ("0", "abc", "1e9", "nan"):
        st, j = srv.json("GET", "/api/table.png?ppi=" + bad)
        check(st == 400 and "ppi" in j["error"], "table.png?ppi=%s: 400" % bad)

    # live feed: the newest state first, then answers as they come
    evs = sse_events(srv, 1)
    check(evs and evs[0][0] == "state" and json.loads(evs[0][1])["frame"] == frame_end, "/api/live starts with the state")
    got = []
    t = threading.Thread(target=lambda: got.extend(sse_events(srv, 3)))
    t.start()
    time.sleep(1.0)
    srv.json("POST", "/api/query", json.dumps({"q": "los", "from": "gren2", "to": "fus2"}), key="testkey")
    t.join(30)
    names = [e for e, _ in got]
    check("answer" in names, "/api/live sends an answer event when a question is asked: %s" % names)
    ans = [json.loads(d) for e, d in got if e == "answer"]
    check(ans and ans[0]["qid"] == 3 and ans[0]["query"]["from"] == "gren2", "the answer event names its question")

    # withdrawing questions
    st, j = srv.json("DELETE", "/api/query/1")
    check(st == 403, "DELETE without a key: 403")
    st, j = srv.json("DELETE", "/api/query/1", key="testkey")
    check(st == 200, "DELETE /api/query/1")
    check([x["qid"] for x in srv.json("GET", "/api/state")[1]["shown"]] == [2, 3], "question 1 no longer shown")
    st, j = srv.json("DELETE", "/api/query/1", key="testkey")
    check(st == 404, "DELETE a question not shown: 404")
    st, j = srv.json("DELETE", "/api/query/abc", key="testkey")
    check(st == 404, "DELETE /api/query/abc: 404")
    st, j = srv.json("DELETE", "/api/query", key="testkey")
    check(st == 200 and srv.json("GET", "/api/state")[1]["shown"] == [], "DELETE /api/query clears the table")

    # the figure a page has picked (its menu open): one per page, named by
    # its X-Table-Client header; DELETE when the menu closes; dropped when
    # not renewed (a page that went away)
    A, B = {"X-Table-Client": "pageA"}, {"X-Table-Client": "pageB"}
    picked = lambda: srv.json("GET", "/api/state")[1]["picked"]  # noqa: E731
    check(picked() == [], "state: nothing picked yet")
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "gren1"}), headers=A)
    check(st == 403 and "key" in j["error"], "PUT /api/pick without a key: 403")
    st, j = srv.json("PUT", "/api/pick", '{"id": ', key="testkey", headers=A)
    check(st == 400 and "line 1" in j["error"], "PUT /api/pick malformed: 400 with line: " + j["error"])
    st, j = srv.json("PUT", "/api/pick", '{"who": "gren1"}', key="testkey", headers=A)
    check(st == 400 and '"id"' in j["error"], "PUT /api/pick without an id: 400: " + j["error"])
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "nobody"}), key="testkey", headers=A)
    check(st == 404 and "nobody" in j["error"], "PUT /api/pick of an unknown figure: 404 naming it")
    check(picked() == [], "a refused pick picks nothing")
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "gren1"}), key="testkey", headers=A)
    check(st == 200 and picked() == ["gren1"], "PUT /api/pick: state lists it as picked")
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "fus1"}), key="testkey", headers=A)
    check(st == 200 and picked() == ["fus1"], "one pick per page: a new one replaces it")
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "gun1"}), key="testkey", headers=B)
    check(st == 200 and sorted(picked()) == ["fus1", "gun1"], "another page's pick is listed too")
    st, j = srv.json("DELETE", "/api/pick", headers=A)
    check(st == 403, "DELETE /api/pick without a key: 403")
    st, j = srv.json("DELETE", "/api/pick", key="testkey", headers=A)
    check(st == 200 and picked() == ["gun1"], "DELETE /api/pick clears that page's pick only")
    st, j = srv.json("DELETE", "/api/pick", key="testkey", headers=B)
    st2, _ = srv.json("DELETE", "/api/pick", key="testkey", headers=B)
    check(st == 200 and st2 == 200 and picked() == [], "DELETE /api/pick again is fine: nothing picked")
    st, j = srv.json("GET", "/api/pick")
    check(st == 405, "GET /api/pick: 405")
    st, j = srv.json("PUT", "/api/pick", json.dumps({"id": "gren2"}), key="testkey", headers=A)
    check(st == 200 and picked() == ["gren2"], "picked again")
    time.sleep(10.5)
    check(picked() == [], "a pick not renewed for 10 s is dropped (the page went away)")

    # the ruleset's profile, for the page's menus
    st, r = srv.json("GET", "/api/rules")
    check(st == 200 and r.get("ruleset") == "into-the-breach" and "deviation" in r["weapons"]["mortar"]
          and "grape" in r["weapons"]["artillery"] and "building" in r["terrain"],
          "GET /api/rules: the scenario's ruleset with its weapons and terrain")

    # a new scenario: validated, applied, written with a .bak
    with open(srv.scenario) as fh:
        old_text = fh.read()
    scen = json.loads(old_text)
    st, j = srv.json("PUT", "/api/scenario", '{"ruleset": "into-the-breach",\n "terrain": [', key="testkey")
    check(st == 400 and "line 2" in j["error"], "PUT malformed scenario: 400 with line: " + j["error"])
    bad = dict(scen, terrain=scen["terrain"] + [{"id": "w", "kind": "wall", "lnie": [[1, 1], [2, 2]]}])
    st, j = srv.json("PUT", "/api/scenario", json.dumps(bad), key="testkey")
    check(st == 400 and "lnie" in j["error"] and "line" in j["error"], "PUT unknown key: 400 naming it: " + j["error"])
    with open(srv.scenario) as fh:
        check(fh.read() == old_text and not os.path.exists(srv.scenario + ".bak"), "a refused scenario changes nothing")
    st, j = srv.json("PUT", "/api/scenario", json.dumps(scen), key=None)
    check(st == 403, "PUT without a key: 403")
    # (a wall in Into the Breach! gives cover but does not block sight; a
    # building does)
    # a thin building across the line between where gren1 and fus1 stand now
    now = {f["id"]: f for f in srv.json("GET", "/api/state")[1]["figures"]}
    xm = round((now["gren1"]["x"] + now["fus1"]["x"]) / 2, 2)
    wall = {"id": "traced-wall", "kind": "building", "polygon": [[xm, 0.5], [xm + 0.4, 0.5], [xm + 0.4, 23.5], [xm, 23.5]]}
    new = dict(scen, terrain=scen["terrain"] + [wall])
    st, j = srv.json("PUT", "/api/scenario", json.dumps(new), key="testkey")
    check(st == 200, "PUT /api/scenario")
    with open(srv.scenario) as fh:
        check(json.load(fh)["terrain"][-1]["id"] == "traced-wall", "the scenario file holds the new terrain")
    with open(srv.scenario + ".bak") as fh:
        check(fh.read() == old_text, "the old scenario is kept as .bak")
    s = srv.json("GET", "/api/state")[1]
    check(s["terrain"][-1]["id"] == "traced-wall" and s["scenario_rev"] == 2,
          "the state shows the new terrain at once, scenario_rev 2")
    db = sqlite3.connect("file:%s?mode=ro" % srv.record, uri=True)
    rows = db.execute("SELECT frame, scenario_json FROM scenario_change").fetchall()
    db.close()
    check(len(rows) == 1 and rows[0][0] == s["frame"] and json.loads(rows[0][1])["terrain"][-1] == wall,
          "the recording holds the new scenario from the frame it was saved on")
    st, j = srv.json("POST", "/api/query", json.dumps({"q": "los", "from": "gren1", "to": "fus1"}), key="testkey")
    check(st == 200 and j["answer"]["visible"] is False and j["answer"]["blocked_by"] == "traced-wall",
          "a line of sight across the new wall is blocked by it: %s" % j["answer"])
    time.sleep(0.5)  # after the table is redrawn (the figures placed where they are tracked): the same
    st, j = srv.json("POST", "/api/query", json.dumps({"q": "los", "from": "gren1", "to": "fus1"}), key="testkey")
    check(st == 200 and j["answer"]["blocked_by"] == "traced-wall", "... and still after a redraw: %s" % j["answer"])

    # a slow client does not hold anything up; an idle one is dropped
    host, port = srv.base[len("http://"):].split(":")
    slow = socket.create_connection((host, int(port)))
    slow.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # and never finishes
    t0 = time.time()
    st, _ = srv.json("GET", "/api/state")
    check(st == 200 and time.time() - t0 < 2, "others are served while a client stalls")
    slow.settimeout(30)
    t0 = time.time()
    try:
        closed = slow.recv(100) == b""
    except (ConnectionResetError, socket.timeout):
        closed = True
    check(closed and time.time() - t0 < 25, "a stalled client is dropped (after %.1f s)" % (time.time() - t0))
    slow.close()

    # 50 viewers hold /api/live open; the server keeps answering
    socks = []
    for _ in range(50):
        c = socket.create_connection((host, int(port)))
        c.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(c)
    time.sleep(1)
    t0 = time.time()
    st, j = srv.json("POST", "/api/query", json.dumps({"q": "command", "from": "gren1"}), key="testkey")
    st2, _ = srv.json("GET", "/api/state")
    check(st2 == 200 and time.time() - t0 < 5, "with 50 live viewers the server still answers (%d, %d)" % (st, st2))
    readable = 0
    for c in socks:
        c.settimeout(5)
        try:
            readable += b"event: state" in c.recv(65536)
        except socket.timeout:
            pass
        c.close()
    check(readable == 50, "all 50 live viewers got the state (%d)" % readable)

    # Ctrl-C: exit 0, recording closed with the questions in it
    rc, out = srv.stop()
    check(rc == 0, "SIGINT ends the server with exit code 0 (%d)" % rc)
    db = sqlite3.connect("file:%s?mode=ro" % srv.record, uri=True)
    qs = [json.loads(r[0]) for r in db.execute("SELECT query_json FROM query ORDER BY id")]
    ended = db.execute("SELECT ended_utc FROM session").fetchall()
    db.close()
    check(qs[:2] == [{"q": "fire", "from": "gren1", "to": "fus1"}, {"q": "grape", "from": "gun1"}],
          "the recording holds the questions asked: %s" % qs[:3])
    check(ended and ended[-1][0], "the recording is closed cleanly")


if __name__ == "__main__":
    sys.exit(main())
