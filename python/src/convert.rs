//! Python values to Rust ones and back: TOML tables from dicts, JSON to Python objects,
//! lists of numbers and action numbers checked, and the library's errors as Python exceptions.

use super::*;

// Both named as members of `solvedgym` (which exports them), so that pickle finds them by
// `__module__` and `__qualname__`: an exception raised in a worker process (a Gymnasium or SB3
// vector environment's, multiprocessing's) travels back to the parent as itself, its message
// in `args`.
pyo3::create_exception!(
    solvedgym,
    IllegalActionError,
    PyValueError,
    "An action that is not legal where it was played (the message lists the legal ones)."
);
pyo3::create_exception!(
    solvedgym,
    ForeignStateError,
    PyValueError,
    "A state made by another game, or by the same game with other parameters."
);

/// The function of this module that makes an object again from what its `__reduce__` gave
/// pickle (`_restore_game`, ...): pickle names it by its module and name, which another process
/// imports.
pub(crate) fn restorer<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("solvedgym._solvedgym")?.getattr(name)
}

/// What a `__reduce__` returns: the function that makes the object again ([`restorer`]) and
/// its arguments.
pub(crate) type Reduced<'py, Args> = PyResult<(Bound<'py, PyAny>, Args)>;

/// A hash of a Rust value as Python's `__hash__` returns it.
pub(crate) fn py_hash(value: &impl std::hash::Hash) -> u64 {
    use std::hash::Hasher;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    value.hash(&mut h);
    // Python reserves -1 for errors; a u64 is folded to a non-negative Py_hash_t.
    h.finish() >> 2
}

pub(crate) fn to_py(e: FrontError) -> PyErr {
    // No Rust type names reach Python ("expected usize"): what a value must be, in words.
    let message = plain_words(&e.to_string());
    match e {
        FrontError::Illegal(_) | FrontError::IllegalIn { .. } => {
            IllegalActionError::new_err(message)
        }
        FrontError::ForeignState { .. } => ForeignStateError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// How deep lists and dicts given from Python may nest (TOML's own parser stops near this depth
/// too): deeper input is refused with its path before the conversion's recursion could exhaust
/// the stack.
pub(crate) const MAX_NESTING: usize = 64;

/// How much of a text given from Python a message quotes.
pub(crate) const QUOTED: usize = 100;

/// Python values turned into TOML values (the parameters' common language with configs and
/// flags), remembering the long texts among them: a message about them quotes only their start
/// ([`Conversion::quiet`]).
#[derive(Default)]
pub(crate) struct Conversion {
    pub(crate) long: Vec<String>,
}

impl Conversion {
    pub(crate) fn value(
        &mut self,
        value: &Bound<'_, PyAny>,
        at: &str,
        depth: usize,
    ) -> PyResult<toml::Value> {
        if value.is_instance_of::<PyBool>() {
            return Ok(toml::Value::Boolean(value.extract()?));
        }
        if value.is_instance_of::<PyInt>() {
            return self.integer(value, at);
        }
        if value.is_instance_of::<PyFloat>() {
            return Ok(toml::Value::Float(value.extract()?));
        }
        if value.is_instance_of::<PyString>() {
            let text: String = value.extract()?;
            self.remember(&text);
            return Ok(toml::Value::String(text));
        }
        let nested = value.is_instance_of::<PyList>()
            || value.is_instance_of::<PyTuple>()
            || value.is_instance_of::<PyDict>();
        if nested && depth >= MAX_NESTING {
            return Err(PyValueError::new_err(format!(
                "{}: lists and dicts nested more than {MAX_NESTING} levels deep (parameters and configs nest at most {MAX_NESTING})",
                abbreviated(at, 2 * QUOTED)
            )));
        }
        if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
            let mut out = Vec::new();
            for (i, item) in value.try_iter()?.enumerate() {
                out.push(self.value(&item?, &format!("{at}[{i}]"), depth + 1)?);
            }
            return Ok(toml::Value::Array(out));
        }
        if let Ok(dict) = value.cast::<PyDict>() {
            return Ok(toml::Value::Table(self.table(dict, at, depth + 1)?));
        }
        // numpy's integers (not Python ints) are integers too.
        if value.hasattr("__index__")?
            && let Ok(index) = value.call_method0("__index__")
        {
            return self.integer(&index, at);
        }
        Err(PyTypeError::new_err(format!(
            "{}: a {} is not a parameter value (use bool, int, float, str, list or dict)",
            abbreviated(at, 2 * QUOTED),
            value.get_type().name()?
        )))
    }

    pub(crate) fn integer(&mut self, value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
        match value.extract::<i64>() {
            Ok(i) => Ok(toml::Value::Integer(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{} = {}: out of range (a parameter is a whole number from -2^63 to 2^63-1)",
                abbreviated(at, 2 * QUOTED),
                shown(value)
            ))),
        }
    }

    pub(crate) fn table(
        &mut self,
        dict: &Bound<'_, PyDict>,
        at: &str,
        depth: usize,
    ) -> PyResult<toml::Table> {
        let mut table = toml::Table::new();
        for (k, v) in dict.iter() {
            let key: String = k.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "{}{}: names are strings, not {}",
                    abbreviated(at, 2 * QUOTED),
                    if at.is_empty() { "" } else { ":" },
                    shown(&k)
                ))
            })?;
            self.remember(&key);
            let short = abbreviated(&key, QUOTED);
            let path = if at.is_empty() {
                short
            } else {
                format!("{at}.{short}")
            };
            let value = self.value(&v, &path, depth)?;
            table.insert(key, value);
        }
        Ok(table)
    }

    pub(crate) fn remember(&mut self, text: &str) {
        // A few are enough to quiet a message (each is looked for in it).
        if text.chars().count() > QUOTED && self.long.len() < 16 {
            self.long.push(text.to_string());
        }
    }

    /// `message` with each long text it quotes abbreviated.
    pub(crate) fn quiet(&self, message: String) -> String {
        let mut message = message;
        for text in &self.long {
            message = quote_short(message, text, QUOTED);
        }
        message
    }
}

/// A Python value as a message shows it: its `repr`, at most [`QUOTED`] characters (an int of
/// a million digits has no `repr` at all: its size is said instead).
pub(crate) fn shown(value: &Bound<'_, PyAny>) -> String {
    match value.repr() {
        Ok(r) => abbreviated(&r.to_string_lossy(), QUOTED),
        Err(_) => match value
            .call_method0("bit_length")
            .and_then(|b| b.extract::<u64>())
        {
            Ok(bits) => format!("an integer of {bits} bits"),
            Err(_) => format!(
                "a {}",
                value
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ),
        },
    }
}

/// The keyword parameters of `make()` (or a config dict) as a TOML table.
pub(crate) fn to_table(dict: &Bound<'_, PyDict>) -> PyResult<(toml::Table, Conversion)> {
    let mut conversion = Conversion::default();
    let table = conversion.table(dict, "", 0)?;
    Ok((table, conversion))
}

/// A JSON value as a Python one.
pub(crate) fn from_json<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::IntoPyObjectExt;
    Ok(match value {
        serde_json::Value::Null => py.None().into_bound(py),
        serde_json::Value::Bool(b) => b.into_bound_py_any(py)?,
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (_, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        serde_json::Value::String(s) => s.into_bound_py_any(py)?,
        serde_json::Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(from_json(py, item)?)?;
            }
            list.into_any()
        }
        serde_json::Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, from_json(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// A list of whole numbers given from Python (`ids`, `seats`, `seeds`): a text is not one
/// (pyo3 would say "Can't extract `str` to `Vec`").
pub(crate) fn numbers(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: a list of whole numbers, not {}",
            shown(value)
        )));
    }
    value.extract::<Vec<u64>>()
}

/// [`numbers`] as indices (one beyond the platform's is out of every range there is).
pub(crate) fn indices(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    Ok(numbers(value, what)?
        .into_iter()
        .map(|x| usize::try_from(x).unwrap_or(usize::MAX))
        .collect())
}

/// An action given from Python to `game`: an integer (numpy integers included), never a bool or
/// float. One beyond 64 bits is refused here as out of range (the rules see the others, and
/// list the legal actions where one is not).
pub(crate) fn action_number(action: &Bound<'_, PyAny>, game: &DynGame) -> PyResult<i64> {
    let index = if action.is_exact_instance_of::<PyInt>() {
        // A Python int (not a bool): the common case.
        action.clone()
    } else if action.is_instance_of::<PyBool>() || action.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!(
            "an action is an integer, not {}",
            shown(action)
        )));
    } else {
        action.call_method0("__index__").map_err(|_| {
            PyTypeError::new_err(format!(
                "an action is an integer, not a {}",
                action
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?
    };
    index.extract::<i64>().map_err(|_| {
        PyValueError::new_err(format!(
            "action {} is out of range: the actions of {} are numbered 0 to {}",
            shown(&index),
            game.name(),
            game.num_distinct_actions().saturating_sub(1)
        ))
    })
}
