#!/usr/bin/env python3
"""test_words.py - every answer the rules engine gives to the rulebook
fixtures (tests/rules/fixtures) said in words by the pages' words()
(web/words.js: the live page's cards, the hall's, the replay's question list): no
'undefined', 'NaN' or 'null' shown to a player, and the rule it cites.

usage: test_words.py TABLETRACK SOURCE_DIR"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import Checks  # noqa: E402

# web/words.js is an ES module with no imports: node loads it as one
# (--input-type=module for this script, and a data: URL of its text, as a
# .js file outside a "type": "module" package would be read as CommonJS)
NODE = r"""
import fs from 'fs';
const src = fs.readFileSync(process.argv[1], 'utf8');
const {words} = await import('data:text/javascript;base64,' + Buffer.from(src).toString('base64'));
const pairs = JSON.parse(fs.readFileSync(0, 'utf8'));
console.log(JSON.stringify(pairs.map(([q, a]) => words(q, a))));
"""


def main():
    tt, src = sys.argv[1], sys.argv[2]
    check = Checks()
    if not shutil.which("node"):
        print("node is not installed (make deps installs it): skipped")
        return 77
    pairs = []
    with tempfile.TemporaryDirectory() as d:
        for fx in sorted(glob.glob(os.path.join(src, "tests", "rules", "fixtures", "*.json"))):
            data = json.load(open(fx))
            scen = os.path.join(d, "scenario.json")
            with open(scen, "w") as f:
                json.dump(data["scenario"], f)
            queries = [c["query"] for c in data["cases"]]
            p = subprocess.run([tt, "rules", "--scenario", scen], input="\n".join(json.dumps(q) for q in queries),
                               capture_output=True, text=True, timeout=300)
            answers = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
            check(len(answers) == len(queries), "%s: an answer for each of its %d questions (%d)"
                  % (os.path.basename(fx), len(queries), len(answers)))
            pairs += [(q, a, os.path.basename(fx)) for q, a in zip(queries, answers)]
    p = subprocess.run(["node", "--input-type=module", "-e", NODE, os.path.join(src, "web", "words.js")],
                       input=json.dumps([[q, a] for q, a, _ in pairs]), capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, "words() ran: %s" % p.stderr.strip()[-300:])
    said = json.loads(p.stdout) if p.returncode == 0 else []
    bad = []
    uncited = []
    for (q, a, fx), w in zip(pairs, said):
        text = (w.get("big") or "") + " | " + (w.get("small") or "")
        if not w.get("big") or any(s in text for s in ("undefined", "NaN", "null", "[object")):
            bad.append("%s %s -> %r" % (fx, json.dumps(q), text))
        if "error" not in a and a.get("rule") != w.get("rule"):
            uncited.append("%s %s" % (fx, json.dumps(q)))
    n_err = sum(1 for _, a, _ in pairs if "error" in a)
    check(len(said) == len(pairs) and len(pairs) > 100,
          "%d fixture answers said in words (%d of them errors)" % (len(said), n_err))
    check(bad == [], "every answer reads without undefined/NaN/null: %s" % bad[:5])
    check(uncited == [], "every answer's card cites its rule: %s" % uncited[:5])
    # the figures a ball or grape shot reaches are counted, and where the
    # book rolls on each one (shots) each figure's score is said
    miscount, unscored = [], []
    for (q, a, fx), w in zip(pairs, said):
        if q.get("q") in ("ball", "grape") and "error" not in a:
            who = a.get("touched", a.get("targets", []))
            if not (w.get("big") or "").startswith("%d in the way" % len(who)):
                miscount.append("%s %s -> %r" % (fx, json.dumps(q), w.get("big")))
            for s in a.get("shots") or []:
                if s.get("to_hit") and "%s %d+" % (s["to"], s["to_hit"]) not in (w.get("small") or ""):
                    unscored.append("%s %s: %s" % (fx, json.dumps(q), s["to"]))
    check(miscount == [], "ball and grape cards count the figures in the way: %s" % miscount[:5])
    check(unscored == [], "ball and grape cards give each figure's score: %s" % unscored[:5])
    # a move or charge refused though near enough (a formation that may not
    # cross a ford, a charge that would have to turn) is not called too far
    misnamed = [("%s %s -> %r" % (fx, json.dumps(q), w.get("big")))
                for (q, a, fx), w in zip(pairs, said)
                if q.get("q") in ("move", "charge") and a.get("ok") is False and a.get("allowed_in") is not None
                and a["distance_in"] <= a["allowed_in"] and ("Too far" in w.get("big", "") or "short" in w.get("big", ""))]
    refused = sum(1 for q, a, _ in pairs if q.get("q") in ("move", "charge") and a.get("ok") is False
                  and a.get("allowed_in") is not None and a["distance_in"] <= a["allowed_in"])
    check(misnamed == [] and refused >= 5,
          "%d moves and charges refused though near enough are not called too far: %s" % (refused, misnamed[:5]))
    kinds = sorted({q.get("q") for q, _, _ in pairs})
    check(len(kinds) >= 10, "every kind of question is covered: %s" % kinds)
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
