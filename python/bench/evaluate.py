"""Exact evaluation of a batched numpy policy on Fox & Hounds 8x8 (709,868 positions): the
goal is under 2 seconds. Prints the solve and the evaluation times, of uniform play given as
weights and of a softmax policy given as logits (mass on illegal moves scored as a loss), the
latter as the first evaluation on a fresh solution (which tabulates perfect and random play,
once per solution) and again (as at a learner's later checkpoints).

    python python/bench/evaluate.py [--size 8] [--batch 65536]
"""
import argparse
import time

import numpy as np

import solvedgym


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--batch", type=int, default=65536)
    args = ap.parse_args()
    game = solvedgym.make("fox-hounds", size=args.size)
    t = time.perf_counter()
    sol = game.solve()
    solved = time.perf_counter() - t
    calls = []

    def uniform(observations, masks):  # stands for a network: one call per batch
        calls.append(len(observations))
        return masks.astype(np.float32)

    t = time.perf_counter()
    report = sol.evaluate(uniform, batch_size=args.batch)
    evaluated = time.perf_counter() - t
    print(f"fox-hounds {args.size}x{args.size}: {len(sol):,} positions")
    print(f"  solve            {solved:8.2f} s")
    print(f"  evaluate         {evaluated:8.2f} s  ({len(calls)} policy calls, batches of up to {args.batch:,})")
    print(f"  optimal-move rate of uniform play over all positions: {report['moves']['optimal_rate_all']:.4f}")
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(game.observation_size, game.num_distinct_actions)).astype(np.float32) * 0.1

    def softmax_net(observations, masks):  # a linear network's raw scores, no mask applied
        return observations @ weights

    fresh = game.solve()
    t = time.perf_counter()
    fresh.evaluate(softmax_net, batch_size=args.batch, output="logits", illegal="lose")
    first = time.perf_counter() - t
    del fresh
    t = time.perf_counter()
    report = sol.evaluate(softmax_net, batch_size=args.batch, output="logits", illegal="lose")
    evaluated = time.perf_counter() - t
    print(f"  evaluate logits  {first:8.2f} s  (softmax over every action, illegal mass loses: the first evaluation)")
    print(f"                   {evaluated:8.2f} s  (again, perfect and random play already tabulated)")
    print(f"  its return against perfect play, per seat: {[round(r['expected_return'], 4) for r in report['against_perfect']]}")


if __name__ == "__main__":
    main()
