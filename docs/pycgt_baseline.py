"""The pycgt baseline for Hackenbush values: the same recursion as `solvedgym`, in pure Python.

pycgt (https://pypi.org/project/pycgt/, MIT) is a pure-Python library of short games in
canonical form. This script only imports it; the Hackenbush side (the graph notation, cuts,
parts) is written here. The value of a position is found by the definition, as the Rust code's
general method does:

    value(position) = canonical { value after each blue or green cut | value after each red or green cut }

where a cut removes the edge and every edge no longer connected to the ground (vertex 0),
memoised on the set of standing edges; the standing edges are split into parts that meet only
at the ground, each part is evaluated once, and the parts' values are added (pycgt's sum).
`--no-parts` turns the split off (one memoised recursion over whole positions).

Input: JSON lines on stdin, each with a "position" key holding a CGSuite Hackenbush graph
string (l blue, r red, e green; `lrl`, `e(ee;e)`, `:Alrl:A`), as `solvedgym solve hackenbush
--json` prints them. Where a line also has "value" (CGSuite notation) and "outcome" (L/R/N/P),
they are read into pycgt too and compared with pycgt's answer (not timed).

Output: one JSON line per position (position, pycgt's value, outcome, parts evaluated,
seconds, agreement with the input's value and outcome), then a summary line with the mean
seconds per position. pycgt's global caches are cleared before each position, so every
position starts cold, as each of the Rust solver's positions does.

Back to back, the two sets of the speed claim (10 seeded random positions each):

    pip install pycgt
    B=target/release/solvedgym
    $B solve hackenbush --random 10 --seed 1 --edges 16 --family graphs --palette all --json \\
        | python3 docs/pycgt_baseline.py
    $B solve hackenbush --random 10 --seed 1 --edges 20 --family trees --palette all --json \\
        | python3 docs/pycgt_baseline.py

Options: `--no-parts` (no split into parts), `--limit N` (only the first N positions).

The Rust side's time per position is the mean of the "seconds" fields of its JSON (that solve
uses the theory's shortcuts on top of the recursion); `solvedgym bench values` times the
same positions by the plain recursion (general_ms) and with shortcuts (shortcuts_ms).
"""
import argparse
import json
import sys
import time
from fractions import Fraction

import pycgt
from pycgt import STAR, UP, ZERO, add, game, negate, nimber, number, outcome, render

sys.setrecursionlimit(1_000_000)

# The module pycgt.game (the package's name `game` is the factory function).
core = sys.modules["pycgt.game"]

BLUE, RED, GREEN = "l", "r", "e"


# ---------------------------------------------------------------------------
# The graph notation
# ---------------------------------------------------------------------------

def parse_position(text):
    """A CGSuite graph string -> list of edges (a, b, colour); vertex 0 is the ground.

    A letter (l, r, e) is an edge from the current vertex to a new vertex, unless a `:Name`
    follows it naming a vertex seen before (then the edge ends there). `:Name` first in the
    string names the ground. `x(a;b)` draws a and b from the vertex reached after x. `.`
    marks a vertex and changes nothing (`.` alone is the empty position).
    """
    edges = []
    names = {}
    vertices = 1
    current = 0
    pending = None          # colour of an edge letter whose far end is not yet decided
    forks = []              # the vertices the open `(` branch from
    i = 0

    def finish():
        nonlocal pending, current, vertices
        if pending is not None:
            edges.append((current, vertices, pending))
            current = vertices
            vertices += 1
            pending = None

    while i < len(text):
        c = text[i]
        if c in "lre":
            finish()
            pending = c
        elif c == ":":
            i += 1
            if text[i] == "{":
                close = text.index("}", i)
                name = text[i + 1:close].strip()
                i = close
            else:
                name = text[i]
            if pending is None:         # the start of the string: the ground's name
                names[name] = 0
                current = 0
            else:
                if name not in names:
                    names[name] = vertices
                    vertices += 1
                edges.append((current, names[name], pending))
                current = names[name]
                pending = None
        elif c == "(":
            finish()
            forks.append(current)
        elif c == ";":
            finish()
            current = forks[-1]
        elif c == ")":
            finish()
            forks.pop()
        elif c == "." or c.isspace():
            pass
        else:
            raise ValueError(f"unexpected {c!r} at {i} in {text!r}")
        i += 1
    finish()
    if forks:
        raise ValueError(f"unclosed '(' in {text!r}")
    return edges


# ---------------------------------------------------------------------------
# Positions: cuts and parts
# ---------------------------------------------------------------------------

class Hackenbush:
    """The positions of one graph, their values memoised on the frozenset of standing edges."""

    def __init__(self, edges, parts=True):
        self.edges = edges
        self.parts = parts
        self.incident = {}
        for k, (a, b, _) in enumerate(edges):
            self.incident.setdefault(a, []).append((k, b))
            if b != a:
                self.incident.setdefault(b, []).append((k, a))
        self.memo = {}

    def cut(self, alive, edge):
        """The standing edges after cutting `edge`: those still connected to the ground."""
        kept = set()
        seen = {0}
        stack = [0]
        while stack:
            u = stack.pop()
            for k, w in self.incident.get(u, ()):
                if k == edge or k not in alive:
                    continue
                kept.add(k)
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        return frozenset(kept)

    def components(self, alive):
        """The standing edges split into parts that meet only at the ground."""
        parts = []
        seen = set()
        for k in sorted(alive):
            a, b, _ = self.edges[k]
            if a == 0 and b == 0:               # a loop at the ground is a part of its own
                parts.append(frozenset([k]))
                continue
            start = a if a != 0 else b
            if start in seen:
                continue
            part = set()
            seen.add(start)
            stack = [start]
            while stack:
                u = stack.pop()
                for f, w in self.incident.get(u, ()):
                    if f not in alive:
                        continue
                    part.add(f)
                    if w != 0 and w not in seen:
                        seen.add(w)
                        stack.append(w)
            parts.append(frozenset(part))
        return parts

    def value(self, alive):
        """The canonical value of the position made of the `alive` edges."""
        if not self.parts:
            return self.definition(alive)
        total = ZERO
        for part in self.components(alive):
            total = add(total, self.definition(part))
        return total

    def definition(self, alive):
        """{ values after Left's cuts | values after Right's cuts }, memoised."""
        v = self.memo.get(alive)
        if v is None:
            left, right = [], []
            for k in alive:
                option = self.value(self.cut(alive, k))
                colour = self.edges[k][2]
                if colour != RED:
                    left.append(option)
                if colour != BLUE:
                    right.append(option)
            v = game(left, right)
            self.memo[alive] = v
        return v


# ---------------------------------------------------------------------------
# CGSuite's value notation, read into pycgt (for the check only)
# ---------------------------------------------------------------------------

def up_sub(n):
    """^[n] = {^[n-1] | *}, ^[1] = ^."""
    g = UP
    for _ in range(n - 1):
        g = game([g], [STAR])
    return g


def up_power(n):
    """^<n> = ^[n] - ^[n-1], ^<1> = ^."""
    return UP if n <= 1 else add(up_sub(n), negate(up_sub(n - 1)))


def parse_value(text):
    """A value as `solvedgym` prints it (CGSuite notation) -> a canonical pycgt game.

    Covers what the printer writes: a number, ups (`^`, `^^`, `^3`, `^[3]`, `^<3>`, and `v`
    for down) and a nimber (`*`, `*2`) juxtaposed; otherwise braces, where more bars nest
    (`{3||2*|1*}` is {3 | {2*|1*}}).
    """
    text = text.strip()
    if text.startswith("{"):
        assert text.endswith("}"), text
        return parse_bars(text[1:-1])
    i, total = 0, ZERO
    j = i + (text[i:i + 1] == "-")
    while j < len(text) and (text[j].isdigit() or text[j] == "/"):
        j += 1
    if j > i and text[i:j] != "-":
        total = number(Fraction(text[i:j]))
        i = j
    if i < len(text) and text[i] in "^v":
        sign = 1 if text[i] == "^" else -1
        k = i
        while k < len(text) and text[k] == text[i]:
            k += 1
        if k - i > 1:                           # ^^, vv
            ups = up_multiple_signed(sign * (k - i))
            i = k
        elif text[k:k + 1] in ("[", "<"):
            close = text.index("]" if text[k] == "[" else ">", k)
            n = int(text[k + 1:close])
            ups = (up_sub if text[k] == "[" else up_power)(n)
            if sign < 0:
                ups = negate(ups)
            i = close + 1
        else:
            k = i + 1
            while k < len(text) and text[k].isdigit():
                k += 1
            ups = up_multiple_signed(sign * int(text[i + 1:k] or 1))
            i = k
        total = add(total, ups)
    if i < len(text) and text[i] == "*":
        total = add(total, nimber(int(text[i + 1:] or 1)))
        i = len(text)
    if i != len(text):
        raise ValueError(f"cannot read the value {text!r}")
    return total


def up_multiple_signed(n):
    return pycgt.up_multiple(n) if n >= 0 else negate(pycgt.up_multiple(-n))


def parse_bars(inner):
    """The inside of a brace expression: split at its longest run of bars at depth 0."""
    depth, best, at = 0, 0, None
    i = 0
    while i < len(inner):
        c = inner[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "|" and depth == 0:
            k = i
            while k < len(inner) and inner[k] == "|":
                k += 1
            if k - i > best:
                best, at = k - i, i
            i = k
            continue
        i += 1
    if at is None:
        raise ValueError(f"no bar in {{{inner}}}")
    return game(parse_side(inner[:at]), parse_side(inner[at + best:]))


def parse_side(text):
    depth, start, items = 0, 0, []
    has_bar = False
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "|" and depth == 0:
            has_bar = True
        elif c == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if has_bar:                                 # fewer bars: one game, braces dropped
        return [parse_bars(text)]
    items.append(text[start:])
    return [parse_value(t) for t in items if t.strip()]


OUTCOME_LETTER = {
    pycgt.Outcome.LEFT: "L",
    pycgt.Outcome.RIGHT: "R",
    pycgt.Outcome.FIRST: "N",
    pycgt.Outcome.SECOND: "P",
}


def clear_pycgt_caches():
    """Start a position cold: drop pycgt's memo tables (as the Rust side starts a new store)."""
    for f in (core.canonical, core.negate, core._add_raw, core.is_all_small, core.birthday,
              render):
        if hasattr(f, "cache_clear"):
            f.cache_clear()
    if hasattr(core, "_geq_cache"):
        core._geq_cache.clear()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-parts", action="store_true",
                    help="do not split positions into parts meeting only at the ground")
    ap.add_argument("--limit", type=int, default=None, help="only the first N positions")
    args = ap.parse_args()

    rows = [json.loads(line) for line in sys.stdin if line.strip()]
    if args.limit is not None:
        rows = rows[:args.limit]
    times, checked, agreed = [], 0, 0
    for row in rows:
        clear_pycgt_caches()
        position = row["position"]
        start = time.perf_counter()
        h = Hackenbush(parse_position(position), parts=not args.no_parts)
        g = h.value(frozenset(range(len(h.edges))))
        letter = OUTCOME_LETTER[outcome(g)]
        text = render(g)
        seconds = time.perf_counter() - start
        times.append(seconds)
        out = {"position": position, "value": text, "outcome": letter,
               "parts": len(h.memo), "seconds": round(seconds, 4)}
        if "value" in row:
            theirs = parse_value(row["value"])
            out["rust_value"] = row["value"]
            out["values_equal"] = theirs == g    # canonical forms: == is value equality
            out["outcomes_equal"] = row.get("outcome") == letter
            checked += 1
            agreed += out["values_equal"] and out["outcomes_equal"]
        print(json.dumps(out), flush=True)
    summary = {"positions": len(times), "split_into_parts": not args.no_parts,
               "mean_seconds": round(sum(times) / len(times), 4) if times else None,
               "total_seconds": round(sum(times), 3)}
    if checked:
        summary["agreed"] = f"{agreed}/{checked}"
    print(json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
