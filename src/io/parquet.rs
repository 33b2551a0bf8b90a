//! Parquet files every current reader takes (pyarrow 14 and later, pandas, polars, DuckDB, R's
//! arrow), with key-value metadata that says what made them: written atomically, zstd, the
//! Arrow schema at the oldest compatibility level (strings as `large_string`, not
//! `string_view`, which pyarrow before 15 refuses: "Unrecognized type: 24"); read back with
//! their metadata.
//!
//! Polars encodes and decodes on a thread pool of its own. A worker of another rayon pool (a
//! study's runs) that enters it does not block: it keeps busy with its own pool's jobs while it
//! waits, each of which may enter polars again, so a study of a thousand runs that each save an
//! agent nested a thousand waits and overflowed its stack. Every call here is therefore made
//! from a plain thread when it comes from inside a rayon pool ([`outside_rayon`]).

use std::path::Path;

use anyhow::{Context, Result};
use polars::prelude::{
    CompatLevel, DataFrame, KeyValueMetadata, ParquetCompression, ParquetReader, ParquetWriter,
    Schema, SchemaExt, SerReader,
};

use crate::io::files::AtomicFile;

/// The Parquet file's key-value metadata: the Arrow schema at the oldest compatibility level
/// (polars writes its own, with string views, only where none is given), then `metadata`.
pub fn key_value_metadata(schema: &Schema, metadata: &[(String, String)]) -> KeyValueMetadata {
    let arrow = schema.to_arrow(CompatLevel::oldest());
    let schema = polars_parquet::write::schema_to_metadata_key(&arrow);
    let mut pairs = vec![(schema.key, schema.value.unwrap_or_default())];
    pairs.extend(metadata.iter().cloned());
    KeyValueMetadata::from_static(pairs)
}

/// Writes `df` to `path` (zstd, `metadata` after the Arrow schema), atomically: a reader sees
/// the whole file or none.
pub fn write_frame(path: &Path, df: &mut DataFrame, metadata: &[(String, String)]) -> Result<()> {
    outside_rayon(|| write_frame_here(path, df, metadata))
}

fn write_frame_here(path: &Path, df: &mut DataFrame, metadata: &[(String, String)]) -> Result<()> {
    let file = AtomicFile::create(path)?;
    let schema = df.schema().clone();
    ParquetWriter::new(file.writer()?)
        .with_compression(ParquetCompression::Zstd(None))
        .with_key_value_metadata(Some(key_value_metadata(&schema, metadata)))
        .finish(df)
        .with_context(|| format!("encoding {}", path.display()))?;
    file.commit()
}

/// The key-value metadata of the Parquet file at `path` (the Arrow schema first), without
/// reading its rows; an error says the file is not Parquet.
pub fn read_metadata(path: &Path) -> Result<Vec<(String, String)>> {
    let mut file = crate::io::files::open_regular(path)?;
    let read = polars_parquet::read::read_metadata(&mut file)
        .with_context(|| format!("{}: not a Parquet file", path.display()))?;
    Ok(read
        .key_value_metadata()
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|kv| (kv.key, kv.value.unwrap_or_default()))
        .collect())
}

/// The rows of the Parquet file at `path`.
pub fn read_frame(path: &Path) -> Result<DataFrame> {
    outside_rayon(|| read_frame_here(path))
}

fn read_frame_here(path: &Path) -> Result<DataFrame> {
    let file = crate::io::files::open_regular(path)?;
    ParquetReader::new(file)
        .finish()
        .with_context(|| format!("reading {}", path.display()))
}

/// Runs `work` where a wait for another thread pool blocks: on this thread if it is no rayon
/// worker, else on a scoped thread of its own that this worker waits for (a plain join, which
/// runs none of its pool's jobs meanwhile). The extra thread costs tens of microseconds, little
/// beside a Parquet file.
pub fn outside_rayon<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if rayon::current_thread_index().is_none() {
        return work();
    }
    std::thread::scope(|scope| match scope.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use polars::prelude::{Column, IntoColumn, NewChunkedArray, StringChunked};

    #[test]
    fn a_frame_and_its_metadata_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut df = DataFrame::new(
            2,
            vec![
                StringChunked::from_iter_values("s".into(), ["a", "b"].into_iter()).into_column(),
                Column::new("x".into(), &[1.5f64, -0.0]),
            ],
        )
        .unwrap();
        let meta = vec![("k".to_string(), "{\"v\": 1}".to_string())];
        write_frame(&path, &mut df, &meta).unwrap();
        let read = read_metadata(&path).unwrap();
        assert_eq!(read[0].0, "ARROW:schema");
        assert_eq!(&read[1..], &meta[..]);
        let back = read_frame(&path).unwrap();
        assert_eq!(back.height(), 2);
        let x: Vec<f64> = back
            .column("x")
            .unwrap()
            .f64()
            .unwrap()
            .into_no_null_iter()
            .collect();
        assert_eq!(x[1].to_bits(), (-0.0f64).to_bits());
        std::fs::write(&path, b"not parquet").unwrap();
        let e = read_metadata(&path).unwrap_err();
        assert!(format!("{e:#}").contains("not a Parquet file"), "{e:#}");
    }
}
