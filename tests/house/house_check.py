#!/usr/bin/env python3
"""The house's shape, checked on the built tree (issue 25).

  house_check.py SOURCE_DIR BUILD_DIR [--max-lines N] [--max-circle N] [--max-function N]
                 [--known-long NAME]... [--print]

Every .c, .h and .cpp file outside tests/ is a node.  A file depends on
another when it includes that file's header (#include "x.h") or calls a
function defined there (a symbol the first file's object needs and the
second file's object defines, read with nm from BUILD_DIR's objects).
Fails (exit 1) when a circle of files (a strongly connected set) is larger
than --max-circle (default 3), when a file is longer than --max-lines
(default 1000), or when a function is longer than --max-function lines
(default 150), measured as Universal Ctags measures it (ctags --fields=+ne:
from the line of its name to its closing brace).  --print lists the
circles, the longest files and the longest functions.  --known-long NAME:
a function already over the limit whose split is under way elsewhere,
reported but not failed (a note says when it no longer needs the pass).
"""
import json
import argparse
import os
import re
import subprocess
import sys

EXTS = ('.c', '.h', '.cpp')
SKIP_DIRS = {'tests', '.git', 'node_modules', '.ci'}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(root):
    out = []
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        top = rel.split(os.sep)[0]
        if top in SKIP_DIRS or top.startswith('build') or (rel != '.' and os.path.exists(os.path.join(d, 'CMakeCache.txt'))):
            dirs[:] = []
            continue
        dirs[:] = [x for x in dirs if not x.startswith('.')]
        for f in files:
            if f.endswith(EXTS):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)


def include_edges(root, files):
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    fileset = set(files)
    edges = {f: set() for f in files}
    for f in files:
        with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        for inc in INCLUDE.findall(text):
            here = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if here in fileset:
                target = here
            elif os.path.normpath(inc) in fileset:
                target = os.path.normpath(inc)
            else:
                cands = by_name.get(os.path.basename(inc), [])
                if len(cands) != 1:
                    continue          # a system or generated header
                target = cands[0]
            if target != f:
                edges[f].add(target)
    return edges


def object_source(build, obj, fileset):
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    if 'CMakeFiles' not in parts:
        return None
    i = parts.index('CMakeFiles')
    sub = parts[:i]
    inner = parts[i + 2:]                    # after "<target>.dir"
    src = os.path.normpath(os.path.join(*(sub + inner)))[:-2]   # strip ".o"
    return src if src in fileset else None


def call_edges(root, build, files):
    fileset = set(files)
    defined = {}
    needs = {}
    for d, dirs, fs in os.walk(build):
        for f in fs:
            if not f.endswith('.o'):
                continue
            obj = os.path.join(d, f)
            src = object_source(build, obj, fileset)
            if src is None or src in needs:
                continue
            out = subprocess.run(['nm', '-P', obj], capture_output=True, text=True).stdout
            needs[src] = set()
            for line in out.splitlines():
                p = line.split()
                if len(p) < 2:
                    continue
                sym, kind = p[0], p[1]
                if kind == 'U':
                    needs[src].add(sym)
                elif kind in ('T', 'W'):
                    defined.setdefault(sym, src)
    edges = {f: set() for f in files}
    for src, syms in needs.items():
        for s in syms:
            t = defined.get(s)
            if t and t != src:
                edges[src].add(t)
    return edges, len(needs)


def function_lengths(root, files):
    """(lines, file, name) of every function defined in files, as Universal
    Ctags measures it; None when Universal Ctags is not installed."""
    try:
        p = subprocess.run(['ctags', '--output-format=json', '--fields=+ne', '--kinds-C=f', '--kinds-C++=f',
                            '-f', '-', '-L', '-'], cwd=root, input='\n'.join(files) + '\n',
                           capture_output=True, text=True)
    except FileNotFoundError:
        return None
    if p.returncode != 0:
        return None
    out = []
    for line in p.stdout.splitlines():
        try:
            t = json.loads(line)
        except ValueError:
            continue
        if t.get('_type') == 'tag' and t.get('kind') == 'function' and 'end' in t:
            out.append((t['end'] - t['line'] + 1, os.path.normpath(t['path']), t['name']))
    return sorted(out, reverse=True)


def circles(nodes, edges):
    """Tarjan's strongly connected components (iterative)."""
    index, low, onstack, stack, out = {}, {}, set(), [], []
    counter = [0]
    for v0 in nodes:
        if v0 in index:
            continue
        work = [(v0, iter(sorted(edges[v0])))]
        index[v0] = low[v0] = counter[0]; counter[0] += 1
        stack.append(v0); onstack.add(v0)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]; counter[0] += 1
                    stack.append(w); onstack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); onstack.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out, key=len, reverse=True)


def main(argv):
    ap = argparse.ArgumentParser(description='The house\'s shape, checked on the built tree.')
    ap.add_argument('source_dir')
    ap.add_argument('build_dir')
    ap.add_argument('--max-lines', type=int, default=1000)
    ap.add_argument('--max-circle', type=int, default=3)
    ap.add_argument('--max-function', type=int, default=150)
    ap.add_argument('--known-long', action='append', default=[], metavar='NAME')
    ap.add_argument('--print', action='store_true', dest='show')
    a = ap.parse_args(argv[1:])
    root, build, max_lines, max_circle = a.source_dir, a.build_dir, a.max_lines, a.max_circle
    files = sources(root)
    if not files:
        print(f'house_check: no source files under {root}', file=sys.stderr)
        return 2
    inc = include_edges(root, files)
    calls, nobj = call_edges(root, build, files)
    if nobj == 0:
        print(f'house_check: no object files under {build}: build the project first', file=sys.stderr)
        return 2
    funcs = function_lengths(root, files)
    if funcs is None:
        print('house_check: Universal Ctags is needed to measure functions (the Debian package universal-ctags; '
              '`make deps` installs it)', file=sys.stderr)
        return 2
    edges = {f: inc[f] | calls[f] for f in files}
    comps = circles(files, edges)
    lines = []
    for f in files:
        with open(os.path.join(root, f), 'rb') as fh:
            lines.append((fh.read().count(b'\n'), f))
    lines.sort(reverse=True)
    ok = True
    print(f'house_check: {len(files)} files, {nobj} objects, '
          f'{sum(len(e) for e in edges.values())} dependencies')
    for c in comps:
        bad = len(c) > max_circle
        ok &= not bad
        if bad or a.show:
            print(f'{"FAIL" if bad else "ok  "} circle of {len(c)} files: {" ".join(c)}')
    for n, f in lines:
        if n > max_lines:
            ok = False
            print(f'FAIL {f} is {n} lines (at most {max_lines})')
    long_names = set()
    for n, f, name in funcs:
        if n <= a.max_function:
            continue
        long_names.add(name)
        if name in a.known_long:
            print(f'known {f}: function {name} is {n} lines (at most {a.max_function}): its split is under way')
            continue
        ok = False
        print(f'FAIL {f}: function {name} is {n} lines (at most {a.max_function}): split it into helpers')
    for name in a.known_long:
        if name not in long_names:
            print(f'note: function {name} is no longer over {a.max_function} lines: drop its --known-long')
    if a.show:
        for n, f in lines[:10]:
            print(f'     {n:5d} {f}')
        for n, f, name in funcs[:10]:
            print(f'     {n:5d} {f} {name}')
    print('house_check: ' + ('ok' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
