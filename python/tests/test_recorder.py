"""solvedgym.Recorder: a Python learner's curves in a Rust run's files.

The figures it writes are `Solution.evaluate`'s, under the metric names a Rust run gives them
(checked against a whole Rust run: the same policy at episode 0 gives the same value under
the same name); the file has a run's columns, types and metadata, and is read by the reader
of a run's curves (`RunResult.curves`) and concatenated with a run's own curves.
"""

import json

import numpy as np
import pytest

import solvedgym

pq = pytest.importorskip("pyarrow.parquet")

# Where each figure of a one-seat `evaluate` report is: written here from the docs
# (docs/evaluation.md's table of metrics, docs/python.md's report), not from the recorder.
WHERE = {
    "optimal_rate_all": lambda r: r["moves"]["optimal_rate_all"],
    "optimal_rate_faced": lambda r: r["moves"]["optimal_rate_faced"],
    "optimal_rate_optimal_play": lambda r: r["moves"]["optimal_rate_optimal_play"],
    "states_faced": lambda r: r["moves"]["states_faced"],
    "blunders": lambda r: r["moves"]["blunders"],
    "mistakes": lambda r: r["moves"]["mistakes"],
    "return_vs_optimal": lambda r: r["against_perfect"][0]["expected_return"],
    "win_prob_vs_optimal": lambda r: r["against_perfect"][0]["win"],
    "loss_prob_vs_optimal": lambda r: r["against_perfect"][0]["loss"],
    "return_vs_random": lambda r: r["against_random"][0]["expected_return"],
    "win_prob_vs_random": lambda r: r["against_random"][0]["win"],
    "loss_prob_vs_random": lambda r: r["against_random"][0]["loss"],
    "worst_case_return": lambda r: r["against_best_response"][0]["expected_return"],
}


def network(game, seed=0):
    """A linear network's softmax policy: a stand-in for a learner, no torch needed."""
    weights = np.random.default_rng(seed).normal(size=(game.observation_size, game.num_distinct_actions))

    def policy(observations, masks):
        z = np.where(masks, observations @ weights, -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    return policy


@pytest.fixture(scope="module")
def tictactoe():
    game = solvedgym.make("tictactoe")
    return game, game.solve()


def test_the_figures_are_the_evaluators(tmp_path, tictactoe):
    game, sol = tictactoe
    rec = solvedgym.Recorder(game, out=tmp_path, name="net", seat="o", solution=sol)
    for step, seed in [(0, 1), (100, 2)]:
        policy = network(game, seed)
        figures = rec.record(step, policy)
        report = sol.evaluate(policy, seats=[1])
        for metric, where in WHERE.items():
            assert figures[metric] == where(report), metric
        # Trained against random play: the opponent's figures are those against random play.
        assert figures["return_vs_opponent"] == report["against_random"][0]["expected_return"]
        assert figures["win_prob_vs_opponent"] == report["against_random"][0]["win"]
    curves = pq.read_table(tmp_path / "net" / "curves.parquet").to_pylist()
    assert len(curves) == rec.rows == 2 * len(figures)
    assert {(c["episode"], c["metric"]) for c in curves} == {(s, m) for s in (0, 100) for m in figures}
    at = {(c["episode"], c["metric"]): c["value"] for c in curves}
    assert at[(100, "optimal_rate_faced")] == figures["optimal_rate_faced"]
    assert {c["opponent"] for c in curves} == {"random"} and {c["learner"] for c in curves} == {"python"}


def test_an_opponent_policy_is_evaluated_against(tmp_path, tictactoe):
    game, sol = tictactoe
    policy = network(game, 3)
    fuzzy = game.computer("optimal", fuzz=0.3)
    rec = solvedgym.Recorder(game, out=tmp_path, seat=0, solution=sol, opponent=fuzzy, opponent_label="fuzzy")
    figures = rec.record(0, policy)
    report = sol.evaluate(policy, seats=[0], opponent=fuzzy)
    assert rec.opponent == "fuzzy"
    assert figures["win_prob_vs_opponent"] == report["against_opponent"][0]["win"]
    assert figures["loss_prob_vs_opponent"] == report["against_opponent"][0]["loss"]
    optimal = solvedgym.Recorder(game, out=tmp_path, name="o", solution=sol, opponent="optimal").record(0, policy)
    assert optimal["return_vs_opponent"] == report["against_perfect"][0]["expected_return"]


@pytest.mark.parametrize("game_name,seat", [("hexapawn", "black"), ("tictactoe", "x")])
def test_the_names_and_values_are_a_rust_runs(tmp_path, game_name, seat):
    """A Rust run's Q-learner at episode 0 plays uniformly over the legal moves and values
    every position 0: recorded from Python, the same policy gives every shared metric the
    run's value, under the same name, and the file the run's columns, types and metadata."""
    pl = pytest.importorskip("polars")
    config = {
        "name": "rust",
        "episodes": 4,
        "eval_interval": 4,
        "seeds": 1,
        "game": {"name": game_name},
        "learners": [{"kind": "q-learning", "label": "Q", "seat": seat}],
        "opponents": [{"policy": "random"}],
    }
    result = solvedgym.run(config, out=str(tmp_path), progress=False)
    run = result.curves.filter(pl.col("episode") == 0)
    run = dict(zip(run["metric"].to_list(), run["value"].to_list()))

    game = solvedgym.make(game_name)
    rec = solvedgym.Recorder(game, out=tmp_path, name="python", seat=seat, learner="uniform")
    uniform = lambda obs, masks: masks.astype(np.float64)  # noqa: E731
    zero = lambda obs, masks: np.zeros(len(obs))  # noqa: E731
    figures = rec.record(0, uniform, greedy=uniform, values=zero)
    shared = set(figures) & set(run)
    assert set(figures) - set(run) == set(), set(figures) - set(run)  # every name is a run's
    assert len(shared) >= 20, shared
    for metric in shared:
        assert figures[metric] == pytest.approx(run[metric], rel=1e-12, abs=1e-12), metric

    # The same columns, types and metadata keys as the run's file, and one table with it.
    ours = pq.read_schema(rec.dir / "curves.parquet")
    theirs = pq.read_schema(result.dir / "curves.parquet")
    assert [(f.name, str(f.type)) for f in ours] == [(f.name, str(f.type)) for f in theirs]
    keys = lambda s: {k for k in s.metadata if k.startswith(b"solvedgym.")}  # noqa: E731
    assert keys(ours) == keys(theirs)
    assert json.loads(ours.metadata[b"solvedgym.game_params"]) == json.loads(theirs.metadata[b"solvedgym.game_params"])
    both = pl.concat([result.curves, rec.result().curves])
    assert set(both["learner"].unique().to_list()) == {"Q", "uniform"}


def test_the_run_reader_reads_it(tmp_path, tictactoe):
    pl = pytest.importorskip("polars")
    game, sol = tictactoe
    rec = solvedgym.Recorder(game, out=tmp_path, name="seeds", solution=sol, csv=True)
    for seed in range(3):
        for step in (0, 50):
            rec.record(step, network(game, 10 * seed + step), seed=seed, extra={"loss": 0.5 + seed})
    result = rec.result()
    assert isinstance(result, solvedgym.RunResult) and result.dir == tmp_path / "seeds"
    curves = result.curves
    assert curves.columns == ["run", "game", "learner", "opponent", "seed", "episode", "metric", "value", "config_hash"]
    assert sorted(curves["seed"].unique().to_list()) == [0, 1, 2]
    assert curves["config_hash"].unique().to_list() == [rec.config_hash]
    assert len(rec.config_hash) == 16
    # summary.json: the last step's figures over the seeds.
    summary = json.loads((tmp_path / "seeds" / "summary.json").read_text())
    final = summary["conditions"][0]["final_metrics"]["loss"]
    assert final == {"mean": 1.5, "min": 0.5, "max": 2.5} and summary["conditions"][0]["seeds"] == 3
    last = curves.filter((pl.col("episode") == 50) & (pl.col("metric") == "optimal_rate_all"))["value"]
    assert final_close(summary["conditions"][0]["final_metrics"]["optimal_rate_all"], last.to_list())
    # The CSV holds the same table.
    csv = pl.read_csv(tmp_path / "seeds" / "curves.csv")
    assert csv["value"].to_list() == curves["value"].to_list()
    assert csv["metric"].to_list() == curves["metric"].to_list()


def final_close(stats, values):
    return stats["min"] == min(values) and stats["max"] == max(values) and abs(stats["mean"] - np.mean(values)) < 1e-12


def test_value_error_against_the_solver(tmp_path, tictactoe):
    game, sol = tictactoe
    players, columns = sol.players(), sol.columns()
    ids = np.flatnonzero(players == 0)
    winner = np.asarray(columns["winner"])
    truth = {int(i): (1.0 if winner[i] == 0 else 0.0 if winner[i] < 0 else -1.0) for i in ids}
    rec = solvedgym.Recorder(game, out=tmp_path, solution=sol)
    # The truth itself, looked up by observation: no error; a constant 0.5: the mean distance.
    by_obs = {sol.observations([i], 0)[0].tobytes(): truth[i] for i in truth}
    exact = lambda obs, masks: np.array([by_obs[o.tobytes()] for o in obs])  # noqa: E731
    half = lambda obs, masks: np.full(len(obs), 0.5)  # noqa: E731
    uniform = lambda obs, masks: masks.astype(float)  # noqa: E731
    assert rec.record(0, uniform, values=exact)["value_error"] == 0.0
    want = np.mean([abs(0.5 - v) for v in truth.values()])
    assert rec.record(1, uniform, values=half)["value_error"] == pytest.approx(want, abs=1e-12)


def test_illegal_moves_and_bad_input(tmp_path, tictactoe):
    game, sol = tictactoe
    everything = lambda obs, masks: np.ones(masks.shape)  # noqa: E731
    with pytest.raises(ValueError, match="illegal|legal"):
        solvedgym.Recorder(game, out=tmp_path, solution=sol).record(0, everything)
    lose = solvedgym.Recorder(game, out=tmp_path, name="lose", solution=sol, illegal="lose").record(0, everything)
    assert lose["loss_prob_vs_random"] > 0.5
    with pytest.raises(ValueError, match="seat"):
        solvedgym.Recorder(game, out=tmp_path, seat="white", solution=sol)
    with pytest.raises(ValueError, match="seat"):
        solvedgym.Recorder(game, out=tmp_path, seat=2, solution=sol)
    with pytest.raises(ValueError, match="another game"):
        solvedgym.Recorder(solvedgym.make("hexapawn"), out=tmp_path, solution=sol)
    with pytest.raises(ValueError, match="name"):
        solvedgym.Recorder(game, out=tmp_path, name="../x", solution=sol)
    with pytest.raises(TypeError, match="game"):
        solvedgym.Recorder(sol, out=tmp_path)
    rec = solvedgym.Recorder(game, out=tmp_path, name="bad", solution=sol)
    for step in (-1, 1.5, True):
        with pytest.raises(ValueError, match="step"):
            rec.record(step, everything)
    assert rec.rows == 0


def test_the_plot_draws_the_solvers_line_of_a_rust_run(tmp_path):
    """The dashed line of `return_vs_opponent` is the ceiling a Rust run states for the same
    game, seat and opponent (its summary's `ceiling`), and of `return_vs_optimal` the game
    value; the figure is written as a run's: `<metric>.png` and `.svg`."""
    pytest.importorskip("matplotlib")
    pytest.importorskip("polars")
    from solvedgym.recorder import _reference

    config = {"name": "rust", "episodes": 20, "eval_interval": 10, "seeds": 2, "game": {"name": "hexapawn"},
              "learners": [{"kind": "q-learning", "label": "Q", "seat": "white"}], "opponents": [{"policy": "random"}]}
    run = solvedgym.run(config, out=str(tmp_path), progress=False)
    game = solvedgym.make("hexapawn")
    rec = solvedgym.Recorder(game, out=tmp_path, name="py", seat="white", learner="net")
    for seed in range(2):
        for step in (0, 10, 20):
            rec.record(step, network(game, seed + step), seed=seed)
    ceiling = run.summary["conditions"][0]["ceiling"]["return_vs_opponent"]
    value, label = _reference(rec, "return_vs_opponent", "best_response")
    assert value == pytest.approx(ceiling, abs=1e-12) and label.startswith("ceiling, the best response to random")
    value, label = _reference(rec, "return_vs_optimal", "game_value")
    assert value == -1.0 and label == "game value, perfect play against perfect play: -1 (solver)"
    written = rec.plot("return_vs_opponent", also=run.dir / "curves.parquet", x_label="games played")
    assert [p.name for p in written] == ["return_vs_opponent.png", "return_vs_opponent.svg"]
    assert all(p.stat().st_size > 1000 for p in written)
    assert rec.plot("optimal_rate_faced", also=run.curves)[0].exists()
    with pytest.raises(ValueError, match="no values"):
        rec.plot("beads")


def test_solvedgym_and_its_sb3_module_import_without_torch_or_sb3():
    """`import solvedgym` and `import solvedgym.sb3` work where torch and SB3 are missing; the
    callback, which needs SB3, says so when it is asked for."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for name in ('torch', 'stable_baselines3', 'sb3_contrib'): sys.modules[name] = None\n"
        "import solvedgym, solvedgym.sb3\n"
        "assert solvedgym.Recorder and solvedgym.sb3.policy\n"
        "try:\n"
        "    solvedgym.sb3.ExactEvalCallback\n"
        "except ImportError as e:\n"
        "    print('ImportError', e.name, 'pip install stable-baselines3' in str(e))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ImportError stable_baselines3 True", out
