//! Parquet files every current reader takes (pyarrow 14 and later, pandas, polars, DuckDB, R's
//! arrow), with key-value metadata that says what made them: written atomically, zstd, the
//! Arrow schema at the oldest compatibility level (strings as `large_string`, not
//! `string_view`, which pyarrow before 15 refuses: "Unrecognized type: 24"); read back with
//! their metadata. Tables cross this edge as [`Table`]s.
//!
//! Who encodes: with the `polars` feature (the command line's build), polars; without it, the
//! [`Codec`] the host registered with [`set_codec`] (the Python package registers one that calls
//! pyarrow, so that its build compiles no polars); with neither, every call says so.
//!
//! Polars encodes and decodes on a thread pool of its own. A worker of another rayon pool (a
//! study's runs) that enters it does not block: it keeps busy with its own pool's jobs while it
//! waits, each of which may enter polars again, so a study of a thousand runs that each save an
//! agent nested a thousand waits and overflowed its stack. Every call here is therefore made
//! from a plain thread when it comes from inside a rayon pool ([`outside_rayon`]).

use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, Result};

use crate::io::table::Table;

/// Writes and reads Parquet files for a build without polars.
pub trait Codec: Send + Sync {
    /// Writes `table` to `path` (a new file in an existing folder), zstd, its Arrow schema with
    /// strings as `large_string`, `metadata` in the file's key-value metadata.
    fn write(&self, path: &Path, table: &Table, metadata: &[(String, String)]) -> Result<()>;
    /// The rows of the Parquet file at `path`.
    fn read(&self, path: &Path) -> Result<Table>;
    /// The file's key-value metadata, without reading its rows; an error when it is no Parquet.
    fn read_metadata(&self, path: &Path) -> Result<Vec<(String, String)>>;
}

static CODEC: OnceLock<Box<dyn Codec>> = OnceLock::new();

/// Registers the codec of a build without polars (the first registration stays).
pub fn set_codec(codec: Box<dyn Codec>) {
    let _ = CODEC.set(codec);
}

#[cfg(not(feature = "polars"))]
fn codec() -> Result<&'static dyn Codec> {
    match CODEC.get() {
        Some(c) => Ok(c.as_ref()),
        None => anyhow::bail!(
            "this build of solvedgym writes and reads no Parquet: it was built without the \
             `polars` feature and its host registered no codec"
        ),
    }
}

/// Writes `table` to `path` (zstd, `metadata` after the Arrow schema), atomically: a reader sees
/// the whole file or none.
pub fn write_table(path: &Path, table: &Table, metadata: &[(String, String)]) -> Result<()> {
    #[cfg(feature = "polars")]
    {
        let _ = &CODEC;
        let mut df = polars_frames::to_frame(table)?;
        write_frame(path, &mut df, metadata)
    }
    #[cfg(not(feature = "polars"))]
    {
        let codec = codec()?;
        let file = crate::io::files::AtomicFile::create(path)?;
        codec
            .write(file.temporary(), table, metadata)
            .with_context(|| format!("encoding {}", path.display()))?;
        file.commit()
    }
}

/// The rows of the Parquet file at `path`.
pub fn read_table(path: &Path) -> Result<Table> {
    #[cfg(feature = "polars")]
    {
        polars_frames::from_frame(&read_frame(path)?)
            .with_context(|| format!("reading {}", path.display()))
    }
    #[cfg(not(feature = "polars"))]
    {
        // A link, a folder or a pipe is refused before the codec opens it.
        crate::io::files::open_regular(path)?;
        codec()?
            .read(path)
            .with_context(|| format!("reading {}", path.display()))
    }
}

/// The key-value metadata of the Parquet file at `path` (the Arrow schema first where the
/// writer put one), without reading its rows; an error says the file is not Parquet.
pub fn read_metadata(path: &Path) -> Result<Vec<(String, String)>> {
    #[cfg(feature = "polars")]
    {
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
    #[cfg(not(feature = "polars"))]
    {
        crate::io::files::open_regular(path)?;
        codec()?
            .read_metadata(path)
            .with_context(|| format!("{}: not a Parquet file", path.display()))
    }
}

#[cfg(feature = "polars")]
pub use polars_frames::{key_value_metadata, read_frame, write_frame};

/// Polars' side: frames to files and back, and [`Table`]s to frames and back.
#[cfg(feature = "polars")]
mod polars_frames {
    use std::path::Path;

    use anyhow::{Context, Result, bail};
    use polars::prelude::{
        Column, CompatLevel, DataFrame, DataType, IntoColumn, KeyValueMetadata, NewChunkedArray,
        ParquetCompression, ParquetReader, ParquetWriter, Schema, SchemaExt, SerReader,
        StringChunkedBuilder, UInt32Chunked,
    };

    use super::outside_rayon;
    use crate::io::files::AtomicFile;
    use crate::io::table::{Table, Text, Values};

    /// The Parquet file's key-value metadata: the Arrow schema at the oldest compatibility level
    /// (polars writes its own, with string views, only where none is given), then `metadata`.
    pub fn key_value_metadata(schema: &Schema, metadata: &[(String, String)]) -> KeyValueMetadata {
        let arrow = schema.to_arrow(CompatLevel::oldest());
        let schema = polars_parquet::write::schema_to_metadata_key(&arrow);
        let mut pairs = vec![(schema.key, schema.value.unwrap_or_default())];
        pairs.extend(metadata.iter().cloned());
        KeyValueMetadata::from_static(pairs)
    }

    /// Writes `df` to `path` (zstd, `metadata` after the Arrow schema), atomically.
    pub fn write_frame(
        path: &Path,
        df: &mut DataFrame,
        metadata: &[(String, String)],
    ) -> Result<()> {
        outside_rayon(|| write_frame_here(path, df, metadata))
    }

    fn write_frame_here(
        path: &Path,
        df: &mut DataFrame,
        metadata: &[(String, String)],
    ) -> Result<()> {
        let file = AtomicFile::create(path)?;
        let schema = df.schema().clone();
        ParquetWriter::new(file.writer()?)
            .with_compression(ParquetCompression::Zstd(None))
            .with_key_value_metadata(Some(key_value_metadata(&schema, metadata)))
            .finish(df)
            .with_context(|| format!("encoding {}", path.display()))?;
        file.commit()
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

    /// `table` as a frame: strings as `String`, the integers and floats as their types.
    pub fn to_frame(table: &Table) -> Result<DataFrame> {
        let columns = table
            .columns
            .iter()
            .map(|(name, values)| match values {
                Values::Text(t) => {
                    let mut b = StringChunkedBuilder::new(name.as_str().into(), t.len());
                    for s in t.iter() {
                        b.append_option(s);
                    }
                    b.finish().into_column()
                }
                Values::U32(v) => {
                    UInt32Chunked::from_iter_options(name.as_str().into(), v.iter().copied())
                        .into_column()
                }
                Values::U64(v) => Column::new(name.as_str().into(), v.as_slice()),
                Values::F64(v) => Column::new(name.as_str().into(), v.as_slice()),
            })
            .collect();
        DataFrame::new(table.len(), columns).context("building a table")
    }

    /// `df` as a table (strings, u32, u64 and f64 columns; another type is refused by name).
    pub fn from_frame(df: &DataFrame) -> Result<Table> {
        let mut columns = Vec::with_capacity(df.width());
        for column in df.columns() {
            let name = column.name().to_string();
            let values = match column.dtype() {
                DataType::String => {
                    let mut t = Text::default();
                    for s in column.str()?.iter() {
                        t.push(s);
                    }
                    Values::Text(t)
                }
                DataType::UInt32 => Values::U32(column.u32()?.iter().collect()),
                DataType::UInt64 if column.null_count() == 0 => {
                    Values::U64(column.u64()?.into_no_null_iter().collect())
                }
                DataType::Float64 if column.null_count() == 0 => {
                    Values::F64(column.f64()?.into_no_null_iter().collect())
                }
                DataType::UInt64 | DataType::Float64 => {
                    bail!("column `{name}` has nulls, which its type holds none of here")
                }
                other => bail!("column `{name}` is of type {other}, which no table here holds"),
            };
            columns.push((name, values));
        }
        Table::new(columns)
    }
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

#[cfg(all(test, feature = "polars"))]
mod tests {
    use super::*;
    use crate::io::table::{Text, Values};

    #[test]
    fn a_table_and_its_metadata_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut s = Text::default();
        for v in [Some("a"), None] {
            s.push(v);
        }
        let table = Table::new(vec![
            ("s".into(), Values::Text(s)),
            ("n".into(), Values::U32(vec![None, Some(7)])),
            ("k".into(), Values::U64(vec![u64::MAX, 0])),
            ("x".into(), Values::F64(vec![1.5, -0.0])),
        ])
        .unwrap();
        let meta = vec![("k".to_string(), "{\"v\": 1}".to_string())];
        write_table(&path, &table, &meta).unwrap();
        let read = read_metadata(&path).unwrap();
        assert_eq!(read[0].0, "ARROW:schema");
        assert_eq!(&read[1..], &meta[..]);
        let back = read_table(&path).unwrap();
        assert_eq!(back, table);
        let Values::F64(x) = back.column("x").unwrap() else {
            panic!("x is f64")
        };
        assert_eq!(x[1].to_bits(), (-0.0f64).to_bits());
        std::fs::write(&path, b"not parquet").unwrap();
        let e = read_metadata(&path).unwrap_err();
        assert!(format!("{e:#}").contains("not a Parquet file"), "{e:#}");
    }
}
