"""Learning curves of a Python learner, in the files of a Rust run.

    >>> rec = solvedgym.Recorder(solvedgym.make("tictactoe"), out="runs", name="my-dqn")  # doctest: +SKIP
    >>> rec.record(0, policy)          # every N steps of your own loop              # doctest: +SKIP
    >>> rec.result().curves            # polars, as `solvedgym.run(...).curves`      # doctest: +SKIP

`Recorder.record(step, policy)` evaluates `policy` exactly (`Solution.evaluate`, at the
learner's seat) and appends its figures to `<out>/<name>/curves.parquet` under the metric names a
Rust run records (`optimal_rate_faced`, `return_vs_optimal`, `worst_case_return`, ...): the
same columns and types, the same `solvedgym.*` metadata, zstd. Whatever reads a run's curves —
`solvedgym.run(...).curves`, polars, pandas, pyarrow — reads it alike, and the curves of a
Python learner and of a Rust learner go into one table with `pl.concat`.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Union

import numpy as np

from ._solvedgym import Agent, Computer, Game, Solution, __version__
from ._seats import seat_number
from .experiments import RunResult

__all__ = ["Recorder", "evaluation_metrics"]

#: The names a Rust run gives the figures of `Solution.evaluate` at one seat.
_MOVES = {
    "optimal_rate_all": "optimal_rate_all",
    "optimal_rate_faced": "optimal_rate_faced",
    "optimal_rate_optimal_play": "optimal_rate_optimal_play",
    "states_faced": "states_faced",
    "blunders": "blunders",
    "mistakes": "mistakes",
}
_RESULTS = {
    "against_perfect": "optimal",
    "against_random": "random",
    "against_opponent": "opponent",
}


def evaluation_metrics(report: Dict[str, Any], greedy: bool = False) -> Dict[str, float]:
    """The figures of `Solution.evaluate(..., seats=[seat])`'s report under a Rust run's metric
    names: the optimal-move rates, `states_faced`, `blunders`, `mistakes`, `return_`,
    `win_prob_` and `loss_prob_vs_optimal`, `_vs_random` and (given an opponent) `_vs_opponent`,
    and `worst_case_return`. With `greedy=True`, those a run records for its greedy policy:
    `greedy_optimal_rate_all`, `_faced`, `_optimal_play` and `greedy_return_vs_optimal`.
    A figure the evaluator gives as None (a count over no position, a truth of probabilities)
    is left out."""
    if len(report["seats"]) != 1:
        raise ValueError("evaluation_metrics reads a report of one seat: evaluate(..., seats=[seat])")
    moves = report["moves"]
    out: Dict[str, float] = {}
    if greedy:
        for name in ("optimal_rate_all", "optimal_rate_faced", "optimal_rate_optimal_play"):
            out["greedy_" + name] = moves[name]
        out["greedy_return_vs_optimal"] = report["against_perfect"][0]["expected_return"]
    else:
        for key, name in _MOVES.items():
            out[name] = moves[key]
        for key, against in _RESULTS.items():
            if key not in report:
                continue
            r = report[key][0]
            out[f"return_vs_{against}"] = r["expected_return"]
            out[f"win_prob_vs_{against}"] = r["win"]
            out[f"loss_prob_vs_{against}"] = r["loss"]
        out["worst_case_return"] = report["against_best_response"][0]["expected_return"]
    return {k: float(v) for k, v in out.items() if v is not None}


def _fnv1a(text: str) -> str:
    """The hash a Rust run gives its resolved config (FNV-1a, 64 bits, 16 hex digits)."""
    h = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))


class Recorder:
    """Exact learning curves of a policy trained in Python, written as a Rust run writes them.

    game
        the game the learner plays (`solvedgym.make(...)`), with its parameters.
    out, name
        the folder: `<out>/<name>/curves.parquet` (and `summary.json`; with `csv=True` also
        `curves.csv`), as `solvedgym run` lays out a run.
    seat
        the learner's seat, by number or name (default 0).
    learner
        the label of the `learner` column (default "python").
    opponent
        who the learner trains against, for the `opponent` column and the `*_vs_opponent`
        metrics: `"random"` (the default) or `"optimal"` (their figures are those against
        random and perfect play), another computer player by name (`"greedy"`, search
        settings, `"agent=PATH"`), or any policy `evaluate` takes as an opponent (a saved
        agent, a computer player, a callable, a table), labelled by `opponent_label`.
    seed
        the `seed` column (default 0); `record(..., seed=k)` records another seed into the
        same file, as a run's seeds share one.
    solution
        the game's solution where it is solved already (else solved here, once).
    illegal, output, batch_size
        passed to `Solution.evaluate` (`illegal="lose"` for a policy that may play an illegal
        move, scored as the environment with `illegal="lose"` plays it).

    Each `record` rewrites the whole file (written to a temporary file, then renamed), so the
    file on disk always holds every measurement so far.
    """

    def __init__(
        self,
        game: Game,
        out: Union[str, os.PathLike] = "runs",
        name: str = "python",
        *,
        seat: Union[int, str] = 0,
        learner: str = "python",
        opponent: Any = "random",
        opponent_label: Optional[str] = None,
        seed: int = 0,
        solution: Optional[Solution] = None,
        illegal: str = "raise",
        output: str = "probabilities",
        batch_size: int = 4096,
        csv: bool = False,
    ):
        if not isinstance(game, Game):
            raise TypeError(f"Recorder takes a game (solvedgym.make(...)); got {type(game).__name__}")
        if not isinstance(name, str) or not name or "/" in name or name in (".", ".."):
            raise ValueError(f"name={name!r}: a plain, non-empty folder name")
        self.game = game
        self.seat = seat_number(game, seat)
        self.solution = solution if solution is not None else game.solve()
        try:
            same = self.solution.index(game.initial_state()) == 0
        except ValueError:  # ForeignStateError: a state of another game
            same = False
        if not same:
            raise ValueError("the solution is of another game (or of other parameters)")
        self.name, self.learner, self.seed = name, str(learner), _seed(seed)
        self.illegal, self.output, self.batch_size = illegal, output, batch_size
        self.dir = Path(out) / name
        self.csv = csv
        # The opponent: named figures against random or perfect play, or a policy to evaluate against.
        self._opponent_policy: Any = None
        self._opponent_as: Optional[str] = None
        if isinstance(opponent, str):
            label = opponent
            if opponent == "random":
                self._opponent_as = "against_random"
            elif opponent in ("optimal", "perfect"):
                self._opponent_as = "against_perfect"
            else:
                self._opponent_policy = game.computer(opponent)
        elif opponent is None:
            label = "none"
        else:
            self._opponent_policy = opponent
            label = getattr(opponent, "label", None) or getattr(opponent, "spec", None) or "opponent"
        self.opponent = opponent_label or label
        params = dict(game.params)
        self.config = (
            "# the curves of a Python learner, recorded by solvedgym.Recorder\n"
            f"name = {_toml_value(name)}\n\n[game]\nname = {_toml_value(game.name)}\n"
            + "".join(f"{k} = {_toml_value(v)}\n" for k, v in sorted(params.items()))
            + f"\n[recorder]\nlearner = {_toml_value(self.learner)}\n"
            f"opponent = {_toml_value(self.opponent)}\n"
            f"seat = {_toml_value(game.player_names[self.seat])}\n"
            f"illegal = {_toml_value(illegal)}\noutput = {_toml_value(output)}\n"
        )
        self.config_hash = _fnv1a(self.config)
        self._params_json = json.dumps(params, sort_keys=True)
        self._rows: List[tuple] = []

    def __repr__(self) -> str:
        return (
            f"Recorder({self.game.name} as {self.game.player_names[self.seat]} vs {self.opponent}: "
            f"{len(self._rows)} rows -> {self.dir / 'curves.parquet'})"
        )

    @property
    def rows(self) -> int:
        """The measurements recorded so far (rows of the curves)."""
        return len(self._rows)

    def evaluate(self, policy: Any, illegal: Optional[str] = None) -> Dict[str, Any]:
        """`Solution.evaluate`'s report of `policy` at the learner's seat, with this recorder's
        opponent, `output`, `batch_size` and `illegal` (unless given here)."""
        report = self.solution.evaluate(
            policy,
            seats=[self.seat],
            batch_size=self.batch_size,
            illegal=self.illegal if illegal is None else illegal,
            output=self.output,
            opponent=self._opponent_policy,
        )
        if self._opponent_as is not None:
            report["against_opponent"] = report[self._opponent_as]
        return report

    def record(
        self,
        step: int,
        policy: Any,
        *,
        greedy: Any = None,
        values: Optional[Callable[[np.ndarray, np.ndarray], np.ndarray]] = None,
        seed: Optional[int] = None,
        extra: Optional[Dict[str, float]] = None,
        illegal: Optional[str] = None,
    ) -> Dict[str, float]:
        """Evaluates `policy` exactly after `step` steps (the curves' `episode` column: count
        episodes, as a Rust run does, or environment steps, as SB3 does; say which in your
        plots) and writes the figures; returns them by metric name.

        `policy` is the learner's play as it trains (a Rust run's behaviour policy: the plain
        metric names). `greedy`, where given, is its greedy play, recorded as the run records
        a greedy policy (`greedy_optimal_rate_*`, `greedy_return_vs_optimal`). `values`, where
        given, is `values(observations, masks)` -> the learner's value of each position
        (the mover's return), recorded as `value_error`: the mean absolute error over every
        position where the learner's seat moves, against the solver's +1 / 0 / -1 (games of
        win/draw/loss truth). `extra` adds figures of your own (`{"loss": 0.3}`) by name;
        `illegal` overrides the recorder's for this call.
        """
        step = _seed(step, "step")
        seed = self.seed if seed is None else _seed(seed)
        figures = evaluation_metrics(self.evaluate(policy, illegal))
        if greedy is not None:
            figures.update(evaluation_metrics(self.evaluate(greedy, illegal), greedy=True))
        if values is not None:
            error = value_error(self.solution, self.seat, values, self.batch_size)
            if error is not None:
                figures["value_error"] = error
        for key, value in (extra or {}).items():
            figures[str(key)] = float(value)
        for metric, value in figures.items():
            self._rows.append((seed, step, metric, value))
        self.write()
        return figures

    def write(self) -> Path:
        """Writes `curves.parquet` (and `curves.csv`, `summary.json`) with every row so far;
        returns the Parquet file's path. `record` calls it."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        n = len(self._rows)
        seeds, steps, metrics, values = (list(c) for c in zip(*self._rows)) if n else ([], [], [], [])
        table = pa.table(
            {
                "run": pa.array([self.name] * n, pa.large_string()),
                "game": pa.array([self.game.name] * n, pa.large_string()),
                "learner": pa.array([self.learner] * n, pa.large_string()),
                "opponent": pa.array([self.opponent] * n, pa.large_string()),
                "seed": pa.array(seeds, pa.uint64()),
                "episode": pa.array(steps, pa.uint64()),
                "metric": pa.array(metrics, pa.large_string()),
                "value": pa.array(values, pa.float64()),
                "config_hash": pa.array([self.config_hash] * n, pa.large_string()),
            }
        )
        table = table.replace_schema_metadata(
            {
                "solvedgym.run": self.name,
                "solvedgym.game": self.game.name,
                "solvedgym.game_params": self._params_json,
                "solvedgym.config_hash": self.config_hash,
                "solvedgym.version": __version__,
                "solvedgym.commit": "unknown",
                "solvedgym.config": self.config,
            }
        )
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / "curves.parquet"
        _atomic(path, lambda f: pq.write_table(table, f, compression="zstd"))
        if self.csv:
            import pyarrow.csv as pcsv

            _atomic(self.dir / "curves.csv", lambda f: pcsv.write_csv(table, f))
        summary = self.summary()
        _atomic(
            self.dir / "summary.json",
            lambda f: f.write((json.dumps(summary, indent=2) + "\n").encode("utf-8")),
        )
        return path

    def summary(self) -> Dict[str, Any]:
        """What `summary.json` holds: the run's name, config hash, version, game and
        parameters, and for the condition (learner, opponent, seat) the seeds, the last step
        and `final_metrics` (each metric at every seed's last step: `mean`, `min`, `max`)."""
        last: Dict[int, int] = {}
        for seed, step, _, _ in self._rows:
            last[seed] = max(step, last.get(seed, step))
        finals: Dict[str, List[float]] = {}
        for seed, step, metric, value in self._rows:
            if step == last[seed]:
                finals.setdefault(metric, []).append(value)
        return {
            "name": self.name,
            "description": "the curves of a Python learner, recorded by solvedgym.Recorder",
            "config_hash": self.config_hash,
            "version": __version__,
            "commit": None,
            "game": self.game.name,
            "params": json.loads(self._params_json),
            "conditions": [
                {
                    "learner": self.learner,
                    "opponent": self.opponent,
                    "seat": self.game.player_names[self.seat],
                    "seeds": len(last),
                    "episodes": max(last.values(), default=0),
                    "final_metrics": {
                        m: {"mean": math.fsum(v) / len(v), "min": min(v), "max": max(v)}
                        for m, v in finals.items()
                    },
                }
            ],
        }

    def plot(
        self,
        metric: str = "optimal_rate_faced",
        *,
        also: Any = None,
        x_label: str = "steps",
        folder: Union[str, os.PathLike, None] = None,
    ) -> List[Path]:
        """Draws `metric` as a Rust run's plots draw it: one line per learner and opponent (the
        mean over seeds, with the min-max band where there are several), and the solver's line
        for this recorder's seat and opponent, dashed, labelled as a run labels it (perfect
        play's figure, the game value, or the ceiling against the training opponent). `also`
        adds the rows of other curves of the same game and seat (a Rust run's
        `curves.parquet`, its path, or a table with a run's columns) to the same axes, so a
        Python learner and a Rust learner are drawn against one line. Writes
        `<folder>/<metric>.png` and `.svg` (the folder defaults to the recorder's) and returns
        their paths; needs matplotlib."""
        curves = [
            {"learner": self.learner, "opponent": self.opponent, "episode": step, "metric": m, "value": v}
            for seed, step, m, v in self._rows
        ]
        if also is not None:
            curves += _rows_of(also)
        return _plot(self, metric, curves, Path(folder) if folder is not None else self.dir, x_label)

    def result(self) -> RunResult:
        """The folder as `solvedgym.run` returns a run's: `.dir`, `.summary`, and `.curves`
        read from `curves.parquet` by the same reader (polars)."""
        path = self.write()
        return RunResult(dir=self.dir, summary=self.summary(), written=[path])


def _rows_of(curves: Any) -> List[Dict[str, Any]]:
    """The rows of a run's curves: a path, a polars or pandas DataFrame, or a pyarrow table."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    if isinstance(curves, (str, os.PathLike)):
        curves = pq.read_table(curves)
    elif not isinstance(curves, pa.Table):
        curves = pa.Table.from_pandas(curves) if hasattr(curves, "iloc") else curves.to_arrow()
    return curves.select(["learner", "opponent", "episode", "metric", "value"]).to_pylist()


def value_error(
    solution: Solution,
    seat: int,
    values: Callable[[np.ndarray, np.ndarray], np.ndarray],
    batch_size: int = 4096,
) -> Optional[float]:
    """The mean absolute error of `values(observations, masks)` (the learner's value of each
    position, for the mover) over every position where `seat` moves, against the solver's
    value for the mover: +1 won, 0 drawn, -1 lost. None where the truth is not win/draw/loss."""
    columns = solution.columns()
    if "winner" not in columns:
        return None
    players = solution.players()
    ids = np.flatnonzero(players == seat)
    if len(ids) == 0:
        return None
    winner = np.asarray(columns["winner"])[ids]
    truth = np.where(winner == seat, 1.0, np.where(winner < 0, 0.0, -1.0))
    legal, _ = solution.masks()
    errors = []
    for start in range(0, len(ids), batch_size):
        chunk = ids[start : start + batch_size]
        obs = solution.observations(chunk, seat)
        got = np.asarray(values(obs, legal[chunk]), dtype=np.float64).reshape(len(chunk))
        errors.append(np.abs(got - truth[start : start + len(chunk)]))
    return float(np.concatenate(errors).mean())


def _seed(value: Any, what: str = "seed") -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value < 2**64:
        raise ValueError(f"{what}={value!r}: a whole number from 0 to 2^64 - 1")
    return int(value)


def _atomic(path: Path, write: Callable[[Any], None]) -> None:
    """Writes `path` through a temporary file in its folder, then renames it (a reader never
    sees half a file), with the mode a plain create gives."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


#: Titles, units and reference sources of the metrics a recorder writes, as a Rust run's plots
#: say them (the table of `src/learn/metric.rs`).
_PLOTTED = {
    "optimal_rate_all": ("Optimal-move rate of its play over every position", "rate", "all_optimal"),
    "optimal_rate_faced": ("Optimal-move rate of its play over the positions it can face", "rate", "all_optimal"),
    "optimal_rate_optimal_play": ("Optimal-move rate of its play along lines of perfect play", "rate", "all_optimal"),
    "greedy_optimal_rate_all": ("Optimal-move rate of the greedy policy over every position", "rate", "all_optimal"),
    "greedy_optimal_rate_faced": (
        "Optimal-move rate of the greedy policy over the positions it can face", "rate", "all_optimal"),
    "greedy_optimal_rate_optimal_play": (
        "Optimal-move rate of the greedy policy along lines of perfect play", "rate", "all_optimal"),
    "blunders": ("Blunders: won positions it may throw away", "positions", None),
    "mistakes": ("Mistakes: drawn positions it may lose", "positions", None),
    "states_faced": ("Positions it can face", "positions", None),
    "return_vs_optimal": ("Expected return of its play against perfect play", "return", "game_value"),
    "greedy_return_vs_optimal": ("Expected return of the greedy policy against perfect play", "return", "game_value"),
    "worst_case_return": (
        "Expected return of its play against its strongest opponent (a best response)", "return", "game_value"),
    "value_error": ("Value error: mean absolute difference from the solver's values", "count", "exact_values"),
}
_AGAINST = {"optimal": "perfect play", "random": "random play", "opponent": "its training opponent"}
_WHAT = {
    "return": ("Expected return of its play against", "return"),
    "win_prob": ("Win probability of its play against", "win"),
    "loss_prob": ("Loss probability of its play against", "loss"),
}
#: Each kind's y axis: its label, and its range where fixed.
_UNITS = {
    "rate": ("probability of a value-keeping move", (0.0, 1.02)),
    "win": ("probability of a win", (0.0, 1.02)),
    "loss": ("probability of a loss", (0.0, 1.02)),
    "return": ("expected return (+1 win, -1 loss)", (-1.05, 1.05)),
    "positions": ("positions", None),
    "count": ("mean |learned value - true value|", None),
    "other": ("value", None),
}


def _number(v: float) -> str:
    """A figure as a Rust run's legend says it: at most three decimals, no trailing zeros."""
    text = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _describe(metric: str):
    """(title, kind, source) of a metric a recorder writes; None for another."""
    if metric in _PLOTTED:
        return _PLOTTED[metric]
    for what, (title, kind) in _WHAT.items():
        for against, words in _AGAINST.items():
            if metric == f"{what}_vs_{against}":
                source = "best_response" if against == "opponent" else "perfect_play"
                return f"{title} {words}", kind, source
    return None


def _reference(rec: "Recorder", metric: str, source: Optional[str]):
    """The solver's line of `metric` for the recorder's seat and opponent, as a Rust run draws
    it: (value, label), or None."""
    if source is None:
        return None
    if source == "all_optimal":
        return 1.0, "perfect play: every move keeps the value (solver)"
    if source == "exact_values":
        return 0.0, "the solver's values: error 0"
    what = "win" if metric.startswith("win_prob") else "loss" if metric.startswith("loss_prob") else "expected_return"
    if source == "best_response":
        if rec._opponent_as == "against_random":
            opponent: Any = "random"
        elif rec._opponent_as == "against_perfect":
            opponent = "perfect"
        elif rec._opponent_policy is not None:
            opponent = rec._opponent_policy
        else:
            return None
        v = rec.solution.best_response(opponent, rec.seat, batch_size=rec.batch_size,
                                       illegal=rec.illegal, output=rec.output)[what]
        return v, f"ceiling, the best response to {rec.opponent}: {_number(v)} (solver)"
    _, keeps = rec.solution.masks()
    perfect = rec.solution.evaluate(keeps.astype(np.float64), seats=[rec.seat])
    if source == "game_value":
        v = perfect["against_perfect"][0]["expected_return"]
        return v, f"game value, perfect play against perfect play: {_number(v)} (solver)"
    against = "random" if metric.endswith("_vs_random") else "perfect"
    v = perfect[f"against_{against}"][0][what]
    return v, f"perfect play against {against} play: {_number(v)} (solver)"


def _plot(rec: "Recorder", metric: str, curves: Any, folder: Path, x_label: str) -> List[Path]:
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("Recorder.plot needs matplotlib: pip install matplotlib") from e
    described = _describe(metric)
    if described is None:
        title, kind, source = metric, "other", None
    else:
        title, kind, source = described
    rows = [r for r in curves if r["metric"] == metric and math.isfinite(r["value"])]
    if not rows:
        raise ValueError(f"no values of {metric!r} to plot (metrics: {sorted({r['metric'] for r in curves})})")
    series: Dict[tuple, Dict[int, List[float]]] = {}
    for r in rows:
        series.setdefault((r["learner"], r["opponent"]), {}).setdefault(r["episode"], []).append(r["value"])
    fig, ax = plt.subplots(figsize=(10.24, 6.4), dpi=100)
    banded = False
    for (learner, opponent), points in series.items():
        xs = sorted(points)
        mean = [math.fsum(points[x]) / len(points[x]) for x in xs]
        seeds = max(len(v) for v in points.values())
        (line,) = ax.plot(xs, mean, linewidth=2, label=f"{learner} vs {opponent} (n={seeds})")
        if seeds > 1:
            ax.fill_between(xs, [min(points[x]) for x in xs], [max(points[x]) for x in xs],
                            alpha=0.2, color=line.get_color(), linewidth=0)
            banded = True
    reference = _reference(rec, metric, source)
    if reference is not None:
        ax.axhline(reference[0], linestyle="--", linewidth=2, color="black", label=reference[1])
    if banded:
        ax.fill_between([], [], [], color="lightgray", label="shaded: min-max over seeds")
    unit, limits = _UNITS[kind]
    if limits is not None:
        ax.set_ylim(*limits)
    seat = rec.game.player_names[rec.seat]
    ax.set(title=f"{rec.name}: {title} (as {seat})", xlabel=x_label, ylabel=unit)
    ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for ext in ("png", "svg"):
        path = folder / f"{metric}.{ext}"
        _atomic(path, lambda f, ext=ext: fig.savefig(f, format=ext))
        written.append(path)
    plt.close(fig)
    return written
