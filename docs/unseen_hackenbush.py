"""Random Hackenbush positions the project's own generator does not make: a check set for speed.

Hotchpotch (blue, red and green) connected multigraphs standing on the ground, with cycles,
written as CGSuite graph strings. Unlike `solvedgym solve hackenbush --random` (a tree grown by
attaching each edge to a uniformly chosen earlier vertex, then `edges / 4` extra edges), this
draws how many edges close cycles (3 to 5), grows the spanning tree preferring the newest
vertices (deeper, stalk-like shapes), lets the extra edges join any two distinct vertices, the
ground included (parallel edges allowed, no loops), and shuffles the edges before writing them.

Standard library only; the same seed gives the same positions.

    python3 docs/unseen_hackenbush.py --count 8 --edges 16 --seed 26            # one a line
    python3 docs/unseen_hackenbush.py --count 8 --edges 16 --seed 26 --json     # {"position": ...}

The JSON lines feed `docs/pycgt_baseline.py` directly; the plain lines are `--position`s for
`solvedgym solve hackenbush`.
"""
import argparse
import json
import random

COLOURS = "lre"  # blue, red, green


def draw(rng, edges):
    """One connected graph: (vertex count, [(a, b, colour)]), vertex 0 the ground."""
    vertices = 1 + edges - rng.randint(3, 5)
    tree = vertices - 1
    list_ = []
    for v in range(1, vertices):
        # Prefer recent vertices as parents: deeper than a uniform choice.
        lo = max(0, v - 3)
        parent = rng.randint(lo, v - 1) if rng.random() < 0.7 else rng.randint(0, v - 1)
        list_.append((parent, v, rng.choice(COLOURS)))
    for _ in range(edges - tree):
        a, b = rng.sample(range(vertices), 2)
        list_.append((a, b, rng.choice(COLOURS)))
    rng.shuffle(list_)
    return vertices, list_


def write(vertices, edges):
    """The graph as a CGSuite string: a depth-first walk from the ground, named vertices
    where more than one edge arrives."""
    incident = [[] for _ in range(vertices)]
    for k, (a, b, _) in enumerate(edges):
        incident[a].append(k)
        incident[b].append(k)
    # Each edge is written from the endpoint the walk reaches first; the other end is entered
    # by it (a new vertex) or named (reached before or after).
    arrivals = [0] * vertices
    seen = [False] * vertices
    used = [False] * len(edges)
    plan = [[] for _ in range(vertices)]  # per vertex: (edge, far end, is tree edge)
    seen[0] = True
    stack = [0]
    order = []
    while stack:
        u = stack.pop()
        order.append(u)
        for k in incident[u]:
            if used[k]:
                continue
            used[k] = True
            a, b, _ = edges[k]
            w = b if a == u else a
            tree = not seen[w]
            if tree:
                seen[w] = True
                stack.append(w)
            plan[u].append((k, w, tree))
            arrivals[w] += 1
    assert all(seen), "the graph is connected"
    named = {}
    names = iter("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

    def name(v):
        if v not in named:
            named[v] = next(names)
        return ":" + named[v]

    # The ground is named when an edge arrives at it.
    head = name(0) if arrivals[0] > 0 else ""

    def walk(u):
        parts = []
        for k, w, tree in plan[u]:
            s = edges[k][2]
            if arrivals[w] > 1 or w == 0:
                s += name(w)
            if tree:
                s += walk(w)
            parts.append(s)
        if not parts:
            return ""
        if len(parts) == 1:
            return parts[0]
        return "(" + ";".join(parts) + ")"

    return head + walk(0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=8)
    ap.add_argument("--edges", type=int, default=16)
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument("--json", action="store_true", help='JSON lines {"position": ...}')
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for _ in range(args.count):
        text = write(*draw(rng, args.edges))
        print(json.dumps({"position": text}) if args.json else text)


if __name__ == "__main__":
    main()
