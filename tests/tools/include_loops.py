#!/usr/bin/env python3
"""Import loops between the library's source files.

An arrow X -> Y means that X (a .c file, or a header it includes) uses a
function or variable that Y alone defines (non-static, with a declaration
in a header X includes, directly or through other project headers).
A loop is a strongly connected set of two files or more: a file that
uses a file that uses it back.  Also reported, as upward includes (DESIGN §3):
- hwdesc/ including planner/ (hwdesc depends on nothing of the project
  but the base utilities);
- the core (planner/ outside planner/app/: graph, op table, cost models,
  exact planner, executor, I/O, utilities) including the app layer
  (planner/app/: CLI, library API, pipeline, registries) or the folders
  above it (search/, splitter/, explain/, models/);
- explain/ including splitter/ (the splitter uses the explainers, one
  direction only).

usage: tests/tools/include_loops.py [REPO]   (exit 1 when a loop or an
upward arrow is found, 77 (skipped) without Universal Ctags; CTest runs it
as test import_loops)
"""
import json
import os
import re
import shutil
import subprocess
import sys

DIRS = ["planner", "hwdesc", "models", "search", "splitter", "explain"]
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'", re.S)


def sources(root):
    out = []
    for d in DIRS:
        for base, _, files in os.walk(os.path.join(root, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(base, f), root))
    return sorted(out)


CORE_ABOVE = ("planner/app/", "search/", "splitter/", "explain/", "models/")


def upward(f, h):
    """True when file f may not include header h (DESIGN §3 layering)."""
    if f.startswith("hwdesc/"):
        return h.startswith("planner/")
    if f.startswith("planner/") and not f.startswith("planner/app/"):
        return h.startswith(CORE_ABOVE)
    if f.startswith("explain/"):
        return h.startswith("splitter/")
    return False


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    files = sources(root)
    fileset = set(files)
    text = {f: open(os.path.join(root, f), encoding="utf-8", errors="replace").read() for f in files}

    def resolve(src, inc):
        for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(src), inc))):
            if cand in fileset:
                return cand
        return None

    incs = {f: {r for r in (resolve(f, i) for i in INC.findall(text[f])) if r} for f in files}

    def closure(f):
        seen, todo = set(), list(incs[f])
        while todo:
            h = todo.pop()
            if h not in seen:
                seen.add(h)
                todo.extend(incs[h])
        return seen

    ctags = shutil.which("ctags-universal") or shutil.which("ctags")
    if not ctags or "Universal Ctags" not in subprocess.run(
            [ctags, "--version"], capture_output=True, text=True).stdout:
        print("skipped: the import-loop check needs Universal Ctags (package universal-ctags)")
        return 77
    tags = subprocess.run([ctags, "--output-format=json", "--fields=+nKzSf", "--c-kinds=+px",
                           "-f", "-"] + files, cwd=root, capture_output=True, text=True, check=True)
    defined = {}   # name -> .c files defining it (external linkage)
    declared = {}  # header -> names declared there
    for line in tags.stdout.splitlines():
        t = json.loads(line)
        if t.get("_type") != "tag":
            continue
        kind, path, name = t.get("kind"), t["path"], t["name"]
        if path.endswith(".c") and kind in ("function", "variable") and "file" not in t:
            defined.setdefault(name, set()).add(path)
        if path.endswith(".h") and kind in ("prototype", "externvar"):
            declared.setdefault(path, set()).add(name)

    arrows = {f: set() for f in files if f.endswith(".c")}
    why = {}
    for f in arrows:
        visible = set()
        for h in closure(f):
            visible |= declared.get(h, set())
        used = set(IDENT.findall(COMMENT.sub(" ", text[f])))
        for name in used & visible:
            owners = defined.get(name, set())
            if len(owners) == 1:
                (y,) = owners
                if y != f:
                    arrows[f].add(y)
                    why.setdefault((f, y), set()).add(name)

    # Tarjan's strongly connected components.
    index, low, stack, on, sccs = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in arrows[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for v in sorted(arrows):
        if v not in index:
            visit(v)

    bad = 0
    for comp in sorted(sccs):
        bad += 1
        print("loop: " + ", ".join(comp))
        for a in comp:
            for b in sorted(arrows[a] & set(comp)):
                print("  %s -> %s: %s" % (a, b, ", ".join(sorted(why[(a, b)])[:6])))
    for f in sorted(files):
        for h in sorted(incs[f]):
            if upward(f, h):
                bad += 1
                print("upward: %s includes %s" % (f, h))
    print("%d loop(s), %d file(s) read" % (len(sccs), len(files)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
