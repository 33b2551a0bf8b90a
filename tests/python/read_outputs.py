"""Reads a freshly written curves.parquet with pyarrow, pandas and polars, as a notebook would,
and checks it against the curves.csv of the same run: the columns, their order, the row count,
the values, and the key-value metadata that says what made the file.

    python tests/python/read_outputs.py RUN_DIR

RUN_DIR is a `solvedgym run CONFIG --csv` output folder (holding curves.parquet and curves.csv).
Exits 1 with the reason on the first check that fails. CI runs it (.ci/run) in a virtual
environment with the oldest pyarrow that failed on string views (14) and the current pandas and
polars.
"""

import json
import sys
from pathlib import Path

COLUMNS = ["run", "game", "learner", "opponent", "seed", "episode", "metric", "value",
           "config_hash"]
KEYS = ["solvedgym.run", "solvedgym.game", "solvedgym.game_params", "solvedgym.config_hash",
        "solvedgym.version", "solvedgym.commit", "solvedgym.config"]


def fail(message):
    print(f"read_outputs.py: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: read_outputs.py RUN_DIR")
    run = Path(sys.argv[1])
    parquet, csv = run / "curves.parquet", run / "curves.csv"

    import pyarrow
    import pyarrow.parquet as pq
    import pandas as pd
    import polars as pl

    # pyarrow: the reader that refused string views ("Unrecognized type: 24") before 15.
    table = pq.read_table(parquet)
    if table.column_names != COLUMNS:
        fail(f"pyarrow {pyarrow.__version__}: columns {table.column_names}")
    for name in ["run", "game", "learner", "opponent", "metric", "config_hash"]:
        t = table.schema.field(name).type
        if not (pyarrow.types.is_string(t) or pyarrow.types.is_large_string(t)):
            fail(f"pyarrow: column {name} is {t}, not a string")
    raw = pq.read_metadata(parquet).metadata or {}
    metadata = {k.decode(): v.decode() for k, v in raw.items()}
    missing = [k for k in KEYS if k not in metadata]
    if missing:
        fail(f"pyarrow: key-value metadata lacks {missing}")
    json.loads(metadata["solvedgym.game_params"])
    if metadata["solvedgym.config_hash"] != table.column("config_hash")[0].as_py():
        fail("the metadata's config hash is not the rows'")

    # pandas (through pyarrow) and polars, against the CSV of the same run.
    frame = pd.read_parquet(parquet)
    text = pd.read_csv(csv, dtype={"config_hash": str}, float_precision="round_trip")
    if list(frame.columns) != COLUMNS or list(text.columns) != COLUMNS:
        fail(f"pandas: columns {list(frame.columns)} / csv {list(text.columns)}")
    if len(frame) != len(text) or len(frame) != table.num_rows or len(frame) == 0:
        fail(f"rows: parquet {len(frame)}, pyarrow {table.num_rows}, csv {len(text)}")
    pd.testing.assert_frame_equal(
        frame.reset_index(drop=True), text.reset_index(drop=True),
        check_dtype=False, check_exact=True)

    df = pl.read_parquet(parquet)
    if df.columns != COLUMNS or df.height != len(text):
        fail(f"polars: columns {df.columns}, {df.height} rows")
    if df.schema["seed"] != pl.UInt64 or df.schema["value"] != pl.Float64:
        fail(f"polars: types {df.schema}")
    if not df.equals(pl.read_csv(csv, schema=df.schema)):
        fail("polars: the parquet and the csv differ")

    print(f"read_outputs.py: {run}: {df.height} rows read alike by pyarrow "
          f"{pyarrow.__version__}, pandas {pd.__version__} and polars {pl.__version__}")


if __name__ == "__main__":
    main()
