"""Experiments from Python: `solvedgym.run` writes what `solvedgym run` writes."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import solvedgym

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "tests" / "data" / "tiny.toml"

pl = pytest.importorskip("polars", reason="solvedgym.run's curves are a polars DataFrame")

FILES = {
    "agents",
    "config.toml",
    "curves.csv",
    "curves.parquet",
    "summary.json",
    "summary.md",
    "cumulative_losses.png",
    "cumulative_losses.svg",
    "optimal_rate_faced.png",
    "optimal_rate_faced.svg",
    "return_vs_optimal.png",
    "return_vs_optimal.svg",
}

TINY_DICT = {
    "name": "tiny-dict",
    "episodes": 12,
    "eval_interval": 4,
    "seeds": 2,
    "game": {"name": "hexapawn"},
    "learners": [{"kind": "matchbox", "scheme": "her", "label": "HER", "seat": "black"}],
    "opponents": [{"policy": "optimal"}, {"name": "random", "policy": "random"}],
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    return out, solvedgym.run(TINY, out=out, csv=True, progress=False)


def test_the_outputs_are_the_command_lines(tiny):
    out, result = tiny
    assert result.dir == out / "tiny"
    assert {p.name for p in result.dir.iterdir()} == FILES
    assert {p.name for p in result.written} == FILES
    assert result.games == {}


def test_curves_are_the_csv_table(tiny):
    out, result = tiny
    curves = result.curves
    assert isinstance(curves, pl.DataFrame)
    assert curves.columns == [
        "run", "game", "learner", "opponent", "seed", "episode", "metric", "value", "config_hash",
    ]
    csv = pl.read_csv(result.dir / "curves.csv")
    assert curves.columns == csv.columns
    assert curves.height == csv.height
    assert curves["value"].to_list() == pytest.approx(csv["value"].to_list(), rel=1e-12)
    for column in ["learner", "opponent", "metric"]:
        assert curves[column].cast(pl.Utf8).to_list() == csv[column].to_list()
    # 2 learners x 2 opponents x 3 seeds, evaluated at episodes 0, 4, 8, 12.
    assert set(curves["seed"].to_list()) == {0, 1, 2}
    assert sorted(set(curves["episode"].to_list())) == [0, 4, 8, 12]
    assert set(curves["learner"].cast(pl.Utf8).to_list()) == {"HER", "MENACE"}


def test_summary_is_summary_json(tiny):
    out, result = tiny
    assert result.summary == json.loads((result.dir / "summary.json").read_text())
    assert {"name", "config_hash", "game", "params", "solution", "conditions"} <= set(result.summary)
    assert result.summary["solution"]["start"] == "black wins in 6 plies"
    assert [(c["learner"], c["opponent"]) for c in result.summary["conditions"]] == [
        ("HER", "optimal"), ("HER", "fuzzy"), ("MENACE", "optimal"), ("MENACE", "fuzzy"),
    ]


def test_a_second_run_writes_the_same_bytes(tiny, tmp_path):
    out, result = tiny
    again = solvedgym.run(str(TINY), out=tmp_path, csv=True, progress=False)
    for name in ["curves.csv", "config.toml", "summary.json", "summary.md"]:
        assert (again.dir / name).read_bytes() == (result.dir / name).read_bytes(), name


def command_line():
    """The `solvedgym` binary where it is built (CARGO_TARGET_DIR or target/), else None."""
    for root in [os.environ.get("CARGO_TARGET_DIR"), ROOT / "target"]:
        if root:
            binary = Path(root) / "release" / "solvedgym"
            if binary.is_file():
                return binary
    return shutil.which("solvedgym")


@pytest.fixture(scope="module")
def by_the_binary(tmp_path_factory):
    """tests/data/tiny.toml run by the command line (built with polars)."""
    binary = command_line()
    if binary is None:
        pytest.skip("the solvedgym binary is not built (cargo build --release)")
    out = tmp_path_factory.mktemp("binary")
    subprocess.run(
        [binary, "run", TINY, "--csv", "--quiet", "--out", out],
        check=True, capture_output=True,
    )
    return binary, out / "tiny"


def files(folder):
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


def test_the_same_files_as_the_binary(tiny, by_the_binary):
    """The package's library is built without polars and writes its Parquet with pyarrow; the
    command line's with polars. Every other file is the same bytes; the Parquet files hold the
    same tables, types and metadata."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    out, result = tiny
    _, theirs = by_the_binary
    assert {p.name for p in theirs.iterdir()} == FILES
    assert files(theirs) == files(result.dir)
    assert any(f.parts[0] == "agents" for f in files(theirs))
    for f in files(theirs):
        mine, cli = (result.dir / f), (theirs / f)
        if f.name == "summary.json":
            # What built each (a binary of another commit) may differ; nothing else may.
            a, b = (json.loads(p.read_text()) for p in (mine, cli))
            for s in (a, b):
                s.pop("commit"), s.pop("version")
            assert a == b
        elif f.suffix == ".parquet":
            a, b = pq.read_table(mine), pq.read_table(cli)
            assert a.schema.types == b.schema.types, f
            assert pa.large_string() in a.schema.types, f
            assert a.equals(b), f
            ma, mb = (
                {k: v for k, v in pq.read_metadata(p).metadata.items() if k != b"ARROW:schema"}
                for p in (mine, cli)
            )
            if f.parts[0] == "agents":
                # The header says which build wrote it.
                ha, hb = (json.loads(m.pop(b"solvedgym.agent")) for m in (ma, mb))
                for h in (ha, hb):
                    h.pop("commit"), h.pop("solvedgym")
                assert ha == hb, f
            assert ma == mb, f
        else:
            assert mine.read_bytes() == cli.read_bytes(), f


def test_each_reads_the_others_agents(tiny, by_the_binary):
    out, result = tiny
    binary, theirs = by_the_binary
    name = Path("agents") / "her--optimal--seed-0.parquet"
    mine, cli = result.dir / name, theirs / name
    a, b = (solvedgym.load_agent(p).evaluate(progress=False) for p in (mine, cli))
    assert a["metrics"] == b["metrics"] and a["metrics"]
    by_binary = [
        json.loads(subprocess.run(
            [binary, "evaluate", p, "--json", "--quiet"], check=True, capture_output=True,
        ).stdout)
        for p in (mine, cli)
    ]
    for e in by_binary:
        e["agent"].pop("commit"), e["agent"].pop("solvedgym")
    assert by_binary[0] == by_binary[1]


def test_a_dict_config(tmp_path):
    result = solvedgym.run(TINY_DICT, out=tmp_path, progress=False)
    assert result.dir == tmp_path / "tiny-dict"
    assert result.summary["name"] == "tiny-dict"
    assert len(result.summary["conditions"]) == 2
    assert result.curves.height > 0
    assert set(result.curves["seed"].to_list()) == {0, 1}
    # The resolved config written is the dict's, every default filled in.
    assert 'name = "tiny-dict"' in (result.dir / "config.toml").read_text()


def test_a_study_has_one_entry_per_game(tmp_path):
    study = {
        "name": "two",
        "episodes": 8,
        "eval_interval": 4,
        "seeds": 1,
        "games": [
            {"name": "hexapawn", "label": "hexapawn"},
            {"name": "tictactoe", "label": "tictactoe"},
        ],
        "learners": [{"kind": "q-learning", "label": "Q"}],
    }
    result = solvedgym.run(study, out=tmp_path, progress=False)
    assert result.dir == tmp_path / "two"
    assert set(result.games) == {"hexapawn", "tictactoe"}
    assert result.games["tictactoe"].dir == tmp_path / "two" / "tictactoe"
    assert set(result.summary) == {"hexapawn", "tictactoe"}
    assert result.summary["tictactoe"]["game"] == "tictactoe"
    assert set(result.curves["game"].cast(pl.Utf8).to_list()) == {"hexapawn", "tictactoe"}
    assert (tmp_path / "two" / "summary.md").is_file()


def test_a_typo_names_the_key(tmp_path):
    typo = dict(TINY_DICT, episdoes=10)
    with pytest.raises(ValueError, match="episdoes"):
        solvedgym.run(typo, out=tmp_path, progress=False)
    bad_seat = dict(TINY_DICT, learners=[{"kind": "matchbox", "seat": "purple"}])
    with pytest.raises(ValueError, match="seat"):
        solvedgym.run(bad_seat, out=tmp_path, progress=False)
    config = tmp_path / "typo.toml"
    config.write_text(TINY.read_text().replace("eval_interval", "eval_intervall"))
    with pytest.raises(ValueError, match=r"typo\.toml:\d+:\d+: .*eval_intervall"):
        solvedgym.run(config, out=tmp_path, progress=False)
    with pytest.raises(TypeError):
        solvedgym.run(dict(TINY_DICT, seeds=None), out=tmp_path, progress=False)
    with pytest.raises(TypeError):
        solvedgym.run(42, out=tmp_path, progress=False)


def test_a_missing_config(tmp_path):
    with pytest.raises(FileNotFoundError):
        solvedgym.run(tmp_path / "nowhere.toml", out=tmp_path, progress=False)
    with pytest.raises(FileNotFoundError):
        solvedgym._solvedgym._run(str(tmp_path / "nowhere.toml"), str(tmp_path))


def test_progress_is_reported_and_a_raising_observer_stops(tmp_path):
    seen = []
    solvedgym._solvedgym._run(TINY_DICT, str(tmp_path / "a"), observer=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (48, 48)  # 2 conditions x 2 seeds x 12 episodes
    assert all(d <= t for d, t in seen)

    class Stop(Exception):
        pass

    def stop(done, total):
        raise Stop()

    # 20 million episodes (seconds of work): stopped at the first report, after 0.1 s.
    bigger = dict(TINY_DICT, episodes=5_000_000, eval_interval=5_000_000)
    with pytest.raises(Stop):
        solvedgym._solvedgym._run(bigger, str(tmp_path / "b"), observer=stop)
    assert not (tmp_path / "b" / "tiny-dict" / "summary.json").exists()


def test_ctrl_c_stops_a_study(tmp_path):
    import _thread
    import threading

    bigger = dict(TINY_DICT, episodes=5_000_000, eval_interval=5_000_000)
    timer = threading.Timer(0.3, _thread.interrupt_main)  # as Ctrl-C: SIGINT's flag
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solvedgym.run(bigger, out=tmp_path, progress=False)
    finally:
        timer.cancel()
    assert not (tmp_path / "tiny-dict" / "summary.json").exists()
    # The folder is free again: the next run (fresh) finishes.
    result = solvedgym.run(TINY_DICT, out=tmp_path, fresh=True, progress=False)
    assert (result.dir / "summary.json").is_file()


def test_without_tqdm_a_line_of_text(tmp_path, monkeypatch, capsys):
    import builtins

    from solvedgym import experiments

    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    monkeypatch.setattr(experiments, "_stderr_is_terminal", lambda: False)
    solvedgym.run(TINY_DICT, out=tmp_path, progress=True)
    assert "48/48 episodes (100%)" in capsys.readouterr().err
