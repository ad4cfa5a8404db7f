#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The layout rules, as TAP, checked on the source tree:

- no include cycles between files (quoted includes, found as the compiler finds them);
- no call cycles between files, of any length: a file calls another when it names a function
  or table the other defines with external linkage (module/, userlib/ and samples/, each
  family folder on its own);
- no folder of shared tool code (a samples/ folder's files other than its tools) over 2,000
  lines;
- no function over 90 lines in module/, userlib/ or samples/.

Usage: layout.py TOP
"""
import os
import re
import sys

TOP = sys.argv[1]
SHARED_MAX = 2000
FUNC_MAX = 90
n = 0
status = 0


def result(ok, what, details=()):
    global n, status
    n += 1
    print(("ok" if ok else "not ok"), n, what)
    for d in list(details)[:40]:
        print("#", d)
    if not ok:
        status = 1


def sources(*dirs):
    out = []
    for d in dirs:
        for root, _, files in os.walk(os.path.join(TOP, d)):
            out += [os.path.join(root, f) for f in files if f.endswith((".c", ".h"))]
    return sorted(out)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def rel(p):
    return os.path.relpath(p, TOP)


def cycles(graph):
    """The strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, comps = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


# Include cycles: a quoted include is looked up beside the file, then in the include folders
# the Makefile passes (uapi, userlib, samples/common and the families, tests).
files = sources("module", "uapi", "userlib", "samples", "tests")
inc_dirs = [os.path.join(TOP, d) for d in ("uapi", "userlib", "module", "samples/common")]
inc_dirs += [os.path.join(TOP, "samples", d) for d in sorted(os.listdir(os.path.join(TOP, "samples")))
             if os.path.isdir(os.path.join(TOP, "samples", d))]
graph = {}
for f in files:
    edges = set()
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(f, errors="replace").read(), re.M):
        for d in [os.path.dirname(f)] + inc_dirs:
            p = os.path.normpath(os.path.join(d, name))
            if os.path.exists(p):
                if p != f:
                    edges.add(p)
                break
    graph[f] = edges
found = cycles(graph)
result(not found, "no include cycles between files",
       [" -> ".join(rel(x) for x in c) for c in found])

# Call cycles: per part (module/, userlib/, samples/), what each .c file defines with external
# linkage, and which of those names the part's other files use.
DEF = re.compile(r"^(?!static\b)(?!typedef\b)(?!extern\b)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*(\(|\[|=|;)",
                 re.M)


def external_defs(text):
    names = set()
    for m in DEF.finditer(text):
        line = text[m.start():text.find("\n", m.start())]
        if line.startswith(("struct ", "enum ", "union ")) and m.group(2) != "(" and "=" not in line:
            continue
        if m.group(2) == "(" and line.rstrip().endswith(";"):
            continue
        names.add(m.group(1))
    names.discard("main")
    return names


call_graph = {}
for unit in ("module", "userlib", "samples"):
    cfiles = [f for f in sources(unit) if f.endswith(".c")]
    text = {f: strip_comments(open(f, errors="replace").read()) for f in cfiles}
    defs = {f: external_defs(text[f]) for f in cfiles}
    for f in cfiles:
        words = set(re.findall(r"\b[A-Za-z_]\w*\b", text[f]))
        for g in cfiles:
            # A name both define is an alternative (another ISA's), not a call.
            if g != f and (defs[g] - defs[f]) & words:
                call_graph.setdefault(f, set()).add(g)
found = cycles(call_graph)
result(not found, "no call cycles between files (module/, userlib/, samples/)",
       [" -> ".join(rel(x) for x in c) for c in found])

# Shared tool code: a samples/ folder's code that more than one tool links (its own tools, and
# those the Makefile names it for: FAMILY_USES_<family> and pmu-overhead's rule).
makefile = open(os.path.join(TOP, "Makefile")).read()
big = []
for d in sorted(os.listdir(os.path.join(TOP, "samples"))):
    path = os.path.join(TOP, "samples", d)
    if not os.path.isdir(path):
        continue
    tools = len([f for f in os.listdir(path) if f.startswith("pmu-") and f.endswith(".c")])
    tools += len(re.findall(r"^FAMILY_USES_\w+ :?= .*\b%s\b" % d, makefile, re.M))
    tools += len(re.findall(r"call family_objs,%s\)" % d, makefile))
    if not tools and re.search(r"\$\(OUT\)/samples/%s/" % d, makefile):
        tools = 1
    if d == "common":
        tools = 2
    shared = [f for f in sources("samples/" + d) if not os.path.basename(f).startswith("pmu-")]
    lines = sum(open(f, errors="replace").read().count("\n") for f in shared)
    print("# samples/%s: %d lines of code besides its tools, linked into %s" %
          (d, lines, "every tool" if d == "common" else "%d tool(s)" % tools))
    if tools > 1 and lines > SHARED_MAX:
        big.append("samples/%s: %d lines" % (d, lines))
result(not big, "no folder of shared tool code over %d lines" % SHARED_MAX, big)

# Function length: from the opening brace at column 0 to the closing one.
long_fns = []
for f in sources("module", "userlib", "samples"):
    if not f.endswith(".c"):
        continue
    lines = open(f, errors="replace").read().split("\n")
    name, start = None, None
    for i, line in enumerate(lines):
        if re.match(r"[A-Za-z_].*\(", line) and not line.rstrip().endswith(";"):
            name = line
        elif line.startswith("{"):
            start = i
        elif line.startswith("}") and start is not None:
            if i - start + 1 > FUNC_MAX:
                long_fns.append("%s: %d lines: %s" % (rel(f), i - start + 1, name))
            start = None
result(not long_fns, "no function over %d lines" % FUNC_MAX, long_fns)
sys.exit(status)
