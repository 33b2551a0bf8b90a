"""docs/python.md's worked example runs and prints what the page says it prints: the block
under "A worked example" is executed, and its output compared with the `text` block after it
(each number to 0.002: a float64 network on another machine's BLAS may round otherwise)."""

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"[-+]?\d+\.\d+")


def example():
    text = (ROOT / "docs" / "python.md").read_text()
    section = text[text.index("### A worked example") :]
    code = section[section.index("```python") :]  # marked `long`: test_docs_blocks.py leaves it
    code = code[code.index("\n") + 1 :]
    code = code[: code.index("```")]
    shown = section[section.index("```text\n") + len("```text\n") :]
    return code, shown[: shown.index("```")]


def test_the_worked_example_prints_what_the_page_says():
    pytest.importorskip("gymnasium")
    code, shown = example()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md (worked example)", "exec"), {"__name__": "example"})
    printed = out.getvalue()
    # The same words, the same numbers.
    assert NUMBER.sub("#", printed) == NUMBER.sub("#", shown), printed
    for got, want in zip(NUMBER.findall(printed), NUMBER.findall(shown)):
        assert abs(float(got) - float(want)) <= 0.002, (got, want, printed)


def quick_start():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## From Python") :]
    code = section[section.index("```python\n") + len("```python\n") :]
    shown = section[section.index("```text\n") + len("```text\n") :]
    return code[: code.index("```")], shown[: shown.index("```")]


def test_the_readme_python_quick_start_prints_what_the_readme_says():
    code, shown = quick_start()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (from Python)", "exec"), {"__name__": "quick_start"})
    assert out.getvalue() == shown, out.getvalue()
