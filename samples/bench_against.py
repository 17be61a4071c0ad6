#!/usr/bin/env python3
"""bench_against.py OUT BASE_NAME NOW_NAME BENCH... - the figures of
samples/bench_against.sh: reads OUT/NAME.a.I.txt (the baseline's output,
pair I) and OUT/NAME.b.I.txt (now), and prints, for each bench's figures,
the median of each side, the median of the pairs' cost ratios (now against
the baseline, > 1 is slower; for a rate such as fps the ratio is inverted)
and their spread (the smallest and largest pair's ratio).  The first figure
of each bench is its key figure, the one held to the 3 %.  Where
OUT/NAME.count.a.txt and .b.txt hold "instructions per frame: N" (the
hall's: "per table", one table's replay; counted under callgrind, once a
side), their ratio is printed too: it does not move with the machine's
load, so it makes the 3 % call when the times cannot."""
import glob
import os
import re
import statistics
import sys

# bench -> [(figure, regex whose group 1 is the value, lower is better)]
FIGURES = {
    "track": [
        ("tracker + mapping, ms/frame (wall)", r"tracker \+ mapping \(2 threads\):\s+([\d.]+) ms/frame", True),
        ("processing latency p50, ms", r"processing latency p50 ([\d.]+) ms", True),
        ("track_live_update, ms/frame", r"mapping at each tag's height \(.*?\): ([\d.]+) ms/frame", True),
    ],
    "overlay": [
        ("live frame drawn, ms (thread CPU)",
         r"draw one frame as the live tracker does[^\n]*\n\s+([\d.]+) ms", True),
        ("3D projector frame, ms (thread CPU)", r"marks at the height of \d+ hills under them:\n\s+([\d.]+) ms",
         True),
        ("map + composite on a camera frame, ms", r"map \+ composite on a 1920x1080 camera frame:\s+([\d.]+) ms", True),
    ],
    "http": [
        ("CPU per frame with 50 viewers, ms", r"CPU per frame \(all threads\): [\d.]+ ms without, ([\d.]+) ms with", True),
        ("CPU per frame without --http, ms", r"CPU per frame \(all threads\): ([\d.]+) ms without", True),
        ("fps with 50 viewers", r"--http, \d+ viewers on /api/live:\s+([\d.]+) fps", False),
        ("state delay p95, ms", r"state delay, frame processed -> each viewer: p50 [\d.]+ ms, p95 ([\d.]+) ms", True),
    ],
    "hall": [
        ("hall CPU, % of a core (50 tables)", r"the hall as shipped[^\n]*\n[^\n]*\n\s+hall CPU ([\d.]+) %", True),
        ("the tables' CPU, % (50 tables)", r"the hall as shipped[^\n]*\n[^\n]*\n[^\n]*the tables together ([\d.]+) %",
         True),
        ("state delay p95, ms (50 tables)", r"p95 state delay with \d+ tables: ([\d.]+) ms", True),
    ],
}
LIMIT = 1.03  # issue 32: within 3 %


def value(path, regex):
    with open(path) as f:
        m = re.search(regex, f.read())
    return float(m.group(1)) if m else None


def pairs_of(out, name):
    """[(baseline file, now file)] of the pairs both sides finished."""
    found = []
    for a in sorted(glob.glob(os.path.join(out, name + ".a.*.txt"))):
        b = a.replace(".a.", ".b.")
        if os.path.exists(b):
            found.append((a, b))
    return found


def count_row(out, name):
    """The instructions-per-frame row, or None without both counts."""
    got = []
    what = "table" if name == "hall" else "frame"  # the hall: one table's replay (tests/hall/count_replay.py)
    for side in "ab":
        path = os.path.join(out, "%s.count.%s.txt" % (name, side))
        got.append(value(path, r"instructions per %s: (\d+)" % what) if os.path.exists(path) else None)
    if None in got or got[0] <= 0:
        return None
    r = got[1] / got[0]
    verdict = "  more than 3 % more work" if r > LIMIT else "  within 3 %"
    return "  %-38s %12.6g %12.6g %8.3f %15s %6s%s" % ("instructions per %s (callgrind)" % what, got[0], got[1], r,
                                                        "(counted once)", "-", verdict)


def main():
    out, base, now, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    print("\n%-40s %12s %12s %8s %15s %6s" % ("figure (bench: key figure first)", base, now, "ratio", "spread",
                                            "pairs"))
    worst = 0
    for name in names:
        print("bench_" + name)
        pairs = pairs_of(out, name)
        for i, (label, regex, lower) in enumerate(FIGURES[name] if pairs else []):  # none: the counts only
            a, b, r = [], [], []
            for fa, fb in pairs:
                va, vb = value(fa, regex), value(fb, regex)
                if va is None or vb is None or va <= 0 or vb <= 0:
                    continue  # a run that failed or printed no such figure: its pair is not counted
                a.append(va)
                b.append(vb)
                r.append(vb / va if lower else va / vb)
            if len(r) < 2:
                print("  %-38s fewer than two pairs printed it (see %s)" % (label, out))
                worst = 2
                continue
            ratio = statistics.median(r)
            verdict = ""
            if i == 0:
                if max(r) - min(r) > 2 * (LIMIT - 1):
                    verdict = "  spread over +-3 %: too noisy for a 3 % call"
                elif ratio > LIMIT:
                    verdict = "  more than 3 % slower"
                else:
                    verdict = "  within 3 %"
            print("  %-38s %12.4g %12.4g %8.3f %7.3f-%-7.3f %6d%s" % (label, statistics.median(a), statistics.median(b),
                                                                   ratio, min(r), max(r), len(r), verdict))
        row = count_row(out, name)
        if row:
            print(row)
    print("ratio: the median of the pairs' now/baseline cost (> 1 slower; fps inverted); spread: the smallest "
          "and largest pair; outputs in " + out)
    return worst


if __name__ == "__main__":
    sys.exit(main())
