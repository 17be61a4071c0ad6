#!/usr/bin/env python3
"""The checker itself: a ring of four files calling each other fails, a ring
of three passes, a circle made by includes alone is seen, a file over the
line limit fails, and a function of 151 lines fails where one of 150 passes.
Builds a tiny tree in a temporary folder with cc."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK = os.path.join(HERE, 'house_check.py')


def function_of(name, lines):
    """A C function `lines` long as Universal Ctags measures it: from the
    line of its name to its closing brace."""
    body = [f'int {name}(int x)', '{'] + ['    x += 1;'] * (lines - 4) + ['    return x;', '}']
    return '\n'.join(body) + '\n'


def make_tree(tmp, n_ring, long_lines=0, header_ring=0, fn_lines=0, fn_name='long_fn'):
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
        if i == 1 and fn_lines:
            body += function_of(fn_name, fn_lines)
        path = os.path.join(src, 'mod', n + '.c')
        with open(path, 'w') as fh:
            fh.write(body)
        subprocess.run(['cc', '-c', path, '-o', os.path.join(build, n + '.c.o')], check=True)
    for i in range(header_ring):
        with open(os.path.join(src, 'mod', f'h{i}.h'), 'w') as fh:
            fh.write(f'#include "h{(i + 1) % header_ring}.h"\n')
    return src, os.path.join(tmp, 'build')


def run(src, build, *extra):
    p = subprocess.run([sys.executable, CHECK, src, build, *extra], capture_output=True, text=True)
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
        rc, out = run(*make_tree(t, 2, fn_lines=151))
        expect(rc == 1 and 'function long_fn is 151 lines' in out and 'f1.c' in out,
               'a function of 151 lines fails, named with its file', out)
    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 2, fn_lines=150))
        expect(rc == 0 and 'long_fn' not in out,
               'a function of 150 lines passes', out)
    with tempfile.TemporaryDirectory() as t:
        rc, out = run(*make_tree(t, 2, fn_lines=151), '--known-long', 'long_fn', '--known-long', 'gone_fn')
        expect(rc == 0 and 'known mod/f1.c: function long_fn is 151 lines' in out and
               'function gone_fn is no longer over' in out,
               'a known long function is reported, not failed; one no longer long gets a note', out)
    with tempfile.TemporaryDirectory() as t:
        src, _ = make_tree(t, 2)
        rc, out = run(src, os.path.join(t, 'nothing-built'))
        expect(rc == 2 and 'build the project first' in out, 'no objects is a clear error', out)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
