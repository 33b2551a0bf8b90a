//! The package's Parquet: the library is built without polars (`default-features = false`, so
//! that `pip install` compiles no polars), and the files of runs and saved agents are written and
//! read by pyarrow through this codec, registered when the module loads. The files are the
//! command line's in content and format (zstd; strings as `large_string`, the header in the
//! key-value metadata); their bytes are pyarrow's.

use std::path::Path;

use anyhow::{Result, anyhow};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use solvedgym::front::parquet::{Codec, Table, Text, Values};

/// pyarrow as the library's Parquet codec.
pub struct Pyarrow;

/// Registers [`Pyarrow`] as the library's codec.
pub fn register() {
    solvedgym::front::parquet::set_codec(Box::new(Pyarrow));
}

/// pyarrow's modules, or an error that says how to install it.
fn pyarrow(py: Python<'_>) -> PyResult<(Bound<'_, PyModule>, Bound<'_, PyModule>)> {
    let missing = |e: PyErr| {
        pyo3::exceptions::PyImportError::new_err(format!(
            "solvedgym writes and reads Parquet files (curves, saved agents) with pyarrow: \
             pip install pyarrow ({e})"
        ))
    };
    Ok((
        py.import("pyarrow").map_err(missing)?,
        py.import("pyarrow.parquet").map_err(missing)?,
    ))
}

/// A Python error as the library's, its message kept.
fn from_py(py: Python<'_>, e: PyErr) -> anyhow::Error {
    let text = e
        .value(py)
        .str()
        .map(|s| s.to_string())
        .unwrap_or_else(|_| e.to_string());
    anyhow!("{text}")
}

impl Codec for Pyarrow {
    fn write(&self, path: &Path, table: &Table, metadata: &[(String, String)]) -> Result<()> {
        Python::attach(|py| write(py, path, table, metadata).map_err(|e| from_py(py, e)))
    }

    fn read(&self, path: &Path) -> Result<Table> {
        Python::attach(|py| read(py, path).map_err(|e| from_py(py, e)))
    }

    fn read_metadata(&self, path: &Path) -> Result<Vec<(String, String)>> {
        Python::attach(|py| read_metadata(py, path).map_err(|e| from_py(py, e)))
    }
}

fn write(
    py: Python<'_>,
    path: &Path,
    table: &Table,
    metadata: &[(String, String)],
) -> PyResult<()> {
    let (pa, pq) = pyarrow(py)?;
    let arrays = PyList::empty(py);
    let names = PyList::empty(py);
    for (name, values) in &table.columns {
        names.append(name)?;
        arrays.append(array(py, &pa, values)?)?;
    }
    let meta = PyDict::new(py);
    for (k, v) in metadata {
        meta.set_item(k, v)?;
    }
    let kwargs = PyDict::new(py);
    kwargs.set_item("names", names)?;
    kwargs.set_item("metadata", meta)?;
    let table = pa
        .getattr("Table")?
        .call_method("from_arrays", (arrays,), Some(&kwargs))?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("compression", "zstd")?;
    pq.call_method("write_table", (table, path), Some(&kwargs))?;
    Ok(())
}

/// A column as a pyarrow array: strings as `large_string`, nulls where the table has them.
fn array<'py>(
    py: Python<'py>,
    pa: &Bound<'py, PyModule>,
    values: &Values,
) -> PyResult<Bound<'py, PyAny>> {
    let typed = |data: Bound<'py, PyAny>, ty: &str, mask: Option<Vec<bool>>| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("type", pa.call_method0(ty)?)?;
        if let Some(mask) = mask {
            kwargs.set_item("mask", PyArray1::from_vec(py, mask))?;
        }
        pa.call_method("array", (data,), Some(&kwargs))
    };
    match values {
        Values::Text(t) => {
            let (names, codes) = t.parts();
            let dictionary = typed(PyList::new(py, names)?.into_any(), "large_string", None)?;
            let indices = typed(
                PyArray1::from_vec(py, codes.iter().map(|c| c.unwrap_or(0) as i32).collect())
                    .into_any(),
                "int32",
                Some(codes.iter().map(Option::is_none).collect()),
            )?;
            pa.getattr("DictionaryArray")?
                .call_method1("from_arrays", (indices, dictionary))?
                .call_method0("dictionary_decode")
        }
        Values::U32(v) => typed(
            PyArray1::from_vec(py, v.iter().map(|x| x.unwrap_or(0)).collect()).into_any(),
            "uint32",
            Some(v.iter().map(Option::is_none).collect()),
        ),
        Values::U64(v) => typed(PyArray1::from_slice(py, v).into_any(), "uint64", None),
        Values::F64(v) => typed(PyArray1::from_slice(py, v).into_any(), "float64", None),
    }
}

fn read(py: Python<'_>, path: &Path) -> PyResult<Table> {
    let (pa, pq) = pyarrow(py)?;
    let types = pa.getattr("types")?;
    let is = |ty: &str, t: &Bound<'_, PyAny>| -> PyResult<bool> {
        types.call_method1(ty, (t,))?.extract()
    };
    let table = pq.call_method1("read_table", (path,))?;
    let schema = table.getattr("schema")?;
    let mut columns = Vec::new();
    for i in 0..table.getattr("num_columns")?.extract::<usize>()? {
        let field = schema.call_method1("field", (i,))?;
        let name: String = field.getattr("name")?.extract()?;
        let ty = field.getattr("type")?;
        let column = table.call_method1("column", (i,))?;
        let nulls: usize = column.getattr("null_count")?.extract()?;
        let numbers = |fill: i32| -> PyResult<Bound<'_, PyAny>> {
            column
                .call_method1("fill_null", (fill,))?
                .call_method0("to_numpy")
        };
        let mask = || -> PyResult<Vec<bool>> {
            let mask = column.call_method0("is_null")?.call_method0("to_numpy")?;
            Ok(mask
                .extract::<PyReadonlyArray1<bool>>()?
                .as_array()
                .to_vec())
        };
        let no_nulls = |what: &str| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "column `{name}` ({what}) has {nulls} nulls"
            ))
        };
        let values = if is("is_string", &ty)? || is("is_large_string", &ty)? {
            let coded = column
                .call_method0("combine_chunks")?
                .call_method0("dictionary_encode")?;
            let names: Vec<String> = coded
                .getattr("dictionary")?
                .call_method0("to_pylist")?
                .extract()?;
            let indices = coded
                .getattr("indices")?
                .call_method1("fill_null", (-1,))?
                .call_method0("to_numpy")?;
            let codes = indices
                .call_method1("astype", ("int64",))?
                .extract::<PyReadonlyArray1<i64>>()?
                .as_array()
                .iter()
                .map(|&c| u32::try_from(c).ok())
                .collect();
            Values::Text(Text::coded(names, codes))
        } else if is("is_uint32", &ty)? {
            let v = numbers(0)?.extract::<PyReadonlyArray1<u32>>()?;
            let mask = mask()?;
            Values::U32(
                v.as_array()
                    .iter()
                    .zip(mask)
                    .map(|(&x, null)| (!null).then_some(x))
                    .collect(),
            )
        } else if is("is_uint64", &ty)? {
            if nulls > 0 {
                return Err(no_nulls("u64"));
            }
            Values::U64(numbers(0)?.extract::<PyReadonlyArray1<u64>>()?.to_vec()?)
        } else if is("is_float64", &ty)? {
            if nulls > 0 {
                return Err(no_nulls("f64"));
            }
            Values::F64(numbers(0)?.extract::<PyReadonlyArray1<f64>>()?.to_vec()?)
        } else {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "column `{name}` is of type {}, which no table here holds",
                ty.str()?
            )));
        };
        columns.push((name, values));
    }
    Table::new(columns).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

fn read_metadata(py: Python<'_>, path: &Path) -> PyResult<Vec<(String, String)>> {
    let (_, pq) = pyarrow(py)?;
    let metadata = pq
        .call_method1("read_metadata", (path,))?
        .getattr("metadata")?;
    if metadata.is_none() {
        return Ok(Vec::new());
    }
    let mut pairs = Vec::new();
    for (k, v) in metadata.cast::<PyDict>()?.iter() {
        let text = |b: Bound<'_, PyAny>| -> PyResult<String> {
            Ok(String::from_utf8_lossy(b.cast::<PyBytes>()?.as_bytes()).into_owned())
        };
        pairs.push((text(k)?, text(v)?));
    }
    Ok(pairs)
}
