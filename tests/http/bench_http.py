#!/usr/bin/env python3
"""bench_http.py - what the table server costs the tracker, measured in one
run against its own baseline (the machine is noisy):

  * fps of 'track --preload' on the breach video without --http, and with
    --http and 50 viewers holding /api/live open (alternating, 3 runs each,
    medians); target: the viewers cost at most 10 % of the frames per second;
  * how long a state takes from the frame being processed (its "wall_ms") to
    each of the 50 viewers on loopback, p50 and p95; target p95 <= 50 ms.

usage: bench_http.py TABLETRACK SOURCE_ROOT [RUNS]"""
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


def base_args(binary, root):
    return [binary, "track", "--rig", os.path.join(root, "samples/breach/rig.json"), "--source",
            os.path.join(root, "samples/breach/game.mp4"), "--scenario",
            os.path.join(root, "samples/breach/scenario.json"), "--preload", "--stats"]


def track_plain(binary, root):
    """The baseline: the same tracking without a server."""
    out = subprocess.run(base_args(binary, root), capture_output=True, text=True, check=True,
                         env=dict(os.environ, TABLETRACK_DATA=root)).stdout
    return json.loads(out.strip().splitlines()[-1])["fps"]


def main():
    binary, root = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    base, served, delays = [], [], []
    for _ in range(runs):
        base.append(track_plain(binary, root))
        fps, d = track_http(binary, root)
        served.append(fps)
        delays += d
    b, s = statistics.median(base), statistics.median(served)
    delays.sort()
    p50 = delays[len(delays) // 2] if delays else float("nan")
    p95 = delays[int(0.95 * len(delays)) - 1] if delays else float("nan")
    print("track --preload, breach video, %d runs each (medians)" % runs)
    print("  without --http:                 %6.1f fps   (baseline; runs %s)" % (b, ", ".join("%.1f" % x for x in base)))
    print("  --http, %d viewers on /api/live: %6.1f fps   (runs %s)" % (VIEWERS, s, ", ".join("%.1f" % x for x in served)))
    print("  ratio %.3f: the viewers cost %.1f %% of the frames per second (target <= 10 %%)" % (s / b, 100 * (1 - s / b)))
    print("  state delay, frame processed -> each viewer: p50 %.1f ms, p95 %.1f ms over %d deliveries (target p95 <= 50 ms)"
          % (p50, p95, len(delays)))


def track_http(binary, root):
    """The served run: 50 viewers connect as soon as the server is up; the
    tracker ends its video, then waits; the viewers stop it once a state
    says the video has ended."""
    args = base_args(binary, root) + ["--http", "127.0.0.1:0"]
    env = dict(os.environ, TABLETRACK_DATA=root)
    errf = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=errf, env=env)
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
    sel = selectors.DefaultSelector()
    for _ in range(VIEWERS):
        c = socket.create_connection(url)
        c.sendall(b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n")
        c.setblocking(False)
        sel.register(c, selectors.EVENT_READ, bytearray())
    delays, done, deadline = [], False, time.time() + 300
    while not done and time.time() < deadline:
        for key, _ in sel.select(timeout=5):
            now = time.time() * 1000
            try:
                chunk = key.fileobj.recv(1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            buf = key.data
            buf += chunk
            while True:
                i = buf.find(b"\n\n")
                if i < 0:
                    break
                block = bytes(buf[:i])
                del buf[:i + 2]
                if b"event: state" not in block:
                    continue
                if b'"camera":"ended"' in block:
                    done = True
                    continue
                m = re.search(rb'"wall_ms":(\d+)', block)
                if m:
                    delays.append(now - int(m.group(1)))
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    p.send_signal(2)
    out, _ = p.communicate(timeout=120)
    stats = json.loads(out.decode().strip().splitlines()[-1])
    return stats["fps"], delays


if __name__ == "__main__":
    main()
