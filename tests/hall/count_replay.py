#!/usr/bin/env python3
"""count_replay.py BIN TT_REC_SAMPLE - the instructions one table takes to
publish the sample game (tt-rec-sample's recording, `tabletrack replay
--mqtt`) into a mosquitto started here, counted under callgrind, less the
program's start-up (`tabletrack --version`): bench_hall's tables as a
count, for samples/bench_against.sh.  Prints "instructions per table: N".
The replay keeps the game's pace, so a chunk carries the rows that came
while the last was sent: on a starved machine (valgrind beside two CPU
burners) chunks are fewer and larger and the count falls by half.  Count
both builds on a quiet machine, one after the other."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hall_util as U  # noqa: E402


def collected(cmd, dir):
    """Instructions callgrind collected running cmd."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + cmd, cwd=dir,
                       capture_output=True, text=True, timeout=3 * U.HANG_S)
    m = re.findall(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit("count_replay: %s exited %d under callgrind:\n%s" % (" ".join(cmd), r.returncode, r.stderr[-2000:]))
    return int(m[-1])


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: count_replay.py BIN TT_REC_SAMPLE")
    tt, sample = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])  # run from a temporary folder
    if not shutil.which("valgrind"):
        sys.exit("count_replay: valgrind is not installed (apt-get install valgrind)")
    top = tempfile.mkdtemp(prefix="tt-count-replay-")
    try:
        rec = os.path.join(top, "t.sqlite")
        subprocess.run([sample, rec], check=True, stdout=subprocess.DEVNULL)
        broker = U.Broker(top)
        try:
            run = collected([tt, "replay", rec, "--mqtt", broker.addr, "--table", "t00"], top)
        finally:
            broker.stop()
        start = collected([tt, "--version"], top)
        print("instructions per table: %d" % (run - start))
    finally:
        shutil.rmtree(top, ignore_errors=True)


if __name__ == "__main__":
    main()
