#!/usr/bin/env python3
"""bench_http.py - what the table server costs the tracker, measured in one
run against its own baseline (the machine is noisy).

The table: a 1920x1080 camera frame (a club's USB webcam) of a 72x48" table
with 60 figures and 4 anchors, drawn by tt-render, read as a 1000-frame image
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
    scene = os.path.join(work, "http-scene")
    if not os.path.exists(os.path.join(scene, "truth.json")):
        subprocess.run([render, "--out", scene, "--width", "1920", "--height", "1080", "--f-px", "1450",
                        "--bases", "60", "--out-format", "pgm", "--quiet"], check=True)
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


def track_plain(binary, args):
    """The baseline: the same tracking without a server."""
    out = subprocess.run([binary, "track"] + args, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["fps"]


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
    # The viewers stand in for phones elsewhere on the network: they do as
    # little as they can here, since they share the tracker's two cores.
    sel = selectors.DefaultSelector()
    for _ in range(VIEWERS):
        c = socket.create_connection(url)
        c.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n")
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ, [b""])
    wall = re.compile(rb'event: state\ndata: \{[^\n]*?"wall_ms":(\d+)')
    delays, states, done, deadline = [], 0, False, time.time() + 300
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
            delays += [now - int(ms) for ms in found]
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    p.send_signal(2)
    out, _ = p.communicate(timeout=120)
    stats = json.loads(out.decode().strip().splitlines()[-1])
    return stats["fps"], delays, states


def main():
    binary, render, work = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    args = make_table(render, work)
    base, served, delays, states = [], [], [], 0
    for _ in range(runs):
        base.append(track_plain(binary, args))
        fps, d, n = track_http(binary, args)
        served.append(fps)
        delays += d
        states += n
    b, s = statistics.median(base), statistics.median(served)
    delays.sort()
    p50 = delays[len(delays) // 2] if delays else float("nan")
    p95 = delays[int(0.95 * len(delays)) - 1] if delays else float("nan")
    print("track, 1920x1080, 60 figures, %d frames, %d runs each (medians)" % (FRAMES, runs))
    print("  without --http:                 %6.1f fps   (baseline; runs %s)" % (b, ", ".join("%.1f" % x for x in base)))
    print("  --http, %d viewers on /api/live: %6.1f fps   (runs %s)" % (VIEWERS, s, ", ".join("%.1f" % x for x in served)))
    print("  ratio %.3f: the viewers cost %.1f %% of the frames per second (target <= 10 %%)" % (s / b, 100 * (1 - s / b)))
    print("  state delay, frame processed -> each viewer: p50 %.1f ms, p95 %.1f ms over %d deliveries (target p95 <= 50 ms)"
          % (p50, p95, len(delays)))
    print("  states received per viewer per run: %.0f (at most %d a second are sent)" % (states / VIEWERS / runs, 60))


if __name__ == "__main__":
    main()
