//! `solvedgym._solvedgym`: the Python extension module. A thin layer: every answer comes from
//! the library's [`solvedgym::front`] (the rules, their checks and their errors), and these files
//! only turn Python values into Rust ones and errors into Python exceptions, so that no input
//! from Python reaches a panic. One file per object, as `front/` holds them: [`convert`] (values
//! and errors), [`game`] (`Game`, `State`, `games()`, `make()`, `value()`), [`solution`],
//! [`players`] (`Computer`, `Agent`, `load_agent()`), [`vector`] (`VectorCore`), [`aec`]
//! (`AecBase`), [`run`] (`_run`) and [`parquet`] (pyarrow as the library's Parquet codec); this
//! file registers them.

mod aec;
mod convert;
mod game;
mod parquet;
mod players;
mod run;
mod solution;
mod vector;

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use solvedgym::front::{
    Autoreset, Batch, DynAec, DynAgent, DynGame, DynPlayer, DynSolution, DynState, DynVector,
    EpisodeRecord, ExternalPlayer, FrontError, Illegal, Opponent, OpponentSpec, Output,
    PolicyTable,
};
use solvedgym::front::{abbreviated, plain_words, quote_short};

use aec::*;
use convert::*;
use game::*;
use players::*;
use solution::*;
use vector::*;

#[pymodule]
fn _solvedgym(m: &Bound<'_, PyModule>) -> PyResult<()> {
    parquet::register();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(game::games, m)?)?;
    m.add_function(wrap_pyfunction!(game::make, m)?)?;
    m.add_function(wrap_pyfunction!(players::load_agent, m)?)?;
    m.add_function(wrap_pyfunction!(game::value, m)?)?;
    m.add_function(wrap_pyfunction!(run::_run, m)?)?;
    m.add_function(wrap_pyfunction!(game::_restore_game, m)?)?;
    m.add_function(wrap_pyfunction!(game::_restore_state, m)?)?;
    m.add_function(wrap_pyfunction!(solution::_restore_solution, m)?)?;
    m.add_function(wrap_pyfunction!(players::_restore_computer, m)?)?;
    m.add_function(wrap_pyfunction!(players::_restore_agent, m)?)?;
    m.add_function(wrap_pyfunction!(vector::_sb3_infos, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Computer>()?;
    m.add_class::<Agent>()?;
    m.add_class::<Solution>()?;
    m.add_class::<VectorCore>()?;
    m.add_class::<AecBase>()?;
    m.add(
        "IllegalActionError",
        m.py().get_type::<IllegalActionError>(),
    )?;
    m.add("ForeignStateError", m.py().get_type::<ForeignStateError>())?;
    Ok(())
}
