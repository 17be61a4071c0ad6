#!/usr/bin/env python3
"""The checker itself: a ring of four files calling each other fails, a ring
of three passes, a circle made by includes alone is seen, and a file over the
line limit fails.  Builds a tiny tree in a temporary folder with cc."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, 'house_check.py')


def make_tree(tmp, n_ring, long_lines=0, header_ring=0):
    src = os.path.join(tmp, 'src')
    build = os.path.join(tmp, 'build', 'CMakeFiles', 'x.dir', 'mod')
    os.makedirs(os.path.join(src, 'mod'))
    os.makedirs(build)
    names = [f'f{i}' for i in range(n_ring)]
    for i, n in enumerate(names):
        nxt = names[(i + 1) % n_ring]
        body = f'int {nxt}_fn(int);\nint {n}_fn(int x) {{ return x > 0 ? {nxt}_fn(x - 1) : 0; }}\n'
        if i == 0 and long_lines:
            body += '/* filler */\n' * long_lines
        path = os.path.join(src, 'mod', n + '.c')
        with open(path, 'w') as fh:
            fh.write(body)
        subprocess.run(['cc', '-c', path, '-o', os.path.join(build, n + '.c.o')], check=True)
    for i in range(header_ring):
        with open(os.path.join(src, 'mod', f'h{i}.h'), 'w') as fh:
            fh.write(f'#include "h{(i + 1) % header_ring}.h"\n')
    return src, os.path.join(tmp, 'build')


def run(src, build):
    p = subprocess.run([sys.executable, CHECK, src, build], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    failures = 0

    def expect(cond, what, out):
        nonlocal failures
        if not cond:
            failures += 1
            print(f'FAIL: {what}\n{out}')
        else:
            print(f'ok: {what}')

    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 4))
        expect(rc == 1 and 'circle of 4 files' in out, 'a ring of four calling files fails', out)
    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 3))
        expect(rc == 0, 'a ring of three calling files passes', out)
    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 2, header_ring=5))
        expect(rc == 1 and 'circle of 5 files' in out, 'five headers including each other in a ring fail', out)
    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 2, long_lines=1000))
        expect(rc == 1 and 'f0.c is 1002 lines' in out, 'a file over 1000 lines fails', out)
    with tempfile.TemporaryDirectory() as t:
        src, _ = make_tree(t, 2)
        rc, out = run(src, os.path.join(t, 'nothing-built'))
        expect(rc == 2 and 'build the project first' in out, 'no objects is a clear error', out)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
