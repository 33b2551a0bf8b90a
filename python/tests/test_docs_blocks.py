"""Every ```python block of README.md and docs/ runs against the installed package.

The conventions (docs/developers.md, "Commands in the docs"):

- A ```python block runs. The blocks of one page run in order in one namespace, as a reader
  types them into one session: a later block may use what an earlier one defined (`game`,
  `sol`). Each page starts with a fresh namespace.
- A ```python long block is shown, not run (a training loop of many seconds, a benchmark).
- Every page runs in one scratch folder holding copies of the repository's configs/,
  experiments/, docs/, assets/ and tests/data/, where the README's main job has run first
  (`notebooks-data/her-gardner/`, as a newcomer has it after the README's first command); a block
  may write anywhere in it, and nothing reaches the repository.
- A block fails the test with its page and line when it raises. A page whose blocks import a
  module that is not installed (pandas, polars, Gymnasium) is skipped, naming the module: CI
  installs every one (tests/run).

python/tests/test_docs_example.py also compares what two blocks print with the page."""

import contextlib
import io
import os
import shutil
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COPIED = ["configs", "experiments", "docs", "assets", "tests/data"]


def pages():
    """README.md and every Markdown file under docs/, sorted."""
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def blocks(text):
    """The fenced blocks of a Markdown text as (line of the first body line, info words, body):
    backtick fences of three or more, indented at most three spaces, closed by a fence at least
    as long (as tests/docs.rs reads them)."""
    out, fence, start, info, body = [], 0, 0, [], []
    for n, line in enumerate(text.splitlines(), start=1):
        trimmed = line.lstrip()
        ticks = len(trimmed) - len(trimmed.lstrip("`"))
        if not fence:
            if ticks >= 3 and len(line) - len(trimmed) <= 3:
                fence, start, info, body = ticks, n + 1, trimmed[ticks:].split(), []
        elif ticks >= fence and not trimmed[ticks:].strip():
            out.append((start, info, "\n".join(body) + "\n"))
            fence = 0
        else:
            body.append(line)
    if fence:
        out.append((start, info, "\n".join(body) + "\n"))
    return out


def python_blocks(text):
    """The ```python blocks of a text, each as (first body line, runs, code)."""
    return [
        (line, "long" not in info[1:], code)
        for line, info, code in blocks(text)
        if info and info[0] == "python"
    ]


def run_page(name, text):
    """Runs a page's python blocks in order in one namespace, in the current folder. A block
    that raises fails with `name:line`; its traceback names the page's own lines."""
    namespace = {"__name__": "__docs__"}
    for line, runs, code in python_blocks(text):
        if not runs:
            continue
        # Padded so that the traceback's line numbers are the page's.
        compiled = compile("\n" * (line - 1) + code, name, "exec")
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compiled, namespace)
        except ModuleNotFoundError as e:
            pytest.skip(f"{name}:{line} needs {e.name}, which is not installed")
        except Exception as e:
            raise AssertionError(
                f"{name}:{line}: the block raised {type(e).__name__}: {e}\n"
                f"what it printed:\n{out.getvalue()}"
            ) from e


@pytest.fixture(scope="session")
def scratch(tmp_path_factory):
    """The folder the blocks run in: copies of the repository's inputs, and the main job's
    outputs."""
    import solvedgym

    folder = tmp_path_factory.mktemp("docs")
    for name in COPIED:
        shutil.copytree(ROOT / name, folder / name)
    with _chdir(folder):
        solvedgym.run("experiments/her-gardner.toml", out="notebooks-data", progress=False)
    return folder


@contextlib.contextmanager
def _chdir(folder):
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


PAGES = [p for p in pages() if python_blocks(p.read_text())]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_python_block_of_the_page_runs(page, scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    run_page(str(page.relative_to(ROOT)), page.read_text())


def test_the_docs_have_python_blocks():
    assert len(PAGES) >= 3, PAGES


def test_blocks_are_read_as_documented():
    page = (
        "text\n"
        "```python\n"
        "x = 1\n"
        "```\n"
        "````text\n"
        "```python\n"
        "````\n"
        "```python long\n"
        "slow()\n"
        "```\n"
        "```sh\n"
        "solvedgym games\n"
        "```\n"
        "  ```python\n"
        "y = x + 1\n"
        "  ```\n"
    )
    assert python_blocks(page) == [(3, True, "x = 1\n"), (9, False, "slow()\n"), (15, True, "y = x + 1\n")]


def test_a_failing_block_is_seen_failing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # The second block sees the first one's names; the third fails at line 10 of the page.
    page = (
        "# a page\n"
        "```python\n"
        "import solvedgym\n"
        "game = solvedgym.make('tictactoe')\n"
        "```\n"
        "```python\n"
        "state = game.initial_state()\n"
        "```\n"
        "```python\n"
        "game.apply(state, 99)\n"
        "```\n"
    )
    with pytest.raises(AssertionError, match=r"page\.md:10: the block raised IllegalActionError") as e:
        run_page("page.md", page)
    frames = traceback.extract_tb(e.value.__cause__.__traceback__)
    assert any(f.lineno == 10 and f.filename == "page.md" for f in frames)
