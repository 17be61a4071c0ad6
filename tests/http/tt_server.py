"""tt_server.py - start 'tabletrack track --http' on the bundled breach sample
for a test, and talk to it (shared by the table-server tests)."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from tt_checks import HANG_S


class Server:
    """A tracker serving the table on a free loopback port, in a scratch
    folder holding a copy of the sample scenario."""

    def __init__(self, binary, root, key="testkey", extra=(), projector=True, source=None, scenario=True,
                 scenario_file=None, rig=None):
        """scenario=False: --scenario names a file that does not exist yet;
        scenario_file: the scenario to copy instead of the breach sample's;
        rig: another rig than the breach sample's; projector: True for the
        breach sample's projector.json, or another's path."""
        self.dir = tempfile.mkdtemp(prefix="tt-http-")
        self.scenario = os.path.join(self.dir, "scenario.json")
        if scenario:
            shutil.copy(scenario_file or os.path.join(root, "samples/breach/scenario.json"), self.scenario)
        self.overlay_dir = os.path.join(self.dir, "overlay")
        os.mkdir(self.overlay_dir)
        self.record = os.path.join(self.dir, "game.sqlite")
        self.key = key
        args = [binary, "track", "--rig", rig or os.path.join(root, "samples/breach/rig.json"),
                "--source", source or os.path.join(root, "samples/breach/game.mp4"),
                "--scenario", self.scenario, "--record", self.record, "--http", "127.0.0.1:0"]
        if key:
            args += ["--http-key", key]
        if projector:
            args += ["--projector", projector if isinstance(projector, str) else os.path.join(root, "samples/breach/projector.json"),
                     "--overlay-dir", self.overlay_dir]
        args += list(extra)
        env = dict(os.environ)
        env["TABLETRACK_DATA"] = root
        self.err_path = os.path.join(self.dir, "stderr.txt")
        self.errf = open(self.err_path, "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.errf, env=env, cwd=self.dir)
        self.url = None
        deadline = time.time() + HANG_S  # a guard against a hang: an ASan build starts slowly on a busy machine
        while time.time() < deadline and self.proc.poll() is None:
            m = re.search(r"^table: (http://\S+)$", self.stderr(), re.M)
            if m:
                self.url = m.group(1)
                break
            time.sleep(0.05)
        if not self.url:
            raise RuntimeError("the server did not start:\n" + self.stderr())
        self.base = self.url.split("?")[0].rstrip("/")

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def request(self, method, path, body=None, key=None, headers=None, timeout=HANG_S):
        """(status, headers, bytes) of one request; key=None sends none."""
        url = self.base + path
        if key is not None:
            url += ("&" if "?" in url else "?") + "key=" + key
        data = body.encode() if isinstance(body, str) else body
        req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def json(self, method, path, body=None, key=None, headers=None):
        st, _, data = self.request(method, path, body, key, headers)
        return st, json.loads(data)

    def wait_state(self, pred, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            st, s = self.json("GET", "/api/state")
            if st == 200 and pred(s):
                return s
            time.sleep(0.1)
        raise AssertionError("the state never became as expected")

    def stop(self, sig=signal.SIGINT, timeout=HANG_S):
        """Stop as a player would; returns (exit code, stdout)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        out, _ = self.proc.communicate(timeout=timeout)
        self.errf.close()
        return self.proc.returncode, out.decode()

    def end(self, check):
        """Stop (SIGINT), check it ended cleanly, remove the scratch folder."""
        rc, _ = self.stop()
        check(rc == 0, "the server ends cleanly (%d)" % rc)
        self.cleanup()

    def cleanup(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
