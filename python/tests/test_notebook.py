"""The notebooks run: each is executed from a copy in a scratch folder, so that it cannot rot and
nothing is written into the repository."""

import shutil
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def needs(module):
    return pytest.importorskip(module, reason=f"the notebooks need {module} (pip install {module})")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_the_notebook_runs(notebook, tmp_path):
    nbformat = needs("nbformat")
    nbclient = needs("nbclient")
    for module in ["polars", "matplotlib", "gymnasium", "ipykernel"]:
        needs(module)
    nb = nbformat.read(notebook, as_version=4)
    # Stored outputs would go stale: the committed notebook has none.
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), (
        f"{notebook.name} has stored outputs: clear them before committing"
    )
    # The notebook writes to ../notebooks-data, as it would from notebooks/ in the repository.
    here = tmp_path / "notebooks"
    here.mkdir()
    shutil.copy(notebook, here)
    start = time.monotonic()
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(here)}}
    ).execute()
    seconds = time.monotonic() - start
    print(f"{notebook.name}: {seconds:.1f} s")
    assert (tmp_path / "notebooks-data").is_dir()
    assert seconds < 120, f"{notebook.name} took {seconds:.0f} s: keep it under two minutes"
