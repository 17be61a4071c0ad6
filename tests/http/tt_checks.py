"""tt_checks.py - what the Python tests share: a list of checks that prints
each one ("ok: ..." / "FAIL: ...") and the verdict, and the question whether
a browser test can run here (Chromium, node and puppeteer-core), and how
long any wait may take (HANG_S)."""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NODE_MODULES = os.path.join(HERE, "node_modules")
# How long a wait for anything the page or the server will do may take: a
# guard against a hang, never a speed (tt_hang.json, which the pages' waits
# in tt_launch.js and the tests' ctest TIMEOUTs take too).
with open(os.path.join(HERE, "tt_hang.json")) as _f:
    HANG_S = json.load(_f)["hang_guard_s"]


class Checks:
    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(("ok: " if cond else "FAIL: ") + what, flush=True)
        if not cond:
            self.failures.append(what)

    def screenshots(self, out, names):
        """Each screenshot OUT/NAME.png was written (over 10 kB)."""
        for name in names:
            f = os.path.join(out, name + ".png")
            self(os.path.exists(f) and os.path.getsize(f) > 10000, "screenshot %s.png" % name)

    def verdict(self):
        """Print the outcome; the exit code (0 all passed, 1 not)."""
        print("%d check(s) failed" % len(self.failures) if self.failures else "all checks passed")
        return 1 if self.failures else 0


def page_result(p, hide=lambda key: False):
    """The one JSON line a browser test's node script printed (its
    CompletedProcess p), as a dict; {"error": ...} if it printed none.  Its
    stderr is passed on; the error, if any, is printed first and the rest on
    one line (a CI log shows a failing test's first lines: the cause leads).
    hide(key): true of the keys left out of the print."""
    sys.stderr.write(p.stderr)
    lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
    r = json.loads(lines[-1]) if lines else {"error": "no result: " + p.stdout[-2000:]}
    if "error" in r:
        print("the page could not be used to the end: %s" % r["error"], flush=True)
    print(json.dumps({k: v for k, v in r.items() if not hide(k) and k != "error"}), flush=True)
    return r


def browser_missing():
    """None when a browser test can run; else its exit code: 77 (skipped)
    without Chromium or node, 1 without puppeteer-core (make deps installs
    all three)."""
    chromium = os.environ.get("TT_CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK) or not shutil.which("node"):
        print("skipped: no Chromium or node (make deps installs them)")
        return 77
    if not os.path.isdir(os.path.join(NODE_MODULES, "puppeteer-core")):
        print("FAIL: puppeteer-core is not installed: run 'make deps' (npm ci in tests/http)")
        return 1
    return None
