"""MCTS speed and move quality, OpenSpiel's Python MCTSBot against solvedgym's, back to back on
tic-tac-toe. At every reachable position where a player has a choice (the same positions
`solvedgym bench mcts tictactoe` searches; forced moves are played unsearched by both), each
runs one search of N simulations (UCT, c = 2, one random rollout per leaf, the most visited
move). Prints per budget: the optimal-move rate over all 4,520 positions where a player moves
(optimal: the move keeps the minimax value; computed here by a small minimax) with its 95 %
Wilson interval, simulations per second on one thread, and the speed ratio.

OpenSpiel's bot runs with `solve=False` (plain UCT, as ours; `--solve` adds its default
MCTS-Solver backups as a third row: it stops a search once the root is solved, so its speed
counts the simulations it ran). solvedgym is timed by its CLI (`bench mcts --threads 1`).
First, the speed alone from the start and four mid-game positions, 10 searches of 1000
simulations from each (50 searches).

    python3.11 -m venv /tmp/venv-mcts && /tmp/venv-mcts/bin/pip install open_spiel==2.0.2 numpy
    /tmp/venv-mcts/bin/python python/bench/mcts.py [--sims 10,100] [--solvedgym target/release/solvedgym]
"""
import argparse
import json
import math
import subprocess
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts


def wilson(p, n, z=1.96):
    if n == 0:
        return (0.0, 1.0)
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, min(p, c - h)), min(1.0, max(p, c + h)))


def positions_and_truth(game):
    """Every reachable position where a player moves (by its string), and per position the
    set of moves that keep the minimax value."""
    value = {}  # str(state) -> returns of player 0 under perfect play
    keeps = {}
    order = []

    def solve(state):
        key = str(state)
        if key in value:
            return value[key]
        if state.is_terminal():
            v = state.returns()[0]
        else:
            p = state.current_player()
            sign = 1 if p == 0 else -1
            children = {a: solve(state.child(a)) for a in state.legal_actions()}
            best = max(sign * v for v in children.values())
            v = sign * best
            keeps[key] = {a for a, cv in children.items() if sign * cv == best}
            order.append(state.clone())
        value[key] = v
        return v

    solve(game.new_initial_state())
    return order, keeps


def openspiel_rates(game, states, keeps, sims, solve):
    optimal, simulations, spent = 0, 0, 0.0
    for i, state in enumerate(states):
        legal = state.legal_actions()
        if len(legal) == 1:
            action = legal[0]
        else:
            rng = np.random.RandomState(i)
            bot = mcts.MCTSBot(
                game,
                uct_c=2,
                max_simulations=sims,
                evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                solve=solve,
                random_state=rng,
            )
            t = time.perf_counter()
            root = bot.mcts_search(state)
            spent += time.perf_counter() - t
            action = root.best_child().action
            # The root counts every simulation (MCTS-Solver may stop before the budget).
            simulations += root.explore_count
        optimal += action in keeps[str(state)]
    n = len(states)
    return optimal, n, simulations / spent


def solvedgym_rows(exe, sims, extra=()):
    out = subprocess.run(
        [exe, "bench", "mcts", "tictactoe", "--sims", ",".join(map(str, sims)),
         "--threads", "1", "--json", "--quiet", *extra],
        check=True, capture_output=True, text=True,
    ).stdout
    return {r["sims"]: r for r in json.loads(out)}


# The start and four mid-game positions, as moves (cells 0..8 row by row from the top).
OPENINGS = [[], [4], [0, 4], [0, 4, 8], [4, 0, 2, 6]]


def timed_openings(game, exe, sims, repeat):
    """Simulations per second of each, `repeat` searches from each of OPENINGS (OpenSpiel's
    seeded 0..repeat-1; ours seeded by the position, so the same search `repeat` times)."""
    states = []
    for moves in OPENINGS:
        s = game.new_initial_state()
        for a in moves:
            s.apply_action(a)
        states.append(s)
    simulations, spent = 0, 0.0
    for s in states:
        for i in range(repeat):
            rng = np.random.RandomState(i)
            bot = mcts.MCTSBot(
                game, uct_c=2, max_simulations=sims,
                evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                solve=False, random_state=rng,
            )
            t = time.perf_counter()
            root = bot.mcts_search(s)
            spent += time.perf_counter() - t
            simulations += root.explore_count
    extra = ["--repeat", str(repeat)]
    for s in states:
        extra += ["--state", str(s).replace("\n", "/")]
    ours = solvedgym_rows(exe, [sims], extra)[sims]
    return ours["sims_per_second"], simulations / spent


def line(who, sims, optimal, n, speed):
    p = optimal / n
    lo, hi = wilson(p, n)
    return f"{who:24} {sims:>6}  {optimal:>4}/{n}  {p:.4f}  [{lo:.4f}, {hi:.4f}]  {speed:>12,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", default="10,100")
    ap.add_argument("--solvedgym", default="target/release/solvedgym")
    ap.add_argument("--solve", action="store_true", help="also OpenSpiel's default solve=True")
    ap.add_argument("--opening-sims", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=10)
    args = ap.parse_args()
    sims = [int(s) for s in args.sims.split(",")]
    game = pyspiel.load_game("tic_tac_toe")
    ours, theirs = timed_openings(game, args.solvedgym, args.opening_sims, args.repeat)
    print(f"tic-tac-toe, {args.repeat} searches of {args.opening_sims} simulations from each of "
          f"{len(OPENINGS)} positions (the start, 1 to 4 moves in):")
    print(f"  solvedgym {ours:,.0f} simulations/s, open_spiel MCTSBot {theirs:,.0f}: "
          f"{ours / theirs:,.0f}x")
    states, keeps = positions_and_truth(game)
    print(f"tic-tac-toe: {len(states)} positions where a player moves")
    print(f"{'':24} {'sims':>6}  {'optimal':>9}  {'rate':6}  {'95% interval':16}  {'sims/s':>12}")
    for n in sims:
        ours = solvedgym_rows(args.solvedgym, [n])[n]
        assert ours["positions"] == len(states), (ours["positions"], len(states))
        print(line("solvedgym", n, ours["optimal"], ours["positions"], ours["sims_per_second"]))
        o, total, speed = openspiel_rates(game, states, keeps, n, solve=False)
        print(line("open_spiel MCTSBot", n, o, total, speed))
        if args.solve:
            o2, _, speed2 = openspiel_rates(game, states, keeps, n, solve=True)
            print(line("open_spiel solve=True", n, o2, total, speed2))
        print(f"{'':24} ratio of simulations per second: {ours['sims_per_second'] / speed:,.0f}x")


if __name__ == "__main__":
    main()
