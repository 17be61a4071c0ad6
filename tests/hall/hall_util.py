"""hall_util.py - shared by the hall tests: a real mosquitto on a free
loopback port, the hall and tables as subprocesses, and the comparison of
a table's recording with the hall's copy, row by row."""
import json
import os
import pwd
import resource
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import urllib.request

MOSQUITTO = shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)
MOSQUITTO_PASSWD = shutil.which("mosquitto_passwd")
# Deadlines that only guard against a hang: a starved machine (the suite
# niced beside CPU burners) may take tens of seconds to start an ASan build.
HANG_S = 180


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Broker:
    """mosquitto on 127.0.0.1:PORT with its store in dir; users: {name: password}."""

    def __init__(self, dir, port=None, users=None, persistence=True, acl=None, tls=None, nodelay=True, extra=()):
        self.dir = dir
        self.port = port or free_port()
        self.conf = os.path.join(dir, "mosquitto.conf")
        # run as whoever runs the test (as root mosquitto would switch to its own
        # user, which cannot read the test's private folder)
        lines = ["listener %d 127.0.0.1" % self.port, "user " + pwd.getpwuid(os.getuid()).pw_name]
        if nodelay:  # as samples/hall/mosquitto.conf
            lines += ["set_tcp_nodelay true"]
        if tls:  # {"cafile", "certfile", "keyfile"}: a TLS listener
            lines += ["%s %s" % (k, tls[k]) for k in ("cafile", "certfile", "keyfile")]
        if users:
            pw = os.path.join(dir, "passwd")
            for i, (u, p) in enumerate(users.items()):
                subprocess.run([MOSQUITTO_PASSWD, "-b"] + (["-c"] if i == 0 else []) + [pw, u, p], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            lines += ["allow_anonymous false", "password_file " + pw]
            if acl:
                lines += ["acl_file " + acl]
        else:
            lines += ["allow_anonymous true"]
        lines += list(extra)  # more lines of mosquitto.conf
        if persistence:
            # saved every 30 min (mosquitto's default) and at a clean stop: a kill -9 loses what came since
            lines += ["persistence true", "persistence_location " + dir + "/"]
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.proc = None
        self.start()

    def start(self):
        self.log = open(os.path.join(self.dir, "mosquitto.log"), "a")
        self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + HANG_S
        while time.time() < deadline and self.proc.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not start on port %d" % self.port)

    def kill(self):
        """kill -9: what mosquitto had not saved is lost."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.log.close()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(HANG_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()

    @property
    def addr(self):
        return "127.0.0.1:%d" % self.port


class Proc:
    """A tabletrack process with its stderr in a file."""

    def __init__(self, args, dir, name, env=None):
        self.err_path = os.path.join(dir, name + ".err")
        self.errf = open(self.err_path, "w")
        e = dict(os.environ)
        e.update(env or {})
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.errf, env=e, cwd=dir)

    def stderr(self):
        with open(self.err_path) as f:
            return f.read()

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        finally:
            self.errf.close()

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(HANG_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.errf.close()


def vm_hwm_kb(pid):
    """A process's peak resident memory (VmHWM in /proc/PID/status), in kB."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError("no VmHWM for process %d" % pid)


def shipped_conf(root, key):
    """The value of `key` in the shipped samples/hall/mosquitto.conf (None when it sets none)."""
    with open(os.path.join(root, "samples/hall/mosquitto.conf")) as f:
        for line in f:
            w = line.split()
            if len(w) >= 2 and w[0] == key:
                return w[1]
    return None


def wait_for(what, timeout, step=0.1):
    """what() until it is true, or timeout: its last value."""
    deadline = time.time() + timeout
    v = what()
    while not v and time.time() < deadline:
        time.sleep(step)
        v = what()
    return v


def exit_after(p, marker, timeout=HANG_S * 2):
    """(exit code, seconds from when p's stderr first showed marker to its exit): how long p went on once it
    had said something, its start-up (long on a starved machine) left out.  0 s when it exited first."""
    deadline = time.time() + timeout
    while time.time() < deadline and p.proc.poll() is None and marker not in p.stderr():
        time.sleep(0.05)
    t0 = time.time()
    rc = p.wait(timeout)
    return rc, time.time() - t0


def start_hall(tt, broker, dir, games, extra=(), env=None, name="hall", subscribed=True):
    """A hall on a free port, once it serves /api/hall and (subscribed) the broker has granted its
    subscriptions: what is published from then on reaches it (a table started earlier may lose its first
    chunks to a hall not yet listening, and a stranger's messages all of theirs)."""
    port = free_port()
    h = Proc([tt, "hall", "--mqtt", broker.addr, "--http", "127.0.0.1:%d" % port, "--dir", games] + list(extra),
             dir, name, env)
    h.url = "http://127.0.0.1:%d/" % port
    deadline = time.time() + HANG_S
    while time.time() < deadline:
        try:
            if get_json(h.url + "api/hall")["subscribed"] or not subscribed:
                return h
        except OSError:
            if h.proc.poll() is not None:
                break
        time.sleep(0.05)
    raise RuntimeError("the hall did not start (or never listened on the broker) in %d s:\n%s" % (HANG_S, h.stderr()))


def make_certs(dir, name="ca"):
    """A throwaway CA (dir/NAME.crt) and a broker certificate it signs for 127.0.0.1 (dir/NAME-broker.crt,
    .key), made with openssl; returns their paths."""
    p = lambda f: os.path.join(dir, f)
    run = lambda *a: subprocess.run(["openssl"] + list(a), check=True, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=tabletrack test CA " + name,
        "-keyout", p(name + ".key"), "-out", p(name + ".crt"))
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", p(name + "-broker.key"),
        "-out", p(name + "-broker.csr"))
    with open(p(name + "-san.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    run("x509", "-req", "-days", "1", "-in", p(name + "-broker.csr"), "-CA", p(name + ".crt"), "-CAkey",
        p(name + ".key"), "-CAcreateserial", "-extfile", p(name + "-san.cnf"), "-out", p(name + "-broker.crt"))
    return {"cafile": p(name + ".crt"), "certfile": p(name + "-broker.crt"), "keyfile": p(name + "-broker.key")}


def get_json(url, timeout=HANG_S):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def session_rows(path, session=0):
    """Everything a session holds, without the row ids (which differ between files)."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    if session == 0:
        session = db.execute("SELECT max(id) FROM session").fetchone()[0]
    out = {}
    out["session"] = db.execute("SELECT started_utc, started_unix_ms, source, note, rig_json, scenario_json, "
                                "last_frame, last_t_ms, ended_utc FROM session WHERE id = ?", (session,)).fetchall()
    out["figure"] = db.execute("SELECT family, tag, name, side FROM figure WHERE session = ? ORDER BY id",
                               (session,)).fetchall()
    out["state"] = db.execute("SELECT g.family, g.tag, s.frame, s.t_ms, s.x, s.y, s.facing_deg, s.state, s.z_in "
                              "FROM state s "
                              "JOIN figure g ON g.id = s.figure WHERE g.session = ? ORDER BY s.rowid",
                              (session,)).fetchall()
    out["event"] = db.execute("SELECT e.frame, e.t_ms, e.kind, g.family, g.tag, e.from_x, e.from_y, e.to_x, e.to_y, "
                              "e.z_in "
                              "FROM event e JOIN figure g ON g.id = e.figure WHERE e.session = ? ORDER BY e.id",
                              (session,)).fetchall()
    out["query"] = db.execute("SELECT frame, t_ms, query_json, answer_json FROM query WHERE session = ? ORDER BY id",
                              (session,)).fetchall()
    out["scenario_change"] = db.execute("SELECT frame, t_ms, scenario_json FROM scenario_change WHERE session = ? "
                                        "ORDER BY id", (session,)).fetchall()
    has_ref = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'referee'").fetchone()
    out["referee"] = db.execute("SELECT frame, t_ms, event, event_json FROM referee WHERE session = ? ORDER BY id",
                                (session,)).fetchall() if has_ref else []  # the referee's events (schema 5)
    db.close()
    return out


def differences(table_path, hall_path, hall_session=0, table_session=0):
    """What differs between the table's latest session (or table_session) and the hall's copy ([] when equal)."""
    a, b = session_rows(table_path, table_session), session_rows(hall_path, hall_session)
    diffs = []
    for k in a:
        if a[k] != b[k]:
            first = next((i for i, (x, y) in enumerate(zip(a[k], b[k])) if x != y), min(len(a[k]), len(b[k])))
            diffs.append("%s: table %d rows, hall %d; first difference at row %d: %r vs %r" % (
                k, len(a[k]), len(b[k]), first, a[k][first] if first < len(a[k]) else None,
                b[k][first] if first < len(b[k]) else None))
    return diffs


def wait_equal(table_path, hall_path, timeout, compare=differences):
    """compare(table_path, hall_path) until it finds no difference, or timeout: what still differs."""
    deadline = time.time() + timeout
    d = ["the hall's copy %s does not exist" % hall_path]
    while time.time() < deadline:
        if os.path.exists(hall_path):
            try:
                d = compare(table_path, hall_path)
            except sqlite3.Error as e:
                d = [str(e)]
            if not d:
                return []
        time.sleep(0.2)
    return d


def session_ids(path):
    """The sessions of a recording, oldest first ([] while it has none, or no schema yet)."""
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return [r[0] for r in db.execute("SELECT id FROM session ORDER BY id")]
    except sqlite3.OperationalError:
        return []
    finally:
        db.close()


def all_differences(table_path, hall_path):
    """Every session of the table's recording against the hall's copy, in order: the same sessions, with the
    table's ids, each row for row ([] when equal)."""
    a, b = session_ids(table_path), session_ids(hall_path)
    if a != b:
        return ["the table's recording has sessions %s, the hall's copy %s" % (a, b)]
    return ["session %d: %s" % (i, d) for i in a for d in differences(table_path, hall_path, i, i)]


def wait_all_equal(table_path, hall_path, timeout):
    return wait_equal(table_path, hall_path, timeout, all_differences)
