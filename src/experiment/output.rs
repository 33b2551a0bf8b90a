//! Experiment output on disk: the long-form learning-curve table ([`Curves`]) and its
//! Parquet/CSV serialisation (written atomically, through [`crate::io::files`]).

use std::collections::HashMap;
use std::fs;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::io::files::AtomicFile;
use crate::io::table::{Table, Text, Values};
#[cfg(feature = "polars")]
use polars::frame::chunk_df_for_writing;
#[cfg(feature = "polars")]
use polars::io::parquet::write::BatchedWriter as ParquetBatch;
#[cfg(feature = "polars")]
use polars::prelude::{
    ChunkFull, Column, DataFrame, IntoColumn, NewChunkedArray, ParquetCompression, ParquetWriter,
    StringChunked,
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
/// `run`, `game` and `config_hash` are the same for every row, so they are stored once and
/// only expanded into columns by [`Curves::to_dataframe`]; the learner, opponent and metric
/// names are stored once each and the rows hold their indices (a row costs 36 bytes, so a run
/// of a million seeds keeps its plotted curves in memory).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Curves {
    pub run: String,
    pub game: String,
    /// Hex string identifying the configuration that produced the rows.
    pub config_hash: String,
    /// Every learner, opponent and metric name the rows use, each once.
    names: Vec<String>,
    index: HashMap<String, u32>,
    learner: Vec<u32>,
    opponent: Vec<u32>,
    seed: Vec<u64>,
    episode: Vec<u64>,
    metric: Vec<u32>,
    value: Vec<f64>,
}

/// One row of [`Curves`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Row<'a> {
    pub learner: &'a str,
    pub opponent: &'a str,
    pub seed: u64,
    pub episode: u64,
    pub metric: &'a str,
    pub value: f64,
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

    /// An empty table with the same `run`, `game` and `config_hash`.
    pub fn empty_like(&self) -> Self {
        Self::new(&self.run, &self.game, &self.config_hash)
    }

    fn name(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).expect("fewer than 2^32 distinct names");
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
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
        let (l, o, m) = (self.name(learner), self.name(opponent), self.name(metric));
        self.learner.push(l);
        self.opponent.push(o);
        self.seed.push(seed);
        self.episode.push(episode);
        self.metric.push(m);
        self.value.push(value);
    }

    fn push_row(&mut self, r: Row) {
        self.push(r.learner, r.opponent, r.seed, r.episode, r.metric, r.value);
    }

    pub fn len(&self) -> usize {
        self.value.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> Row<'_> {
        Row {
            learner: &self.names[self.learner[i] as usize],
            opponent: &self.names[self.opponent[i] as usize],
            seed: self.seed[i],
            episode: self.episode[i],
            metric: &self.names[self.metric[i] as usize],
            value: self.value[i],
        }
    }

    /// The rows in order.
    pub fn rows(&self) -> impl Iterator<Item = Row<'_>> {
        (0..self.len()).map(|i| self.row(i))
    }

    /// The `value` column.
    pub fn values(&self) -> &[f64] {
        &self.value
    }

    /// Appends the rows of `other` after those of `self`.
    ///
    /// `run`, `game` and `config_hash` of `self` are kept; those of `other` are
    /// dropped, so only merge tables that belong to the same run.
    pub fn append(&mut self, other: &Curves) {
        self.append_where(other, |_| true);
    }

    /// Appends the rows of `other` whose metric `keep` takes.
    pub fn append_where(&mut self, other: &Curves, keep: impl Fn(&str) -> bool) {
        for r in other.rows().filter(|r| keep(r.metric)) {
            self.push_row(r);
        }
    }

    /// Distinct metric names in first-appearance order.
    pub fn metrics(&self) -> Vec<String> {
        let mut seen = vec![false; self.names.len()];
        let mut out = Vec::new();
        for &m in &self.metric {
            if !std::mem::replace(&mut seen[m as usize], true) {
                out.push(self.names[m as usize].clone());
            }
        }
        out
    }

    /// The table with the columns of [`COLUMNS`], in that order: strings, `seed`/`episode` as
    /// u64, `value` as f64.
    pub fn to_table(&self) -> Table {
        let n = self.len();
        let named = |codes: &[u32]| {
            Values::Text(Text::coded(
                self.names.clone(),
                codes.iter().map(|&c| Some(c)).collect(),
            ))
        };
        let columns = vec![
            Values::Text(Text::constant(&self.run, n)),
            Values::Text(Text::constant(&self.game, n)),
            named(&self.learner),
            named(&self.opponent),
            Values::U64(self.seed.clone()),
            Values::U64(self.episode.clone()),
            named(&self.metric),
            Values::F64(self.value.clone()),
            Values::Text(Text::constant(&self.config_hash, n)),
        ];
        Table {
            columns: COLUMNS.iter().map(|c| c.to_string()).zip(columns).collect(),
        }
    }

    /// Converts to a polars DataFrame with the columns of [`COLUMNS`], in that
    /// order: strings as `String`, `seed`/`episode` as `UInt64`, `value` as `Float64`.
    #[cfg(feature = "polars")]
    pub fn to_dataframe(&self) -> Result<DataFrame> {
        let n = self.len();
        let constant = |name: &str, v: &str| StringChunked::full(name.into(), v, n).into_column();
        let named = |name: &str, codes: &[u32]| {
            StringChunked::from_iter_values(
                name.into(),
                codes.iter().map(|&c| self.names[c as usize].as_str()),
            )
            .into_column()
        };
        let columns = vec![
            constant("run", &self.run),
            constant("game", &self.game),
            named("learner", &self.learner),
            named("opponent", &self.opponent),
            Column::new("seed".into(), self.seed.as_slice()),
            Column::new("episode".into(), self.episode.as_slice()),
            named("metric", &self.metric),
            Column::new("value".into(), self.value.as_slice()),
            constant("config_hash", &self.config_hash),
        ];
        DataFrame::new(n, columns).context("building the curves DataFrame")
    }
}

/// How many rows [`CurvesWriter`] gathers before it writes them: a table this long is about
/// 150 MB as a DataFrame. Any table up to this length is written in one batch, and so to the
/// byte as one `ParquetWriter::finish` writes it.
pub const BATCH_ROWS: usize = 1 << 20;

/// The row-group length polars' `ParquetWriter::finish` aims at.
#[cfg(feature = "polars")]
const ROW_GROUP: usize = 512 * 512;

/// Writes `curves.parquet` (zstd, with key-value metadata) and optionally `curves.csv` as rows
/// arrive, a batch of [`BATCH_ROWS`] at a time, so that the table of a long study is never
/// whole in memory. Each file is a temporary file until [`CurvesWriter::finish`] renames it:
/// a reader never sees half of one.
///
/// The Parquet file's Arrow schema is the oldest one polars writes (strings as `large_string`,
/// not `string_view`), so every current reader takes it: pyarrow before 15 refuses views
/// ("Unrecognized type: 24"). The pages are the same either way; only the schema differs.
///
/// In a build without polars the rows are kept (36 bytes a row) and `curves.parquet` is
/// written at [`CurvesWriter::finish`] by the registered codec ([`crate::io::parquet`]).
pub struct CurvesWriter {
    pending: Curves,
    batch_rows: usize,
    batches: usize,
    parquet: Parquet,
    csv: Option<(PathBuf, AtomicFile, BufWriter<File>)>,
}

#[cfg(feature = "polars")]
type Parquet = (PathBuf, AtomicFile, ParquetBatch<File>);
/// The file's path, its metadata and every row so far.
#[cfg(not(feature = "polars"))]
type Parquet = (PathBuf, Vec<(String, String)>, Curves);

impl CurvesWriter {
    /// Starts `curves.parquet` (and with `csv` `curves.csv`) in `dir`, creating `dir` if
    /// missing, for rows with the `run`, `game` and `config_hash` of `like`.
    pub fn create(
        dir: &Path,
        like: &Curves,
        metadata: &[(String, String)],
        csv: bool,
    ) -> Result<CurvesWriter> {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let pending = like.empty_like();
        let path = dir.join("curves.parquet");
        #[cfg(feature = "polars")]
        let parquet = {
            let schema = pending.to_dataframe()?.schema().clone();
            let file = AtomicFile::create(&path)?;
            let parquet = ParquetWriter::new(file.writer()?)
                .with_compression(ParquetCompression::Zstd(None))
                .with_key_value_metadata(Some(crate::io::parquet::key_value_metadata(
                    &schema, metadata,
                )))
                .batched(&schema)
                .with_context(|| format!("encoding {}", path.display()))?;
            (path, file, parquet)
        };
        #[cfg(not(feature = "polars"))]
        let parquet = (path, metadata.to_vec(), like.empty_like());
        let csv = match csv {
            false => None,
            true => {
                let path = dir.join("curves.csv");
                let file = AtomicFile::create(&path)?;
                let csv = BufWriter::with_capacity(1 << 20, file.writer()?);
                Some((path, file, csv))
            }
        };
        Ok(CurvesWriter {
            pending,
            batch_rows: BATCH_ROWS,
            batches: 0,
            parquet,
            csv,
        })
    }

    /// Adds the rows of `curves` (their `run`, `game` and `config_hash` are not read).
    pub fn append(&mut self, curves: &Curves) -> Result<()> {
        self.pending.append(curves);
        if self.pending.len() >= self.batch_rows {
            self.flush()?;
        }
        Ok(())
    }

    /// Batches of `rows` rows instead of [`BATCH_ROWS`] (for tests of the batched path).
    #[cfg(test)]
    fn with_batch_rows(mut self, rows: usize) -> Self {
        self.batch_rows = rows;
        self
    }

    fn flush(&mut self) -> Result<()> {
        if let Some((path, _, csv)) = &mut self.csv {
            self.pending
                .to_table()
                .write_csv(csv, self.batches == 0)
                .with_context(|| format!("encoding {}", path.display()))?;
        }
        #[cfg(feature = "polars")]
        {
            let mut df = self.pending.to_dataframe()?;
            // Row groups as `ParquetWriter::finish` cuts them.
            let chunked = chunk_df_for_writing(&mut df, ROW_GROUP)?;
            let (path, _, parquet) = &mut self.parquet;
            parquet
                .write_batch(&chunked)
                .with_context(|| format!("encoding {}", path.display()))?;
        }
        #[cfg(not(feature = "polars"))]
        self.parquet.2.append(&self.pending);
        self.pending = self.pending.empty_like();
        self.batches += 1;
        Ok(())
    }

    /// Writes what is left and puts the files in place; returns them.
    pub fn finish(mut self) -> Result<Vec<PathBuf>> {
        if !self.pending.is_empty() || self.batches == 0 {
            self.flush()?;
        }
        #[cfg(feature = "polars")]
        let path = {
            let (path, file, parquet) = self.parquet;
            parquet
                .finish()
                .with_context(|| format!("encoding {}", path.display()))?;
            drop(parquet);
            file.commit()?;
            path
        };
        #[cfg(not(feature = "polars"))]
        let path = {
            let (path, metadata, rows) = self.parquet;
            crate::io::parquet::write_table(&path, &rows.to_table(), &metadata)?;
            path
        };
        let mut written = vec![path];
        if let Some((path, file, mut csv)) = self.csv {
            csv.flush()
                .with_context(|| format!("encoding {}", path.display()))?;
            drop(csv);
            file.commit()?;
            written.push(path);
        }
        Ok(written)
    }
}

/// Writes `curves.parquet` (zstd, with `metadata` as its key-value metadata) into `dir`, and
/// with `csv` also `curves.csv`, creating `dir` if missing; returns the files written
/// (through [`CurvesWriter`]: atomically, and byte for byte the same for the same input; CSV
/// floats in the shortest form that parses back to the same `f64`).
pub fn write_curves(
    dir: &Path,
    curves: &Curves,
    metadata: &[(String, String)],
    csv: bool,
) -> Result<Vec<PathBuf>> {
    let mut writer = CurvesWriter::create(dir, curves, metadata, csv)?;
    writer.append(curves)?;
    writer.finish()
}

#[cfg(all(test, feature = "polars"))]
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
        a.append(&b);
        assert_eq!(a.len(), 3);
        assert_eq!(a.run, "r");
        let learners: Vec<&str> = a.rows().map(|r| r.learner).collect();
        assert_eq!(learners, ["l", "l2", "l2"]);
        let episodes: Vec<u64> = a.rows().map(|r| r.episode).collect();
        assert_eq!(episodes, [2, 4, 5]);
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
    fn rows_read_back_what_was_pushed() {
        let c = sample();
        let last = c.row(c.len() - 1);
        assert_eq!(
            (
                last.learner,
                last.opponent,
                last.seed,
                last.episode,
                last.metric
            ),
            ("mc, \"quoted\"", "random", 7, 5, "loss_rate")
        );
        assert_eq!(last.value, 1e-300);
        let mut kept = c.empty_like();
        kept.append_where(&c, |m| m == "draws");
        assert_eq!(kept.len(), 9);
        assert!(
            kept.rows()
                .all(|r| r.metric == "draws" && r.opponent == "random")
        );
        assert_eq!(kept.metrics(), ["draws"]);
    }

    /// A table written in many batches reads back as the one table, and its CSV is the same
    /// bytes as one batch's.
    #[test]
    fn batches_make_the_same_table() {
        let (one, many) = (scratch_dir("one-batch"), scratch_dir("many-batches"));
        let mut c = Curves::new("run-1", "tictactoe", "00ff3a");
        for seed in 0..40u64 {
            for episode in 0..25u64 {
                let metric = ["a", "b", "c"][(seed + episode) as usize % 3];
                c.push(
                    "q",
                    "random",
                    seed,
                    episode,
                    metric,
                    (seed * episode) as f64 / 7.0,
                );
            }
        }
        write_curves(&one, &c, &[], true).unwrap();
        let mut writer = CurvesWriter::create(&many, &c, &[], true)
            .unwrap()
            .with_batch_rows(64);
        // Unequal pieces: batches end wherever a piece pushes past 64 rows.
        let mut piece = c.empty_like();
        for (i, row) in c.rows().enumerate() {
            piece.push_row(row);
            if i % 37 == 36 {
                writer.append(&piece).unwrap();
                piece = c.empty_like();
            }
        }
        writer.append(&piece).unwrap();
        assert!(writer.batches >= 10, "{} batches", writer.batches);
        writer.finish().unwrap();
        assert_eq!(
            fs::read(one.join("curves.csv")).unwrap(),
            fs::read(many.join("curves.csv")).unwrap()
        );
        let read = |dir: &PathBuf| {
            ParquetReader::new(File::open(dir.join("curves.parquet")).unwrap())
                .finish()
                .unwrap()
        };
        assert!(read(&many).equals(&c.to_dataframe().unwrap()));
        assert!(read(&one).equals(&read(&many)));
        fs::remove_dir_all(&one).unwrap();
        fs::remove_dir_all(&many).unwrap();
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

    /// The key-value metadata reads back from Rust too (CI reads it with pyarrow as well),
    /// after the Arrow schema.
    #[test]
    fn parquet_metadata_reads_back() {
        let dir = scratch_dir("metadata");
        let metadata = [
            ("solvedgym.run".to_string(), "run-1".to_string()),
            (
                "solvedgym.config".to_string(),
                "name = \"x\"\nseeds = 3\n".to_string(),
            ),
        ];
        write_curves(&dir, &sample(), &metadata, false).unwrap();
        let mut file = File::open(dir.join("curves.parquet")).unwrap();
        let read = polars_parquet::read::read_metadata(&mut file).unwrap();
        let pairs: Vec<(String, Option<String>)> = read
            .key_value_metadata()
            .clone()
            .unwrap()
            .into_iter()
            .map(|kv| (kv.key, kv.value))
            .collect();
        assert_eq!(pairs[0].0, "ARROW:schema");
        assert_eq!(pairs.len(), 3);
        for ((k, v), (key, value)) in pairs[1..].iter().zip(&metadata) {
            assert_eq!((k, v.as_deref()), (key, Some(value.as_str())));
        }
        // (Whether the schema says `large_string` is read by pyarrow in CI: polars maps
        // every string type to its own view type when it reads.)
        assert!(pairs[0].1.as_ref().is_some_and(|v| !v.is_empty()));
        fs::remove_dir_all(&dir).unwrap();
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
