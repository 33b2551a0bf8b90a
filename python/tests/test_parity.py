"""Parity: a policy evaluated exactly from Python gives the numbers a whole Rust run gives it.

A Rust run (`solvedgym.run`, the command line's runner) evaluates each learner exactly at
episode 0, before it learns: a Q-learner's policy there is uniform over the legal moves. The same
policy given to `Solution.evaluate` from Python, as a table, must give the same figures: the
same dynamic programs over the same positions, whichever front asks.
"""

import numpy as np
import pytest

import solvedgym

pl = pytest.importorskip("polars")

# The run's metric name -> where the same figure is in `Solution.evaluate`'s report.
METRICS = {
    "optimal_rate_all": lambda r: r["moves"]["optimal_rate_all"],
    "optimal_rate_faced": lambda r: r["moves"]["optimal_rate_faced"],
    "optimal_rate_optimal_play": lambda r: r["moves"]["optimal_rate_optimal_play"],
    "states_faced": lambda r: r["moves"]["states_faced"],
    "blunders": lambda r: r["moves"]["blunders"],
    "mistakes": lambda r: r["moves"]["mistakes"],
    "win_prob_vs_optimal": lambda r: r["against_perfect"][0]["win"],
    "loss_prob_vs_optimal": lambda r: r["against_perfect"][0]["loss"],
    "return_vs_optimal": lambda r: r["against_perfect"][0]["expected_return"],
    "win_prob_vs_random": lambda r: r["against_random"][0]["win"],
    "loss_prob_vs_random": lambda r: r["against_random"][0]["loss"],
    "return_vs_random": lambda r: r["against_random"][0]["expected_return"],
    "worst_case_return": lambda r: r["against_best_response"][0]["expected_return"],
}


@pytest.mark.parametrize("game,seat", [("hexapawn", "black"), ("hexapawn", "white"), ("tictactoe", "o")])
def test_python_evaluation_equals_a_rust_run(tmp_path, game, seat):
    config = {
        "name": "parity",
        "episodes": 4,
        "eval_interval": 4,
        "seeds": 1,
        "game": {"name": game},
        "learners": [{"kind": "q-learning", "label": "Q", "seat": seat}],
        "opponents": [{"policy": "random"}],
    }
    result = solvedgym.run(config, out=str(tmp_path), progress=False)
    curves = result.curves.filter((pl.col("episode") == 0) & (pl.col("learner") == "Q"))
    run = dict(zip(curves["metric"].to_list(), curves["value"].to_list()))

    g = solvedgym.make(game)
    sol = g.solve()
    legal, _ = sol.masks()
    report = sol.evaluate(legal.astype(np.float64), seats=[g.player_names.index(seat)])
    for metric, of in METRICS.items():
        assert run[metric] == of(report), (game, seat, metric, run[metric], of(report))


@pytest.mark.parametrize("game,seat", [("hexapawn", "black"), ("tictactoe", "x")])
def test_a_trained_agent_read_from_its_file_evaluates_as_the_run_did(tmp_path, game, seat):
    """A Q-learner trained by a Rust run, read back from its saved agent (docs/agents.md) with
    polars alone, and evaluated from Python as an epsilon-greedy table: the run's last figures."""
    epsilon = 0.1
    config = {
        "name": "parity-trained",
        "episodes": 3000,
        "eval_interval": 3000,
        "seeds": 1,
        "game": {"name": game},
        "learners": [{"kind": "q-learning", "label": "Q", "seat": seat, "epsilon": epsilon, "alpha": 0.3}],
        "opponents": [{"policy": "random"}],
    }
    result = solvedgym.run(config, out=str(tmp_path), progress=False)
    curves = result.curves.filter((pl.col("episode") == 3000) & (pl.col("learner") == "Q"))
    run = dict(zip(curves["metric"].to_list(), curves["value"].to_list()))

    agent = pl.read_parquet(f"{result.dir}/agents/q--random--seed-0.parquet")
    assert set(agent.columns) == {"part", "position", "action", "move", "value"}
    q = agent.filter(pl.col("part") == "q")
    assert q.height > 10  # it learned something

    g = solvedgym.make(game)
    sol = g.solve()
    legal, _ = sol.masks()
    ids = {p: i for i, p in enumerate(sol.columns()["position"])}
    policy = legal.astype(np.float64) / np.maximum(legal.sum(axis=1, keepdims=True), 1)
    for (position,), row in q.group_by(["position"], maintain_order=True):
        values = row["value"].to_numpy()
        actions = row["action"].to_numpy()
        best = values == values.max()
        # The run's arithmetic (learn/backup.rs): epsilon / n, plus (1 - epsilon) / ties.
        probs = epsilon / len(values) + np.where(best, (1.0 - epsilon) / best.sum(), 0.0)
        policy[ids[position]] = 0.0
        policy[ids[position], actions] = probs
    report = sol.evaluate(policy, seats=[g.player_names.index(seat)])
    for metric, of in METRICS.items():
        assert run[metric] == pytest.approx(of(report), rel=1e-12, abs=1e-12), (game, seat, metric)
