"""Saved agents in Python: `solvedgym.load_agent` opens what a run saved, usable wherever a
policy or an opponent is; the run's exact evaluator checked against the independent reference
evaluator of test_reference.py through the agent's own play."""

import json
import subprocess
import tomllib

import numpy as np
import pytest

import solvedgym
from test_reference import TOL, Reference, close
from test_run import command_line

pytest.importorskip("polars", reason="solvedgym.run's curves are a polars DataFrame")

CONFIG = {
    "name": "agents-tictactoe",
    "episodes": 3000,
    "eval_interval": 1000,
    "seeds": 1,
    "game": {"name": "tictactoe"},
    "learners": [
        {"kind": "q-learning", "label": "Q", "seat": "o"},
        {"kind": "td", "label": "TD", "lambda": 0.0, "seat": "alternate"},
    ],
    "opponents": [{"name": "random", "policy": "random"}],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    result = solvedgym.run(CONFIG, out=out, progress=False)
    game = solvedgym.make("tictactoe")
    sol = game.solve()
    return result, sol, Reference(game, sol)


def agent_path(result, label):
    """The agent the run saved of the learner `label` (of its first seed)."""
    (path,) = [p for p in (result.dir / "agents").iterdir() if p.name.lower().startswith(label.lower() + "--")]
    return path


def last_row(result, label):
    """The learner's metrics at the run's last evaluation (seed 0), by name."""
    curves = result.curves
    rows = curves.filter((curves["learner"] == label) & (curves["seed"] == 0))
    last = rows.filter(rows["episode"] == rows["episode"].max())
    return dict(zip(last["metric"], last["value"]))


def test_an_agent_says_what_it_is(run):
    result, sol, _ = run
    agent = solvedgym.load_agent(agent_path(result, "q"))
    assert isinstance(agent, solvedgym.Agent)
    assert agent.kind == "q-learning" and agent.label == "Q"
    assert agent.seats == ["o"] and agent.seat_numbers == [1]
    assert agent.episodes == 3000
    assert agent.game.name == "tictactoe"
    origin = agent.origin
    assert origin["run"] == "agents-tictactoe" and origin["opponent"] == "random" and origin["seed"] == 0
    assert tomllib.loads(origin["config"])["name"] == "agents-tictactoe"
    assert "alpha" in tomllib.loads(agent.config)
    assert agent.spec == f"agent={agent.path}"
    assert "q-learning" in repr(agent)
    alternate = solvedgym.load_agent(agent_path(result, "td"))
    assert alternate.seat_numbers == [0, 1]


def test_its_figures_are_the_runs_and_the_command_lines(run):
    result, sol, _ = run
    for label in ["Q", "TD"]:
        path = agent_path(result, label)
        agent = solvedgym.load_agent(path)
        evaluation = agent.evaluate()
        row = last_row(result, label)
        for name, value in evaluation["metrics"]:
            if name in row:
                assert close(value, row[name]), (label, name, value, row[name])
        binary = command_line()
        if binary is not None:
            cli = subprocess.run([binary, "evaluate", path, "--json"], check=True, capture_output=True)
            assert json.loads(cli.stdout) == evaluation


def test_the_runs_exact_evaluator_matches_the_reference(run):
    """The run's figures of the greedy policy (its last row of curves) against the
    independent reference, given the agent's moves: the Rust run evaluator checked from
    outside."""
    result, sol, ref = run
    for label in ["Q", "TD"]:
        agent = solvedgym.load_agent(agent_path(result, label))
        table = agent.table(sol)
        pi = ref.table_policy(table)
        row = last_row(result, label)
        seats = agent.seat_numbers
        for seat in seats:
            suffix = f"_as_{'xo'[seat]}" if len(seats) > 1 else ""
            want = ref.expected(pi, seat, ref.perfect)[3]
            assert close(row[f"greedy_return_vs_optimal{suffix}"], want), (label, seat)
        # The greedy optimal-move rates over its seats' positions. A learner holding several
        # seats is measured by the run with its own moves at all of them (docs/evaluation.md:
        # "it plays its own moves, the other seats play anything"), where `evaluate` measures
        # each seat alone.
        reports = [ref.moves(pi, seat, holds=seats) for seat in seats]
        for name in ["all", "faced", "optimal_play"]:
            count = sum(r[f"states_{name}"] for r in reports)
            want = sum(r[f"optimal_rate_{name}"] * r[f"states_{name}"] for r in reports) / count
            assert row[f"greedy_optimal_rate_{name}"] == pytest.approx(want, abs=TOL), (label, name)


def test_an_agent_is_a_policy_and_an_opponent(run):
    result, sol, ref = run
    agent = solvedgym.load_agent(agent_path(result, "q"))
    table = agent.table(sol)
    legal, _ = sol.masks()
    assert table.shape == legal.shape and ((table == 0) | legal).all()
    assert sol.evaluate(agent, seats=[1]) == sol.evaluate(table, seats=[1])
    pi = ref.table_policy(table)
    # The best response to it at x, as the reference finds it.
    got = sol.best_response(agent, 0)
    want, _ = ref.best_reply(pi, 0)
    assert close(got["expected_return"], want[3]) and close(got["win"], want[0])
    # Another policy evaluated against it.
    e = sol.evaluate(legal.astype(np.float64), seats=[0], opponent=agent)
    assert close(e["against_opponent"][0]["expected_return"], ref.expected(ref.uniform, 0, pi)[3])
    # Its moves as a computer player are its table's.
    computer = agent.computer()
    s = sol.state(1)
    assert table[1, computer.choose(s)] > 0


def test_an_agent_plays_in_the_environments(run):
    gymnasium = pytest.importorskip("gymnasium")
    import solvedgym.vector  # noqa: F401

    result, sol, _ = run
    agent = solvedgym.load_agent(agent_path(result, "q"))
    env = gymnasium.make("solvedgym/Tictactoe-v0", seat="x", opponent=agent)
    obs, info = env.reset(seed=3)
    done, rng = False, np.random.default_rng(0)
    while not done:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    vector = solvedgym.vector.SolvedGymVectorEnv(4, game="tictactoe", seat="x", opponent=agent)
    obs, info = vector.reset(seed=1)
    assert obs.shape[0] == 4


def test_a_file_that_is_no_agent_is_refused(tmp_path):
    bad = tmp_path / "nothing.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="nothing.parquet"):
        solvedgym.load_agent(bad)
    with pytest.raises(ValueError, match="missing.parquet"):
        solvedgym.load_agent(tmp_path / "missing.parquet")
