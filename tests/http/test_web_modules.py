#!/usr/bin/env python3
"""test_web_modules.py - the live table page is native ES modules (web/*.js,
no build step) that stay small and are served as modules (issue 32):
  - no web/*.js over MAX_LINES lines;
  - index.html loads one script, the module app.js, and nothing else;
  - every import is of a module beside it that exists, every module is
    reached from app.js, and no two modules import each other round;
  - the shared drawing the replay inlines (draw.js and what it imports)
    imports nothing else;
  - 'tabletrack track --http' serves every module as text/javascript
    (browsers refuse a module of another type), byte for byte the file;
  - the hall's pages import modules of web/ only, and 'tabletrack hall'
    serves each (and what it imports) the same way (with mosquitto, as the
    hall tests need).

usage: test_web_modules.py TABLETRACK SOURCE_ROOT"""
import glob
import os
import re
import shutil
import sys
import tempfile
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "hall"))
from tt_checks import Checks  # noqa: E402
from tt_server import Server  # noqa: E402
import hall_util as U  # noqa: E402

MAX_LINES = 300
IMPORT = re.compile(r"^(?:import|export)\s[^;]*?\sfrom\s+'\./([A-Za-z0-9_]+\.js)';", re.M)
REPLAY_INLINES = ("draw.js", "words.js", "labels.js")  # record/CMakeLists.txt


def main():
    binary, root = sys.argv[1], sys.argv[2]
    check = Checks()
    web = os.path.join(root, "web")
    mods = {os.path.basename(p): open(p, encoding="utf-8").read() for p in sorted(glob.glob(os.path.join(web, "*.js")))}
    check(len(mods) >= 8, "the page is in modules: %s" % sorted(mods))
    long = {m: t.count("\n") for m, t in mods.items() if t.count("\n") > MAX_LINES}
    check(long == {}, "no module over %d lines: %s" % (MAX_LINES, long))

    html = open(os.path.join(web, "index.html"), encoding="utf-8").read()
    scripts = re.findall(r"<script\b[^>]*>", html)
    check(scripts == ['<script type="module" src="app.js">'], "index.html loads the module app.js only: %s" % scripts)

    graph = {m: IMPORT.findall(t) for m, t in mods.items()}
    missing = sorted({(m, i) for m, deps in graph.items() for i in deps if i not in mods})
    check(missing == [], "every import is of a module in web/: %s" % missing)
    seen, todo = set(), ["app.js"]
    while todo:
        m = todo.pop()
        if m not in seen and m in graph:
            seen.add(m)
            todo += graph[m]
    check(seen == set(mods), "every module is reached from app.js: not %s" % sorted(set(mods) - seen))
    circles = []

    def walk(m, path):
        for d in graph.get(m, []):
            if d in path:
                circles.append(path[path.index(d):] + [d])
            elif len(path) < len(graph):
                walk(d, path + [d])
    for m in graph:
        walk(m, [m])
    check(circles == [], "no modules import each other round: %s" % circles[:3])
    stray = {m: [i for i in graph[m] if i not in REPLAY_INLINES] for m in REPLAY_INLINES if m in graph}
    check(all(not v for v in stray.values()), "the drawing the replay inlines imports only itself: %s" % stray)
    bare = {m: re.findall(r"^import\b(?![^;]*from\s+'\./)[^\n]*", t, re.M) for m, t in mods.items()}
    check(all(not v for v in bare.values()), "no import from elsewhere: %s" % {m: v for m, v in bare.items() if v})

    # the hall's pages: what they import, served by the hall
    hall_js = set()
    for page in ("hall_page.html", "hall_stream.html"):
        text = open(os.path.join(root, "hall", "server", page), encoding="utf-8").read()
        hall_js |= set(re.findall(r"^import [^;]* from '\.?/([A-Za-z0-9_]+\.js)';", text, re.M))
    check("draw.js" in hall_js and hall_js <= set(mods), "the hall's pages import modules of web/: %s" % sorted(hall_js))
    todo = list(hall_js)
    while todo:
        m = todo.pop()
        for d in graph.get(m, []):
            if d not in hall_js:
                hall_js.add(d)
                todo.append(d)
    if not U.MOSQUITTO:
        print("skipped: the hall's modules (no mosquitto: make deps installs it)")
    else:
        d = tempfile.mkdtemp(prefix="tt-web-hall-")
        broker = U.Broker(d)
        hall = None
        try:
            hall = U.start_hall(binary, broker, d, os.path.join(d, "games"))
            for m in sorted(hall_js):
                with urllib.request.urlopen(hall.url + m, timeout=10) as r:
                    typ, body = r.headers.get("Content-Type", ""), r.read()
                check(typ.startswith("text/javascript") and body == mods[m].encode(),
                      "the hall serves /%s: %s, the file itself" % (m, typ))
        finally:
            if hall:
                hall.stop()
            broker.stop()
            shutil.rmtree(d, ignore_errors=True)

    srv = Server(binary, root, projector=False)
    try:
        for m, text in mods.items():
            st, h, body = srv.request("GET", "/" + m)
            check(st == 200 and h.get("Content-Type", "").startswith("text/javascript") and body == text.encode(),
                  "GET /%s: %d %s, the file itself" % (m, st, h.get("Content-Type")))
    finally:
        srv.end(check)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
