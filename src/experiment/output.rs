//! Experiment output on disk: the long-form learning-curve table ([`Curves`]) and its
//! Parquet/CSV serialisation (written atomically, through [`crate::io::files`]).

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::io::files::write_atomic;
use polars::prelude::{
    ChunkFull, Column, CompatLevel, CsvWriter, DataFrame, IntoColumn, KeyValueMetadata,
    ParquetCompression, ParquetWriter, SchemaExt, SerWriter, StringChunked,
};

/// Column order of the table, shared by the DataFrame, the CSV header and the Parquet schema.
pub const COLUMNS: [&str; 9] = [
    "run",
    "game",
    "learner",
    "opponent",
    "seed",
    "episode",
    "metric",
    "value",
    "config_hash",
];

/// Long-form learning curves: one row per measurement.
///
/// `run`, `game` and `config_hash` are the same for every row, so they are
/// stored once and only expanded into columns by [`Curves::to_dataframe`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curves {
    pub run: String,
    pub game: String,
    /// Hex string identifying the configuration that produced the rows.
    pub config_hash: String,
    pub learner: Vec<String>,
    pub opponent: Vec<String>,
    pub seed: Vec<u64>,
    pub episode: Vec<u64>,
    pub metric: Vec<String>,
    pub value: Vec<f64>,
}

impl Curves {
    pub fn new(run: &str, game: &str, config_hash: &str) -> Self {
        Self {
            run: run.to_owned(),
            game: game.to_owned(),
            config_hash: config_hash.to_owned(),
            ..Self::default()
        }
    }

    pub fn push(
        &mut self,
        learner: &str,
        opponent: &str,
        seed: u64,
        episode: u64,
        metric: &str,
        value: f64,
    ) {
        self.learner.push(learner.to_owned());
        self.opponent.push(opponent.to_owned());
        self.seed.push(seed);
        self.episode.push(episode);
        self.metric.push(metric.to_owned());
        self.value.push(value);
    }

    pub fn len(&self) -> usize {
        self.value.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the rows of `other` after those of `self`.
    ///
    /// `run`, `game` and `config_hash` of `self` are kept; those of `other` are
    /// dropped, so only merge tables that belong to the same run.
    pub fn append(&mut self, other: Curves) {
        self.learner.extend(other.learner);
        self.opponent.extend(other.opponent);
        self.seed.extend(other.seed);
        self.episode.extend(other.episode);
        self.metric.extend(other.metric);
        self.value.extend(other.value);
    }

    /// Distinct metric names in first-appearance order.
    pub fn metrics(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.metric
            .iter()
            .filter(|m| seen.insert(m.as_str()))
            .cloned()
            .collect()
    }

    /// Errors if the per-row columns differ in length, which the public
    /// fields allow; consumers that zip the columns would silently drop rows.
    pub(crate) fn ensure_rectangular(&self) -> Result<()> {
        let n = self.len();
        let lengths = [
            ("learner", self.learner.len()),
            ("opponent", self.opponent.len()),
            ("seed", self.seed.len()),
            ("episode", self.episode.len()),
            ("metric", self.metric.len()),
        ];
        if let Some((name, len)) = lengths.iter().find(|(_, len)| *len != n) {
            bail!("curves table is ragged: column {name} has {len} rows but value has {n}");
        }
        Ok(())
    }

    /// Converts to a polars DataFrame with the columns of [`COLUMNS`], in that
    /// order: strings as `String`, `seed`/`episode` as `UInt64`, `value` as `Float64`.
    pub fn to_dataframe(&self) -> Result<DataFrame> {
        self.ensure_rectangular()?;
        let n = self.len();
        let constant = |name: &str, v: &str| StringChunked::full(name.into(), v, n).into_column();
        let columns = vec![
            constant("run", &self.run),
            constant("game", &self.game),
            Column::new("learner".into(), self.learner.as_slice()),
            Column::new("opponent".into(), self.opponent.as_slice()),
            Column::new("seed".into(), self.seed.as_slice()),
            Column::new("episode".into(), self.episode.as_slice()),
            Column::new("metric".into(), self.metric.as_slice()),
            Column::new("value".into(), self.value.as_slice()),
            constant("config_hash", &self.config_hash),
        ];
        DataFrame::new(n, columns).context("building the curves DataFrame")
    }
}

/// Writes `curves.parquet` (zstd, with `metadata` as its key-value metadata) into `dir`, and
/// with `csv` also `curves.csv`, creating `dir` if missing; returns the files written.
///
/// Each file goes through [`write_atomic`], so a reader never sees a half-written
/// file. Identical input gives byte-identical files. CSV floats are written in
/// the shortest form that parses back to the same `f64`.
///
/// The Parquet file's Arrow schema is the oldest one polars writes (strings as `large_string`,
/// not `string_view`), so every current reader takes it: pyarrow before 15 refuses views
/// ("Unrecognized type: 24"). The pages are the same either way; only the schema differs.
pub fn write_curves(
    dir: &Path,
    curves: &Curves,
    metadata: &[(String, String)],
    csv: bool,
) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut df = curves.to_dataframe()?;

    // Serialised in memory first: curve tables are small, and it keeps the
    // temp-file-and-rename logic in one place.
    let parquet_path = dir.join("curves.parquet");
    let mut parquet = Vec::new();
    ParquetWriter::new(&mut parquet)
        .with_compression(ParquetCompression::Zstd(None))
        .with_key_value_metadata(Some(parquet_metadata(&df, metadata)))
        .finish(&mut df)
        .with_context(|| format!("encoding {}", parquet_path.display()))?;
    write_atomic(&parquet_path, &parquet)?;
    let mut written = vec![parquet_path];
    if !csv {
        return Ok(written);
    }

    let csv_path = dir.join("curves.csv");
    let mut csv = Vec::new();
    // No float precision or scientific override: polars then writes the
    // shortest representation that round-trips, which is what we want.
    CsvWriter::new(&mut csv)
        .include_header(true)
        .finish(&mut df)
        .with_context(|| format!("encoding {}", csv_path.display()))?;
    write_atomic(&csv_path, &csv)?;
    written.push(csv_path);
    Ok(written)
}

/// The Parquet file's key-value metadata: the Arrow schema at the oldest compatibility level
/// (polars writes its own, with string views, only where none is given), then `metadata`.
fn parquet_metadata(df: &DataFrame, metadata: &[(String, String)]) -> KeyValueMetadata {
    let arrow = df.schema().to_arrow(CompatLevel::oldest());
    let schema = polars_parquet::write::schema_to_metadata_key(&arrow);
    let mut pairs = vec![(schema.key, schema.value.unwrap_or_default())];
    pairs.extend(metadata.iter().cloned());
    KeyValueMetadata::from_static(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::{DataType, ParquetReader, SerReader};
    use std::fs::File;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// A fresh directory under the system temp dir; removed by the caller.
    fn scratch_dir(tag: &str) -> PathBuf {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "solvedgym-output-test-{tag}-{}-{n}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn sample() -> Curves {
        let mut c = Curves::new("run-1", "tictactoe", "00ff3a");
        for seed in 0..3u64 {
            for episode in [0u64, 100, 200] {
                c.push("q", "random", seed, episode, "loss_rate", 0.1 + 0.2);
                c.push(
                    "q",
                    "minimax",
                    seed,
                    episode,
                    "loss_rate",
                    1.0 / (episode as f64 + 3.0),
                );
                c.push(
                    "q",
                    "random",
                    seed,
                    episode,
                    "draws",
                    f64::from(seed as u32),
                );
            }
        }
        c.push("mc, \"quoted\"", "random", 7, 5, "loss_rate", 1e-300);
        c
    }

    #[test]
    fn push_len_append_metrics() {
        let mut a = Curves::new("r", "g", "h");
        assert!(a.is_empty());
        a.push("l", "o", 1, 2, "m1", 0.5);
        let mut b = Curves::new("other", "other", "other");
        b.push("l2", "o2", 3, 4, "m2", 1.5);
        b.push("l2", "o2", 3, 5, "m1", 2.5);
        a.append(b);
        assert_eq!(a.len(), 3);
        assert_eq!(a.run, "r");
        assert_eq!(a.learner, ["l", "l2", "l2"]);
        assert_eq!(a.episode, [2, 4, 5]);
        assert_eq!(a.metrics(), ["m1", "m2"]);
    }

    #[test]
    fn dataframe_columns_and_dtypes() {
        let c = sample();
        let df = c.to_dataframe().unwrap();
        assert_eq!(df.height(), c.len());
        let names: Vec<&str> = df.get_column_names().iter().map(|s| s.as_str()).collect();
        assert_eq!(names, COLUMNS);
        let dtypes = df.dtypes();
        assert_eq!(dtypes[0], DataType::String);
        assert_eq!(dtypes[4], DataType::UInt64);
        assert_eq!(dtypes[5], DataType::UInt64);
        assert_eq!(dtypes[7], DataType::Float64);
        assert_eq!(dtypes[8], DataType::String);
    }

    #[test]
    fn ragged_table_is_an_error() {
        let mut c = sample();
        c.seed.pop();
        let err = c.to_dataframe().unwrap_err().to_string();
        assert!(err.contains("ragged"), "{err}");
    }

    #[test]
    fn write_curves_csv_and_parquet() {
        let dir = scratch_dir("write");
        let c = sample();
        write_curves(&dir, &c, &[], true).unwrap();

        let csv = fs::read_to_string(dir.join("curves.csv")).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[0],
            "run,game,learner,opponent,seed,episode,metric,value,config_hash"
        );
        assert_eq!(lines.len(), c.len() + 1);
        // 0.1 + 0.2 is 0.30000000000000004: any truncation would show here.
        let first: Vec<&str> = lines[1].split(',').collect();
        assert_eq!(
            first[..7],
            ["run-1", "tictactoe", "q", "random", "0", "0", "loss_rate"]
        );
        assert_eq!(first[7].parse::<f64>().unwrap(), 0.1 + 0.2);
        assert_eq!(first[8], "00ff3a");
        let last = lines.last().unwrap();
        assert!(
            last.starts_with("run-1,tictactoe,\"mc, \"\"quoted\"\"\",random,7,5,"),
            "{last}"
        );
        let tiny = last.rsplit(',').nth(1).unwrap();
        assert_eq!(tiny.parse::<f64>().unwrap(), 1e-300);

        let file = File::open(dir.join("curves.parquet")).unwrap();
        let df = ParquetReader::new(file).finish().unwrap();
        let expected = c.to_dataframe().unwrap();
        assert_eq!(df.height(), c.len());
        assert_eq!(df.get_column_names(), expected.get_column_names());
        assert!(df.equals(&expected));

        // No temp files left behind.
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["curves.csv", "curves.parquet"]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_curves_is_byte_deterministic() {
        let (d1, d2) = (scratch_dir("det-a"), scratch_dir("det-b"));
        let c = sample();
        write_curves(&d1, &c, &[], true).unwrap();
        write_curves(&d2, &c, &[], true).unwrap();
        for name in ["curves.csv", "curves.parquet"] {
            let a = fs::read(d1.join(name)).unwrap();
            // Overwriting in place must also reproduce the same bytes.
            write_curves(&d1, &c, &[], true).unwrap();
            let a2 = fs::read(d1.join(name)).unwrap();
            let b = fs::read(d2.join(name)).unwrap();
            assert!(!a.is_empty());
            assert!(a == b && a == a2, "{name} differs between writes");
        }
        fs::remove_dir_all(&d1).unwrap();
        fs::remove_dir_all(&d2).unwrap();
    }

    #[test]
    fn empty_curves_write_header_only() {
        let dir = scratch_dir("empty");
        write_curves(&dir, &Curves::new("r", "g", "h"), &[], true).unwrap();
        let csv = fs::read_to_string(dir.join("curves.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1);
        let df = ParquetReader::new(File::open(dir.join("curves.parquet")).unwrap())
            .finish()
            .unwrap();
        assert_eq!(df.height(), 0);
        assert_eq!(df.width(), COLUMNS.len());
        fs::remove_dir_all(&dir).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn csv_floats_round_trip(values in proptest::collection::vec(proptest::num::f64::ANY, 1..20)) {
            let dir = scratch_dir("prop");
            let mut c = Curves::new("r", "g", "h");
            for (i, &v) in values.iter().enumerate() {
                c.push("l", "o", 0, i as u64, "m", v);
            }
            write_curves(&dir, &c, &[], true).unwrap();
            let csv = fs::read_to_string(dir.join("curves.csv")).unwrap();
            fs::remove_dir_all(&dir).unwrap();
            for (line, &v) in csv.lines().skip(1).zip(&values) {
                let field = line.split(',').nth(7).unwrap();
                let parsed: f64 = field.parse().unwrap();
                proptest::prop_assert!(
                    parsed.to_bits() == v.to_bits() || (v.is_nan() && parsed.is_nan()),
                    "{v:?} written as {field:?}"
                );
            }
        }
    }
}
