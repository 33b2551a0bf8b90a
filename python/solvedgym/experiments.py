"""Experiments from Python: `solvedgym.run(config)` runs a config as `solvedgym run` does.

    >>> import solvedgym
    >>> result = solvedgym.run("tests/data/tiny.toml", out="runs")   # doctest: +SKIP
    >>> result.summary["conditions"][0]["learner"]                    # doctest: +SKIP
    'HER'
    >>> result.curves.filter(metric="optimal_rate_faced")             # doctest: +SKIP

The outputs are the command line's, file for file (`curves.parquet`, `config.toml`,
`summary.json`, `summary.md`, the plots; with `csv=True` also `curves.csv`): the same Rust
runner writes them. The curves come back as a polars DataFrame (polars is needed only for
`.curves`), the summary as a dict.
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, Mapping, Optional, Union

from ._solvedgym import _run

__all__ = ["RunResult", "run"]


@dataclass
class RunResult:
    """What `run` wrote: the output folder, its summary and (read on first use) its curves.

    For a study (`[[games]]`), `dir` is the study's folder, `games` holds one `RunResult` per
    game by its label, `summary` maps each label to that game's summary, and `curves` is every
    game's curves in one table (its `game` and `run` columns tell them apart). For a single
    game, `games` is empty.
    """

    dir: Path
    summary: Dict[str, Any]
    #: Every file written (the command line's "wrote ..." line).
    written: list = field(default_factory=list)
    games: Dict[str, "RunResult"] = field(default_factory=dict)
    _curves: Any = field(default=None, repr=False)

    @property
    def curves(self):
        """The long-form curves (`curves.parquet`) as a polars DataFrame: one row per
        measurement, columns `run, game, learner, opponent, seed, episode, metric, value,
        config_hash`."""
        if self._curves is None:
            pl = _polars()
            if self.games:
                self._curves = pl.concat([g.curves for g in self.games.values()])
            else:
                self._curves = pl.read_parquet(self.dir / "curves.parquet")
        return self._curves


def _polars():
    try:
        import polars
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "RunResult.curves needs polars: pip install polars "
            "(the files are written without it; summary and dir work without it)"
        ) from e
    return polars


def run(
    config: Union[str, os.PathLike, Mapping[str, Any]],
    out: Union[str, os.PathLike] = "runs",
    *,
    fresh: bool = False,
    csv: bool = False,
    progress: bool = True,
) -> RunResult:
    """Runs an experiment config or a study as `solvedgym run CONFIG --out OUT` does.

    `config` is the path of a TOML config (as in `experiments/` and `configs/`), or the same
    config as a dict (`{"name": "tiny", "episodes": 100, "game": {"name": "hexapawn"},
    "learners": [{"kind": "q-learning"}], ...}`); every key is checked as in a file, and a
    mistake raises `ValueError` naming the key. The results go to `out/<name>/`. Runs stored
    by an interrupted run of the same config are read back, not trained again; `fresh=True`
    discards them. `csv=True` also writes `curves.csv`.

    `progress`: in a terminal, the command line's bar on stderr; elsewhere (Jupyter, a
    redirected stderr) a `tqdm.auto` bar where tqdm is installed, else a line of text.
    Ctrl-C (or Jupyter's interrupt) stops the study with `KeyboardInterrupt` at the runs'
    next report (every 64 episodes); the runs finished so far are kept, so the same call
    resumes. Solving the game before training is not interrupted.
    """
    if not isinstance(config, Mapping):
        config = os.fspath(config)
        if not os.path.exists(config):
            raise FileNotFoundError(f"no experiment config at {config}")
    else:
        config = dict(config)
    out = Path(out)
    terminal = progress and _stderr_is_terminal()
    bar = _Bar() if progress and not terminal else None
    try:
        games = _run(
            config,
            os.fspath(out),
            fresh=fresh,
            csv=csv,
            progress=terminal,
            observer=bar.update if bar else None,
        )
    finally:
        if bar:
            bar.close()
    results = {}
    for g in games:
        folder = Path(g["dir"])
        with open(folder / "summary.json", encoding="utf-8") as f:
            summary = json.load(f)
        results[g["name"]] = RunResult(
            dir=folder, summary=summary, written=[Path(p) for p in g["written"]]
        )
    if len(results) == 1:
        return next(iter(results.values()))
    # A study: its games' folders are in its own.
    first = next(iter(results.values()))
    labels = {name.rsplit("/", 1)[-1]: r for name, r in results.items()}
    written = [p for r in results.values() for p in r.written]
    return RunResult(
        dir=first.dir.parent,
        summary={label: r.summary for label, r in labels.items()},
        written=written,
        games=labels,
    )


def _stderr_is_terminal() -> bool:
    """Whether the command line's bar will show: stderr is a terminal (not in Jupyter, whose
    `sys.stderr` is the notebook's and whose file descriptor 2 is the kernel's log)."""
    try:
        return sys.stderr.isatty() and os.isatty(2)
    except (AttributeError, ValueError, OSError):
        return False


class _Bar:
    """Progress where the command line's bar does not show: tqdm (`tqdm.auto`: a widget in
    Jupyter) where installed, else one line of text rewritten in place."""

    def __init__(self):
        try:
            with warnings.catch_warnings():
                # Without ipywidgets, tqdm.auto warns and falls back to its text bar: that is
                # what we want then.
                warnings.simplefilter("ignore")
                from tqdm.auto import tqdm
        except ImportError:
            self._tqdm = None
        else:
            self._tqdm = tqdm(total=None, unit="episodes", unit_scale=True, desc="training")
        self._last = 0.0
        self._shown = False

    def update(self, done: int, total: int) -> None:
        if self._tqdm is not None:
            if self._tqdm.total != total:
                self._tqdm.total = total
            self._tqdm.n = done
            self._tqdm.refresh()
            return
        now = time.monotonic()
        if now - self._last < 0.1 and done < total:
            return
        self._last = now
        share = f" ({100 * done / total:.0f}%)" if total else ""
        print(f"\rtraining: {done:,}/{total:,} episodes{share}", end="", file=sys.stderr, flush=True)
        self._shown = True

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
        elif self._shown:
            print(file=sys.stderr, flush=True)
