#!/usr/bin/env python3
"""bench_hall.py BIN TT_REC_SAMPLE [TABLES] - the hall under load (a
benchmark, not a test): TABLES (default 50) replayed tables at 1x into one
hall through a mosquitto started here on a free loopback port.  Prints the
hall's CPU, the delay of a live state from table to hall (p50, p95) and the
frames lost (rows of the tables' recordings missing from the hall's copies).
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


def main():
    tt, sample = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    if not U.MOSQUITTO:
        print("skipped: mosquitto is not installed (make deps)")
        return 77
    dir = tempfile.mkdtemp(prefix="tt-hall-bench-")
    broker = U.Broker(dir)
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
        rcs = [r.wait(120) for r in rs]
        c1, b1, w1 = cpu_s(hall.proc.pid), cpu_s(broker.proc.pid), time.time()
        t1 = U.resource.getrusage(U.resource.RUSAGE_CHILDREN)
        tables_cpu = (t1.ru_utime + t1.ru_stime) - (t0.ru_utime + t0.ru_stime)
        stats = U.get_json(hall.url + "api/hall")
        lost = 0
        unequal = 0
        for i in range(n):
            d = U.wait_equal(recs[i], os.path.join(games, "t%02d.sqlite" % i), 10)
            if d:
                unequal += 1
                a = U.session_rows(recs[i])["state"]
                b = U.session_rows(os.path.join(games, "t%02d.sqlite" % i))["state"] if os.path.exists(
                    os.path.join(games, "t%02d.sqlite" % i)) else []
                lost += max(0, len(a) - len(b))
        hall.stop()
        api.sort()
        print("tables: %d replayed at 1x for %.1f s; replays exiting 0: %d" % (n, w1 - w0, rcs.count(0)))
        print("hall CPU: %.1f %% of one core (%.2f s over %.1f s)" % (100 * (c1 - c0) / (w1 - w0), c1 - c0, w1 - w0))
        print("broker CPU: %.1f %% of one core; the %d tables together: %.1f %% (this machine has %d cores)" % (
            100 * (b1 - b0) / (w1 - w0), n, 100 * tables_cpu / (w1 - w0), os.cpu_count()))
        print("state delay table -> hall: p50 %s ms, p95 %s ms (%d states)" % (
            stats["latency_ms_p50"], stats["latency_ms_p95"], stats["states"]))
        print("GET /api/tables: p50 %.1f ms, p95 %.1f ms (%d requests)" % (
            api[len(api) // 2] * 1e3, api[int(len(api) * 0.95)] * 1e3, len(api)))
        print("frames lost: %d state rows; copies not equal to their recording: %d of %d; chunks %d, gaps %d" % (
            lost, unequal, n, stats["chunks"], stats["gaps"]))
    finally:
        broker.stop()
    shutil.rmtree(dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
