#!/usr/bin/env python3
"""bench_hall.py BIN TT_REC_SAMPLE [TABLES] - the hall under load (a
benchmark, not a test): TABLES (default 50) replayed tables at 1x into one
hall through a mosquitto started here on a free loopback port.  Prints the
hall's CPU, the delay of a live state from table to hall (p50, p95) and the
frames lost (rows of the tables' recordings missing from the hall's copies).

Same-run baseline: one table alone (the delay with no load), and the same
TABLES through a broker with mosquitto's default Nagle (without the shipped
samples/hall/mosquitto.conf's set_tcp_nodelay); ratios against both.  The
machine's load average is printed with each run (the tables, the broker and
the hall share this machine's cores; at a convention each table is a laptop).
Run it on a release build: make bench BENCH=hall."""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hall_util as U  # noqa: E402


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(tt, sample, n, nodelay, top):
    """n tables replayed at 1x into a hall; the figures of the run."""
    dir = tempfile.mkdtemp(prefix="run-", dir=top)
    broker = U.Broker(dir, nodelay=nodelay)
    out = {"tables": n, "load_before": os.getloadavg()[0]}
    try:
        games = os.path.join(dir, "games")
        hall = U.start_hall(tt, broker, dir, games)
        recs = []
        for i in range(n):
            recs.append(os.path.join(dir, "t%02d.sqlite" % i))
            U.subprocess.run([sample, recs[-1]], check=True)
        c0, b0, w0 = cpu_s(hall.proc.pid), cpu_s(broker.proc.pid), time.time()
        t0 = U.resource.getrusage(U.resource.RUSAGE_CHILDREN)
        rs = [U.Proc([tt, "replay", recs[i], "--mqtt", broker.addr, "--table", "t%02d" % i], dir, "r%02d" % i)
              for i in range(n)]
        api = []
        while any(r.proc.poll() is None for r in rs):
            t = time.time()
            U.get_json(hall.url + "api/tables")
            api.append(time.time() - t)
            time.sleep(0.25)
        out["rcs"] = [r.wait(120) for r in rs]
        c1, b1, w1 = cpu_s(hall.proc.pid), cpu_s(broker.proc.pid), time.time()
        t1 = U.resource.getrusage(U.resource.RUSAGE_CHILDREN)
        out["load_after"] = os.getloadavg()[0]
        out["wall"] = w1 - w0
        out["hall_cpu"] = (c1 - c0) / (w1 - w0)
        out["broker_cpu"] = (b1 - b0) / (w1 - w0)
        out["tables_cpu"] = ((t1.ru_utime + t1.ru_stime) - (t0.ru_utime + t0.ru_stime)) / (w1 - w0)
        out["stats"] = U.get_json(hall.url + "api/hall")
        lost = unequal = 0
        for i in range(n):
            copy = os.path.join(games, "t%02d.sqlite" % i)
            if U.wait_equal(recs[i], copy, 10):
                unequal += 1
                b = U.session_rows(copy)["state"] if os.path.exists(copy) else []
                lost += max(0, len(U.session_rows(recs[i])["state"]) - len(b))
        out["lost"], out["unequal"] = lost, unequal
        hall.stop()
        api.sort()
        out["api"] = (api[len(api) // 2] * 1e3, api[int(len(api) * 0.95)] * 1e3, len(api))
    finally:
        broker.stop()
    return out


def show(name, r):
    s = r["stats"]
    print("%s: %d table(s) at 1x for %.1f s, replays exiting 0: %d; load average %.1f before, %.1f after" % (
        name, r["tables"], r["wall"], r["rcs"].count(0), r["load_before"], r["load_after"]))
    print("  state delay table -> hall: p50 %s ms, p95 %s ms (%d states)" % (
        s["latency_ms_p50"], s["latency_ms_p95"], s["states"]))
    print("  hall CPU %.1f %% of a core; broker %.1f %%; the tables together %.1f %% (%d cores)" % (
        100 * r["hall_cpu"], 100 * r["broker_cpu"], 100 * r["tables_cpu"], os.cpu_count()))
    print("  GET /api/tables: p50 %.1f ms, p95 %.1f ms (%d requests; target p95 <= 500 ms while a dozen tables "
          "publish)" % r["api"])
    print("  frames lost: %d state rows; copies not equal to their recording: %d of %d; chunks %d, gaps %d" % (
        r["lost"], r["unequal"], r["tables"], s["chunks"], s["gaps"]))


def main():
    tt, sample = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    if not U.MOSQUITTO:
        print("skipped: mosquitto is not installed (make deps)")
        return 77
    top = tempfile.mkdtemp(prefix="tt-hall-bench-")
    try:
        one = run(tt, sample, 1, True, top)
        show("baseline, one table alone", one)
        nagle = run(tt, sample, n, False, top)
        show("baseline, a broker with Nagle (mosquitto's default, not the shipped conf)", nagle)
        many = run(tt, sample, n, True, top)
        show("the hall as shipped (set_tcp_nodelay)", many)
        p95 = lambda r: r["stats"]["latency_ms_p95"] or float("nan")
        print("p95 state delay with %d tables: %.0f ms (target <= 250 ms); %.1fx the one-table baseline (%.0f ms), "
              "%.2fx the Nagle broker's (%.0f ms)" % (n, p95(many), p95(many) / p95(one), p95(one),
                                                      p95(many) / p95(nagle), p95(nagle)))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
