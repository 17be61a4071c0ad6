#!/usr/bin/env python3
"""check_readme.py README SRC_DIR BUILD_DIR - the README and the manual as a tested contract.

The files checked are README and every SRC_DIR/docs/*.md (the manual), in
that order (docs by name).  Every shell command in each file is extracted
mechanically and run, in the file's order, in a scratch directory of its own
(so each page of the manual can be followed from the same start), against
the built binary and the bundled samples:

  * commands: lines of indented or fenced code blocks, and `inline code`,
    that start with tabletrack, build/tabletrack, ./build/..., tt-rec-sample,
    make, cmake or ctest.  A trailing backslash joins lines; a heredoc
    (<<'Q' ... Q) belongs to its command; "# ..." comments are dropped.
    Lines of the block after a command that are not commands are its
    expected output, compared with what it prints.
  * synopses are shown, not run: a command with [optional] parts, "...",
    or an UPPERCASE placeholder (RIG, IMAGE, FILE); so is a bare command name
    in running text (`tabletrack rules`).
  * make, cmake and ctest lines are checked, not run (this test is itself
    run by `make test`): the make target exists (make -n), the cmake target
    exists, a configure line's -D variables exist, the ctest regex selects
    at least one test.
  * a command that needs hardware (a camera, a projector, photos of your own
    board) is marked in its file with an HTML comment
        <!-- readme-test skip "SUBSTRING": why -->
    and every command of that file containing SUBSTRING is skipped with that
    reason.  A marker that matches no command of its file fails the test (it
    is stale).
  * every relative link and image ([text](docs/setup.md#the-rig-file),
    ![..](felt.png)) names a file that exists, and a #fragment names a
    heading of the file it points into (GitHub's anchors).
  * README stays at most 300 lines: the manual is in docs/.

Each scratch directory holds: build -> the build tree (build/tabletrack),
samples -> the samples, tabletrack and tt-rec-sample on PATH, and the file
names the README uses for your own files: rig.json, camera.yaml, frame.jpg
and frame.png (samples/table), projector.json (samples/projector), farm.json
(samples/scenarios), game.json (samples/breach), photos/ (the photos of the
calibration board, samples/board-photos: taken by the sample table's
camera, so the camera.yaml that `calib camera` makes from them fits its
frame), and recordings game.sqlite and GAME.sqlite (tt-rec-sample;
GAME.sqlite has 2 sessions).

Every complete rig file shown (a code block that parses as JSON and has
"anchors") is held against the sample frame with `tabletrack check`, which
must pass: an example rig that does not fit the samples misleads.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

README_MAX_LINES = 300
CMD_WORDS = ("tabletrack", "build/tabletrack", "./build/", "build/tests/", "tt-rec-sample", "make", "cmake", "ctest")


def is_command(line):
    s = line.strip()
    return any(s == w or s.startswith(w + " ") or (w.endswith("/") and s.startswith(w)) for w in CMD_WORDS)


def strip_comment(cmd):
    """Drop a trailing '# comment' outside quotes."""
    q = None
    for i, c in enumerate(cmd):
        if q:
            if c == q:
                q = None
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or cmd[i - 1] in " \t"):
            return cmd[:i].rstrip()
    return cmd.rstrip()


def unquoted(cmd):
    """The command with quoted strings and heredoc bodies removed."""
    first = cmd.split("\n", 1)[0]
    return re.sub(r"'[^']*'|\"[^\"]*\"", "''", first)


def is_synopsis(cmd):
    u = unquoted(cmd)
    if re.search(r"\[|\.\.\.|…", u):
        return True
    # an UPPERCASE placeholder word (not VAR=value, not a file name like GAME.sqlite)
    return any(re.fullmatch(r"[A-Z][A-Z0-9_]+", t) for t in u.split())


def extract(text):
    """[(line_no, command, expected_output or None, inline)] in README order."""
    out = []
    lines = text.split("\n")
    i, in_fence, in_block = 0, False, False
    prev_blank = True
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_fence = not in_fence
            i += 1
            continue
        # an indented code block starts after a blank line and runs while
        # lines stay indented (or blank)
        in_block = line.startswith("    ") and (prev_blank or in_block)
        code = in_fence or in_block
        if code and is_command(line):
            start = i
            cmd = strip_comment(line.strip())
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1].rstrip() + " " + strip_comment(lines[i].strip())
            m = re.search(r"<<-?'?(\w+)'?", cmd)
            if m:
                body = []
                while i + 1 < len(lines) and lines[i + 1].strip() != m.group(1):
                    i += 1
                    body.append(lines[i].strip())
                i += 1
                cmd = cmd + "\n" + "\n".join(body) + "\n" + m.group(1)
            # expected output: following non-command code lines of the block
            expect = []
            while (i + 1 < len(lines) and lines[i + 1].startswith("    ") and not is_command(lines[i + 1])
                   and not lines[i + 1].strip().startswith("#")):
                i += 1
                expect.append(lines[i].strip())
            out.append((start + 1, cmd, expect or None, False))
        elif not code:
            for m in re.finditer(r"`([^`]+)`", line):
                c = m.group(1).strip()
                if is_command(c):
                    out.append((i + 1, c, None, True))
        prev_blank = line.strip() == ""
        i += 1
    return out


def markers(text):
    return [(m.group(1), m.group(2).strip()) for m in re.finditer(r'<!--\s*readme-test skip "([^"]+)":\s*(.*?)-->', text)]


def setup(scratch, src, build):
    os.symlink(build, os.path.join(scratch, "build"))
    os.symlink(os.path.join(src, "samples"), os.path.join(scratch, "samples"))
    bindir = os.path.join(scratch, ".bin")
    os.mkdir(bindir)
    for prog in ("tabletrack", "tt-rec-sample"):
        os.symlink(os.path.join(build, prog), os.path.join(bindir, prog))
    s = os.path.join(src, "samples")
    for a, b in (("table/rig.json", "rig.json"), ("table/camera.yaml", "camera.yaml"), ("table/frame.png", "frame.png"),
                 ("table/frame.png", "frame.jpg"), ("projector/projector.json", "projector.json"),
                 ("scenarios/into-the-breach-farm.json", "farm.json"), ("breach/scenario.json", "game.json")):
        shutil.copy(os.path.join(s, a), os.path.join(scratch, b))
    os.symlink(os.path.join(s, "board-photos"), os.path.join(scratch, "photos"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), TABLETRACK_DATA=src)
    for name, sessions in (("game.sqlite", 1), ("GAME.sqlite", 2)):
        for _ in range(sessions):
            subprocess.run(["tt-rec-sample", name], cwd=scratch, env=env, check=True, capture_output=True)
    return env


def rig_examples(text):
    """[(line_no, rig)]: the code blocks of a Markdown file that are a whole
    rig file (JSON with "anchors")."""
    out, block, start = [], [], 0
    in_block, prev_blank = False, True
    for i, line in enumerate(text.split("\n") + [""]):
        code = line.startswith("    ") and (prev_blank or in_block)
        if code:
            if not in_block:
                block, start = [], i + 1
            block.append(line)
        elif in_block and block:
            try:
                rig = json.loads("\n".join(block))
            except ValueError:
                rig = None
            if isinstance(rig, dict) and "anchors" in rig:
                out.append((start, rig))
        in_block = code
        prev_blank = line.strip() == ""
    return out


def check_rig_examples(path, text, scratch, env):
    """Every rig file shown fits the sample frame: `check` passes with it."""
    fails = 0
    label = os.path.basename(path)
    for line_no, rig in rig_examples(text):
        rig["camera"] = os.path.join(scratch, "camera.yaml")
        name = os.path.join(scratch, ".example_rig_%d.json" % line_no)
        with open(name, "w", encoding="utf-8") as f:
            json.dump(rig, f)
        r = subprocess.run(["tabletrack", "check", "--rig", name, "frame.png"], cwd=scratch, env=env,
                           capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            fails += 1
            print("FAIL  %s:%d  the rig shown does not fit the sample frame (samples/table/frame.png):\n"
                  "      tabletrack check: exit %d: %s" % (label, line_no, r.returncode, (r.stdout + r.stderr)[-1200:]))
        else:
            print("OK    %s:%d  the rig shown fits the sample frame (tabletrack check)" % (label, line_no))
    return fails


def check_build_command(cmd, src, build):
    """make / cmake --build / ctest: check what they name exists."""
    w = cmd.split()
    if w[0] == "make":
        r = subprocess.run(["make", "-n", "-C", src] + w[1:], capture_output=True, text=True, timeout=60)
        return r.returncode == 0, "make -n: " + (r.stderr.strip()[-300:] or "ok")
    if w[0] == "ctest":
        rx = w[w.index("-R") + 1] if "-R" in w else "."
        r = subprocess.run(["ctest", "--test-dir", build, "-N", "-R", rx], capture_output=True, text=True, timeout=60)
        m = re.search(r"Total Tests: (\d+)", r.stdout)
        return bool(m and int(m.group(1)) > 0), "ctest -N -R %s: %s tests" % (rx, m.group(1) if m else "no")
    if w[0] == "cmake" and "--build" in w and "--target" in w:
        t = w[w.index("--target") + 1]
        r = subprocess.run(["cmake", "--build", build, "--target", "help"], capture_output=True, text=True,
                           timeout=60)
        return re.search(r"\b%s\b" % re.escape(t), r.stdout) is not None, "cmake target %s" % t
    if w[0] == "cmake" and "-S" in w and "-B" in w:
        # configuring a new tree: every -D names a variable this build knows
        cache = open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace").read()
        names = [a[2:].split("=")[0].split(":")[0] for a in w if a.startswith("-D")]
        unknown = [n for n in names if not re.search(r"^%s:" % re.escape(n), cache, re.M)]
        return not unknown, "configure, -D known: %s" % (", ".join(names) if not unknown else "unknown " + ", ".join(unknown))
    return None, ""


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", s).replace(" ", "-")


def prose_lines(text):
    """(line_no, line) outside fenced and indented code blocks."""
    in_fence, in_block, prev_blank = False, False, True
    for i, line in enumerate(text.split("\n")):
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        in_block = line.startswith("    ") and (prev_blank or in_block)
        prev_blank = line.strip() == ""
        if not in_fence and not in_block:
            yield i + 1, line


def anchors(text):
    seen, out = {}, set()
    for _, line in prose_lines(text):
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out


def check_links(path, text, src):
    """Every relative link and image names a file in the repository, and a
    #fragment a heading of the file it points into.  Returns failure lines."""
    bad = []
    here = os.path.dirname(path)
    for line_no, line in prose_lines(text):
        line = re.sub(r"`[^`]*`", "", line)
        for m in re.finditer(r"\]\(([^)\s]+)\)", line):
            target = m.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            name, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(here, name)) if name else path
            where = "%s:%d  (%s)" % (os.path.relpath(path, src), line_no, target)
            if os.path.relpath(dest, src).startswith(".."):
                bad.append("%s\n      points outside the repository" % where)
            elif not os.path.exists(dest):
                bad.append("%s\n      no such file: %s" % (where, os.path.relpath(dest, src)))
            elif frag and dest.endswith(".md") and frag not in anchors(open(dest, encoding="utf-8").read()):
                bad.append("%s\n      no heading with the anchor #%s in %s" % (where, frag, os.path.relpath(dest, src)))
    return bad


def run_file(path, src, build, counts):
    """Run (or check) every command of one Markdown file in a scratch directory of its own."""
    text = open(path, encoding="utf-8").read()
    label = os.path.relpath(path, src)
    cmds = extract(text)
    marks = markers(text)
    used = set()
    fails = ran = skipped = 0
    scratch = tempfile.mkdtemp(prefix="tt_readme_")
    try:
        env = setup(scratch, src, build)
        fails += check_rig_examples(path, text, scratch, env)
        for line_no, cmd, expect, inline in cmds:
            show = cmd.split("\n", 1)[0]
            hit = [(s, why) for s, why in marks if s in cmd]
            if hit:
                used.update(s for s, _ in hit)
                print("SKIP  %s:%d  %s\n      (marked: %s)" % (label, line_no, show, hit[0][1]))
                skipped += 1
                continue
            if is_synopsis(cmd) or (inline and re.fullmatch(r"(build/)?tabletrack( \w+)?", cmd)):
                print("SYNOPSIS %s:%d  %s" % (label, line_no, show))
                counts["synopses"] += 1
                continue
            word = cmd.split()[0]
            if word in ("make", "cmake", "ctest"):
                ok, what = check_build_command(cmd, src, build)
                if ok is None:
                    print("FAIL  %s:%d  %s\n      (a build command this test does not know how to check: run it "
                          "or mark it)" % (label, line_no, show))
                    fails += 1
                elif not ok:
                    print("FAIL  %s:%d  %s\n      %s" % (label, line_no, show, what))
                    fails += 1
                else:
                    print("CHECK %s:%d  %s  (%s)" % (label, line_no, show, what))
                    counts["checked"] += 1
                continue
            try:
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", cmd], cwd=scratch, env=env,
                                   capture_output=True, text=True, timeout=600)
                rc, out, err = r.returncode, r.stdout, r.stderr
            except subprocess.TimeoutExpired:
                rc, out, err = -1, "", "timed out after 600 s"
            ran += 1
            bad = rc != 0
            if not bad and expect is not None:
                got = [l.strip() for l in out.strip().split("\n")]
                if got != expect:
                    bad = True
                    err = "output differs from %s:\n        got:  %s\n        want: %s" % (
                        label, "\n              ".join(got), "\n              ".join(expect))
            if bad:
                fails += 1
                print("FAIL  %s:%d  %s\n      exit %d: %s" % (label, line_no, show, rc, err.strip()[-1500:]))
            else:
                print("OK    %s:%d  %s" % (label, line_no, show))
        for s, why in marks:
            if s not in used:
                print("FAIL  %s: stale marker: readme-test skip \"%s\" matches no command" % (label, s))
                fails += 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    for b in check_links(path, text, src):
        print("FAIL  link %s" % b)
        fails += 1
    print("%s: %d commands run, %d skipped (marked), %d failed\n" % (label, ran, skipped, fails))
    counts["ran"] += ran
    counts["skipped"] += skipped
    counts["failed"] += fails


def main():
    readme, src, build = sys.argv[1:4]
    src = os.path.abspath(src)
    files = [os.path.abspath(readme)] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
    counts = dict(ran=0, skipped=0, checked=0, synopses=0, failed=0)
    for path in files:
        run_file(path, src, build, counts)
    n = open(readme, encoding="utf-8").read().count("\n")
    if n > README_MAX_LINES:
        print("FAIL  README.md is %d lines, more than %d: move the detail into docs/" % (n, README_MAX_LINES))
        counts["failed"] += 1
    print("readme: %d files, %d commands run, %d checked, %d skipped (marked), %d synopses, %d failed" % (
        len(files), counts["ran"], counts["checked"], counts["skipped"], counts["synopses"], counts["failed"]))
    return 1 if counts["failed"] or counts["ran"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
