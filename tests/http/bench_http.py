#!/usr/bin/env python3
"""bench_http.py - what the table server costs the tracker, measured in one
run against its own baseline (the machine is noisy).

The table: a 1920x1080 camera frame (a club's USB webcam) of a 72x48" table
with 60 figures (1.4" tags: all are found at that size) and 4 anchors, drawn by tt-render, read as a 1000-frame image
sequence (the same picture each frame, as a table between moves looks).  It
is steady tracking for a few seconds, long enough that connecting the viewers
is a small part of it.

  * fps of 'track' without --http, and with --http and 50 viewers holding
    /api/live open (alternating runs, medians); target: the viewers cost at
    most 10 % of the frames per second;
  * how long a state takes from the frame being processed (its "wall_ms") to
    each of the 50 viewers on loopback, p50 and p95; target p95 <= 50 ms.

usage: bench_http.py TABLETRACK TT_RENDER WORKDIR [RUNS]"""
import json
import os
import re
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import time

VIEWERS = 50
FRAMES = 1000


def make_table(render, work):
    """The scene, a scenario naming its figures, and the frame sequence."""
    scene = os.path.join(work, "http-scene-1080")
    if not os.path.exists(os.path.join(scene, "truth.json")):
        subprocess.run([render, "--out", scene, "--width", "1920", "--height", "1080", "--f-px", "1450",
                        "--bases", "60", "--base-size", "1.4", "--out-format", "pgm", "--quiet"], check=True)
    truth = json.load(open(os.path.join(scene, "truth.json")))
    figs, tags = [], {}
    for i, f in enumerate(truth["figures"]):
        fid = "f%d" % f["id"]
        figs.append({"id": fid, "side": "red" if i % 2 else "blue", "unit": "u%d" % (i // 6), "type": "foot",
                     "weapon": "musket", "x": f["x"], "y": f["y"], "facing_deg": f["facing_deg"]})
        tags[str(f["id"])] = fid
    scenario = os.path.join(scene, "scenario.json")
    with open(scenario, "w") as out:
        json.dump({"ruleset": "into-the-breach", "table": {"width_in": 72, "depth_in": 48}, "terrain": [],
                   "figures": figs, "tags": tags}, out)
    seq = os.path.join(scene, "seq")
    os.makedirs(seq, exist_ok=True)
    for i in range(FRAMES):
        link = os.path.join(seq, "f%04d.pgm" % i)
        if not os.path.lexists(link):
            os.symlink("../frame.pgm", link)
    return [ "--rig", os.path.join(scene, "rig.json"), "--source", os.path.join(seq, "*.pgm"),
             "--scenario", scenario, "--stats"]


def cpu_s(pid):
    """CPU seconds (user + system, all threads) a running process has used."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def track_plain(binary, args):
    """The baseline: the same tracking without a server: (fps, CPU s)."""
    p = subprocess.Popen([binary, "track"] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    out = p.stdout.read().decode()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("track failed (%d)" % p.returncode)
    return json.loads(out.strip().splitlines()[-1])["fps"], ru.ru_utime + ru.ru_stime


def watch(url):
    """50 viewers on /api/live until a state says the sequence has ended:
    (each state's delay in ms, states received, figures in the last state)."""
    # they do as little as they can: recv, and one regex per read
    sel = selectors.DefaultSelector()
    for _ in range(VIEWERS):
        c = socket.create_connection(url)
        c.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n")
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ, [b""])
    wall = re.compile(rb'event: state\ndata: \{[^\n]*?"wall_ms":(\d+)')
    delays, states, done, deadline, seen = [], 0, False, time.time() + 300, 0
    while not done and time.time() < deadline:
        for key, _ in sel.select(timeout=5):
            now = time.time() * 1000
            try:
                chunk = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            buf = key.data[0] + chunk
            cut = buf.rfind(b"\n\n")
            if cut < 0:
                key.data[0] = buf
                continue
            whole, key.data[0] = buf[:cut], buf[cut + 2:]
            found = wall.findall(whole)
            states += len(found)
            if b'"camera":"ended"' in whole:
                done = True
                found = found[:-1]  # the end's state, sent once the sequence is over
                last = whole[whole.rfind(b"event: state"):].split(b"data: ", 1)[1]
                seen = len(json.loads(last.split(b"\n", 1)[0])["figures"])
            delays += [now - int(ms) for ms in found]
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    return delays, states, seen


def track_http(binary, args):
    """The served run: 50 viewers connect as soon as the server is up; the
    tracker ends its sequence, then waits; the viewers stop it once a state
    says the sequence has ended."""
    errf = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen([binary, "track"] + args + ["--http", "127.0.0.1:0"], stdout=subprocess.PIPE,
                         stderr=errf)
    url = None
    while url is None:
        if p.poll() is not None:
            errf.seek(0)
            raise SystemExit("the server did not start: " + errf.read())
        errf.seek(0)
        m = re.search(r"^table: http://([\d.]+):(\d+)/", errf.read(), re.M)
        if m:
            url = (m.group(1), int(m.group(2)))
        else:
            time.sleep(0.002)
    # The viewers stand in for phones on the network.  Here they share the
    # tracker's two cores, so they run in a process nicer than it, as another
    # device's work would not take its CPU at all.  (The server's own viewer
    # threads are counted: they run inside tabletrack.)
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rd)
        os.nice(10)
        with os.fdopen(wr, "w") as out:
            json.dump(watch(url), out)
        os._exit(0)
    os.close(wr)
    with os.fdopen(rd) as inp:
        delays, states, seen = json.load(inp)
    os.waitpid(pid, 0)
    cpu = cpu_s(p.pid)  # the whole run, its viewer threads included
    p.send_signal(2)
    out, _ = p.communicate(timeout=120)
    stats = json.loads(out.decode().strip().splitlines()[-1])
    return stats["fps"], delays, states, seen, cpu


def main():
    binary, render, work = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    args = make_table(render, work)
    base, served, delays, states, figs, cpu_base, cpu_served = [], [], [], 0, 0, [], []
    for _ in range(runs):
        fps, cpu = track_plain(binary, args)
        base.append(fps)
        cpu_base.append(cpu)
        fps, d, n, figs, cpu = track_http(binary, args)
        cpu_served.append(cpu)
        served.append(fps)
        delays += d
        states += n
    b, s = statistics.median(base), statistics.median(served)
    delays.sort()
    p50 = delays[len(delays) // 2] if delays else float("nan")
    p95 = delays[int(0.95 * len(delays)) - 1] if delays else float("nan")
    print("track, 1920x1080, %d figures in the last state, %d frames, %d runs each (medians)" % (figs, FRAMES, runs))
    print("  without --http:                 %6.1f fps   (baseline; runs %s)" % (b, ", ".join("%.1f" % x for x in base)))
    print("  --http, %d viewers on /api/live: %6.1f fps   (runs %s)" % (VIEWERS, s, ", ".join("%.1f" % x for x in served)))
    print("  ratio %.3f: the viewers cost %.1f %% of the frames per second (target <= 10 %%)" % (s / b, 100 * (1 - s / b)))
    cb, cs = statistics.median(cpu_base), statistics.median(cpu_served)
    # CPU time is what the server adds whatever else the machine is doing
    print("  CPU per frame (all threads): %.2f ms without, %.2f ms with the viewers (+%.1f %%)"
          % (1000 * cb / FRAMES, 1000 * cs / FRAMES, 100 * (cs / cb - 1)))
    print("  state delay, frame processed -> each viewer: p50 %.1f ms, p95 %.1f ms over %d deliveries (target p95 <= 50 ms)"
          % (p50, p95, len(delays)))
    print("  states received per viewer per run: %.0f (at most 30 a second are sent)" % (states / VIEWERS / runs))


if __name__ == "__main__":
    main()
