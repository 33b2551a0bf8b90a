//! `solvedgym._solvedgym`: the Python extension module. A thin layer: every answer comes from
//! the library's [`solvedgym::front`] (the rules, their checks and their errors), and this file
//! only turns Python values into Rust ones and errors into Python exceptions, so that no input
//! from Python reaches a panic.

mod parquet;

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use solvedgym::front::{
    Batch, DynAgent, DynGame, DynPlayer, DynSolution, DynState, DynVector, FrontError, Illegal,
    Opponent, Output, PolicyTable,
};
use solvedgym::io::text::{abbreviated, plain_words, quote_short};

pyo3::create_exception!(
    _solvedgym,
    IllegalActionError,
    PyValueError,
    "An action that is not legal where it was played (the message lists the legal ones)."
);
pyo3::create_exception!(
    _solvedgym,
    ForeignStateError,
    PyValueError,
    "A state made by another game, or by the same game with other parameters."
);

fn to_py(e: FrontError) -> PyErr {
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
const MAX_NESTING: usize = 64;

/// How much of a text given from Python a message quotes.
const QUOTED: usize = 100;

/// Python values turned into TOML values (the parameters' common language with configs and
/// flags), remembering the long texts among them: a message about them quotes only their start
/// ([`Conversion::quiet`]).
#[derive(Default)]
struct Conversion {
    long: Vec<String>,
}

impl Conversion {
    fn value(&mut self, value: &Bound<'_, PyAny>, at: &str, depth: usize) -> PyResult<toml::Value> {
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

    fn integer(&mut self, value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
        match value.extract::<i64>() {
            Ok(i) => Ok(toml::Value::Integer(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{} = {}: out of range (a parameter is a whole number from -2^63 to 2^63-1)",
                abbreviated(at, 2 * QUOTED),
                shown(value)
            ))),
        }
    }

    fn table(&mut self, dict: &Bound<'_, PyDict>, at: &str, depth: usize) -> PyResult<toml::Table> {
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

    fn remember(&mut self, text: &str) {
        // A few are enough to quiet a message (each is looked for in it).
        if text.chars().count() > QUOTED && self.long.len() < 16 {
            self.long.push(text.to_string());
        }
    }

    /// `message` with each long text it quotes abbreviated.
    fn quiet(&self, message: String) -> String {
        let mut message = message;
        for text in &self.long {
            message = quote_short(message, text, QUOTED);
        }
        message
    }
}

/// A Python value as a message shows it: its `repr`, at most [`QUOTED`] characters (an int of
/// a million digits has no `repr` at all: its size is said instead).
fn shown(value: &Bound<'_, PyAny>) -> String {
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
fn to_table(dict: &Bound<'_, PyDict>) -> PyResult<(toml::Table, Conversion)> {
    let mut conversion = Conversion::default();
    let table = conversion.table(dict, "", 0)?;
    Ok((table, conversion))
}

/// A JSON value as a Python one.
fn from_json<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
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

/// A position of a game: immutable, hashable, compared as the game compares positions. Made
/// by `Game.initial_state()`, `Game.apply()` and `Game.read_position()`; `repr` shows it in the
/// game's notation.
#[pyclass(module = "solvedgym._solvedgym", frozen)]
struct State {
    game: Arc<DynGame>,
    state: DynState,
}

#[pymethods]
impl State {
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<State>() {
            Ok(o) => o.get().state == self.state,
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.state.hash(&mut h);
        // Python reserves -1 for errors; a u64 is folded to a non-negative Py_hash_t.
        h.finish() >> 2
    }

    fn __repr__(&self) -> String {
        match self.game.write_position(&self.state) {
            Ok(text) => format!("State({} {:?})", self.game.name(), text),
            Err(_) => format!("State({} {:?})", self.game.name(), self.state),
        }
    }

    fn __str__(&self) -> PyResult<String> {
        self.game.render(&self.state).map_err(to_py)
    }
}

/// A registered game with its parameters: the rules as functions of immutable states
/// (OpenSpiel's style). `solvedgym.make(name, **params)` makes one.
#[pyclass(module = "solvedgym._solvedgym", frozen)]
struct Game {
    inner: Arc<DynGame>,
}

impl Game {
    fn state<'s>(&self, state: &'s Bound<'_, State>) -> &'s DynState {
        &state.get().state
    }

    fn wrap(&self, state: DynState) -> State {
        State {
            game: self.inner.clone(),
            state,
        }
    }
}

#[pymethods]
impl Game {
    /// The game's name, as the command line and configs write it.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    /// The parameters, every default filled in.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        from_json(py, &self.inner.params())
    }

    #[getter]
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }

    /// The players' names as the game's literature uses them ("white", "fox").
    #[getter]
    fn player_names(&self) -> Vec<&'static str> {
        self.inner.player_names()
    }

    /// Every action number is below this.
    #[getter]
    fn num_distinct_actions(&self) -> usize {
        self.inner.num_distinct_actions()
    }

    /// The length of `observation_tensor`.
    #[getter]
    fn observation_size(&self) -> usize {
        self.inner.observation_len()
    }

    /// Whether the game has chance events (dice, cards).
    #[getter]
    fn has_chance(&self) -> bool {
        self.inner.has_chance()
    }

    fn initial_state(&self) -> State {
        self.wrap(self.inner.initial_state())
    }

    /// Who acts: a player's number, -1 for chance, -4 when the game is over (OpenSpiel's
    /// numbers).
    fn current_player(&self, state: &Bound<'_, State>) -> PyResult<i64> {
        self.inner.current_player(self.state(state)).map_err(to_py)
    }

    fn is_terminal(&self, state: &Bound<'_, State>) -> PyResult<bool> {
        self.inner.is_terminal(self.state(state)).map_err(to_py)
    }

    fn is_chance_node(&self, state: &Bound<'_, State>) -> PyResult<bool> {
        self.inner.is_chance_node(self.state(state)).map_err(to_py)
    }

    /// Whether a terminal state was reached by a cap in the rules (a round cap) rather than by
    /// the game's own end.
    fn is_truncated(&self, state: &Bound<'_, State>) -> PyResult<bool> {
        self.inner.is_cut_off(self.state(state)).map_err(to_py)
    }

    /// The legal actions in ascending order (empty unless a player is to move).
    fn legal_actions(&self, state: &Bound<'_, State>) -> PyResult<Vec<u32>> {
        self.inner.legal_actions(self.state(state)).map_err(to_py)
    }

    /// A boolean array of `num_distinct_actions`: True where the action is legal.
    fn legal_actions_mask<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'_, State>,
    ) -> PyResult<Bound<'py, PyArray1<bool>>> {
        let mut mask = vec![false; self.inner.num_distinct_actions()];
        for a in self.inner.legal_actions(self.state(state)).map_err(to_py)? {
            mask[a as usize] = true;
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// At a chance node, the outcomes and their probabilities (empty elsewhere).
    fn chance_outcomes(&self, state: &Bound<'_, State>) -> PyResult<Vec<(u32, f64)>> {
        self.inner.chance_outcomes(self.state(state)).map_err(to_py)
    }

    /// The state after `action` (a legal action, or an outcome at a chance node). An illegal
    /// action raises `IllegalActionError`, whose message lists the legal ones.
    fn apply(&self, state: &Bound<'_, State>, action: &Bound<'_, PyAny>) -> PyResult<State> {
        let action = action_number(action, &self.inner)?;
        let next = self.inner.apply(self.state(state), action).map_err(to_py)?;
        Ok(self.wrap(next))
    }

    /// The payoffs at a terminal state, one per player (zeros elsewhere).
    fn returns(&self, state: &Bound<'_, State>) -> PyResult<Vec<f64>> {
        self.inner.returns(self.state(state)).map_err(to_py)
    }

    /// The state as numbers from `player`'s point of view (float32, `observation_size` long;
    /// the planes are documented per game in docs/python.md).
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'_, State>,
        player: i64,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let obs = self
            .inner
            .observation(self.state(state), player)
            .map_err(to_py)?;
        Ok(PyArray1::from_vec(py, obs))
    }

    /// The bounds of every number of `observation_tensor` as (low, high) float32 arrays
    /// (infinite where the rules set none: Hase und Igel's carrots): a Gymnasium `Box`'s.
    fn observation_bounds<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<f32>>, Bound<'py, PyArray1<f32>>) {
        let (low, high) = self.inner.observation_bounds();
        (PyArray1::from_vec(py, low), PyArray1::from_vec(py, high))
    }

    /// The action in the game's notation ("b2-b3"); it must be legal here.
    fn action_to_string(
        &self,
        state: &Bound<'_, State>,
        action: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let action = action_number(action, &self.inner)?;
        self.inner
            .action_to_string(self.state(state), action)
            .map_err(to_py)
    }

    /// The action named in the game's notation (case-insensitive).
    fn string_to_action(&self, state: &Bound<'_, State>, text: &str) -> PyResult<u32> {
        self.inner
            .string_to_action(self.state(state), text)
            .map_err(to_py)
    }

    /// The state drawn as text, as `solvedgym play` draws it.
    fn render(&self, state: &Bound<'_, State>) -> PyResult<String> {
        self.inner.render(self.state(state)).map_err(to_py)
    }

    /// The state drawn as a picture: a numpy array of shape (height, width, 3), dtype uint8
    /// (RGB), the frame Gymnasium's `render_mode="rgb_array"` returns. The size is fixed by the
    /// game and its parameters (at most 2048 pixels a side).
    fn render_rgb<'py>(
        &self,
        py: Python<'py>,
        state: &Bound<'py, State>,
    ) -> PyResult<Bound<'py, numpy::PyArray3<u8>>> {
        let picture = self.inner.picture(self.state(state)).map_err(to_py)?;
        let shape = [picture.height as usize, picture.width as usize, 3];
        PyArray1::from_vec(py, picture.rgb).reshape(shape)
    }

    /// The state in the game's notation, as the command line's `--state` reads it (a board
    /// string, the CGSuite graph string for Hackenbush, JSON for Hase und Igel).
    fn write_position(&self, state: &Bound<'_, State>) -> PyResult<String> {
        self.inner.write_position(self.state(state)).map_err(to_py)
    }

    /// A state from the game's notation, checked against the rules.
    fn read_position(&self, text: &str) -> PyResult<State> {
        let s = self.inner.read_position(text).map_err(to_py)?;
        Ok(self.wrap(s))
    }

    /// The key that names the state exactly, as saved agents' `position` column holds it: the
    /// notation, and in Hackenbush the board, standing edges and mover after ` @ `.
    fn write_state_key(&self, state: &Bound<'_, State>) -> PyResult<String> {
        self.inner.write_state_key(self.state(state)).map_err(to_py)
    }

    /// The state a key names (a saved agent's `position`), checked against the rules.
    fn read_state_key(&self, text: &str) -> PyResult<State> {
        let s = self.inner.read_state_key(text).map_err(to_py)?;
        Ok(self.wrap(s))
    }

    /// A computer player: "optimal" (perfect play from the exact solver; the FoxBox AI in
    /// Fox & Hounds), "greedy", "random", or search settings ("depth=3"), as `solvedgym play
    /// --ai` names them; with `fuzz`, a random move with that probability.
    #[pyo3(signature = (ai = "random", fuzz = 0.0))]
    fn computer(&self, py: Python<'_>, ai: &str, fuzz: f64) -> PyResult<Computer> {
        let inner = self.inner.clone();
        let ai = ai.to_string();
        // Solving can take seconds: other Python threads run meanwhile.
        let player = py
            .detach(move || inner.computer(&ai, fuzz))
            .map_err(to_py)?;
        Ok(Computer {
            game: self.inner.clone(),
            player,
        })
    }

    /// Every position play from the start reaches, with its exact truth (the command line's
    /// `solve`, by enumeration); refused with the numbers where the game has more than
    /// `max_states` positions or no exact truth.
    #[pyo3(signature = (max_states = 50_000_000))]
    fn solve(&self, py: Python<'_>, max_states: usize) -> PyResult<Solution> {
        let inner = self.inner.clone();
        let solution = py.detach(move || inner.solve(max_states)).map_err(to_py)?;
        Ok(Solution {
            game: self.inner.clone(),
            inner: solution,
        })
    }

    fn __repr__(&self) -> String {
        format!("Game({})", self.inner.describe())
    }
}

/// A positions x actions array of booleans.
type BoolTable<'py> = Bound<'py, PyArray2<bool>>;

/// Every reachable position of a game, numbered from 0 (the start), with its exact truth
/// (`Game.solve()`).
#[pyclass(module = "solvedgym._solvedgym", frozen)]
struct Solution {
    game: Arc<DynGame>,
    inner: DynSolution,
}

impl Solution {
    /// The numbers of `policy` (a positions x actions table, or a callable asked about the
    /// positions of `seats` in batches of `batch_size`) as one row-major table; rows of other
    /// seats' positions are 0 for a callable.
    fn policy_table<'py>(
        &self,
        py: Python<'py>,
        policy: &Bound<'py, PyAny>,
        seats: &[usize],
        batch_size: usize,
        what: &str,
    ) -> PyResult<Vec<f64>> {
        let (n, width) = (self.inner.len(), self.game.num_distinct_actions());
        let player = if let Ok(agent) = policy.cast::<Agent>() {
            Some(&agent.get().inner.player)
        } else if let Ok(computer) = policy.cast::<Computer>() {
            Some(&computer.get().player)
        } else {
            None
        };
        if let Some(player) = player {
            return py.detach(|| self.inner.player_table(player)).map_err(|e| {
                PyValueError::new_err(format!("{what}: {}", plain_words(&e.to_string())))
            });
        }
        if let Ok(array) = policy.extract::<PyReadonlyArray2<'py, f64>>() {
            let array = array.as_array();
            if array.shape() != [n, width] {
                return Err(PyValueError::new_err(format!(
                    "{what}: the table is {:?}; it needs one row per position and one column per action: [{n}, {width}]",
                    array.shape()
                )));
            }
            return Ok(array.iter().copied().collect());
        }
        if !policy.is_callable() {
            return Err(PyTypeError::new_err(format!(
                "{what}: a callable (observations, masks) -> probabilities, or a positions x actions array"
            )));
        }
        if batch_size == 0 {
            return Err(PyValueError::new_err("batch_size must be at least 1"));
        }
        let players = self.inner.players();
        let (legal, _) = self.inner.masks();
        let np = py.import("numpy")?;
        let mut table = vec![0.0; n * width];
        for &seat in seats {
            let ids: Vec<usize> = (0..n).filter(|&id| players[id] == seat as i64).collect();
            for chunk in ids.chunks(batch_size) {
                let obs = self.observations_of(py, chunk, seat as i64)?;
                let mut mask = Vec::with_capacity(chunk.len() * width);
                for &id in chunk {
                    mask.extend_from_slice(&legal[id * width..][..width]);
                }
                let mask = PyArray1::from_vec(py, mask).reshape([chunk.len(), width])?;
                let out = policy.call1((obs, mask))?;
                // Whatever array-like it returns (float32 from a network, a list), as float64.
                let out = np
                    .call_method1("asarray", (out, "float64"))?
                    .extract::<PyReadonlyArray2<'py, f64>>()
                    .map_err(|_| {
                        PyTypeError::new_err(format!(
                            "{what} must return a 2-D array of probabilities (batch x actions)"
                        ))
                    })?;
                let out = out.as_array();
                if out.shape() != [chunk.len(), width] {
                    return Err(PyValueError::new_err(format!(
                        "{what} returned a {:?} array for a batch of {} positions; it must be [{}, {width}]",
                        out.shape(),
                        chunk.len(),
                        chunk.len()
                    )));
                }
                // Row by row as slices where the array is laid out by rows (numpy's default),
                // entry by entry otherwise.
                for (k, &id) in chunk.iter().enumerate() {
                    let to = &mut table[id * width..][..width];
                    let row = out.row(k);
                    match row.as_slice() {
                        Some(from) => to.copy_from_slice(from),
                        None => to.iter_mut().zip(row.iter()).for_each(|(t, &x)| *t = x),
                    }
                }
            }
        }
        Ok(table)
    }

    fn observations_of<'py>(
        &self,
        py: Python<'py>,
        ids: &[usize],
        player: i64,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let width = self.game.observation_len();
        let out = self.inner.observations(ids, player).map_err(to_py)?;
        PyArray1::from_vec(py, out).reshape([ids.len(), width])
    }
}

#[pymethods]
impl Solution {
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// The start's value in words ("black wins in 6 plies").
    #[getter]
    fn start_value(&self) -> String {
        self.inner.describe_start()
    }

    /// Position `id`.
    fn state(&self, id: usize) -> PyResult<State> {
        let state = self.inner.state(id).map_err(to_py)?;
        Ok(State {
            game: self.game.clone(),
            state,
        })
    }

    /// The number of `state`, or None where play from the start does not reach it.
    fn index(&self, state: &Bound<'_, State>) -> PyResult<Option<usize>> {
        self.inner.index(&state.get().state).map_err(to_py)
    }

    /// Who acts at each position (int64): a player, -1 for chance, -4 at the end.
    fn players<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        PyArray1::from_vec(py, self.inner.players())
    }

    /// Position `id`'s actions, each with whether it keeps the mover's value.
    fn moves(&self, id: usize) -> PyResult<Vec<(u32, bool)>> {
        self.inner.moves(id).map_err(to_py)
    }

    /// Position `id`'s value: (winner or None for a draw, plies to the end under perfect play);
    /// None where the truth is expected results (chance, more than two players).
    fn value(&self, id: usize) -> PyResult<Option<(Option<usize>, u32)>> {
        self.inner.value(id).map_err(to_py)
    }

    /// Boolean arrays (positions x actions): the legal actions, and those that keep the value.
    fn masks<'py>(&self, py: Python<'py>) -> PyResult<(BoolTable<'py>, BoolTable<'py>)> {
        let (n, width) = (self.inner.len(), self.game.num_distinct_actions());
        let (legal, keeps) = self.inner.masks();
        let shape = [n, width];
        Ok((
            PyArray1::from_vec(py, legal).reshape(shape)?,
            PyArray1::from_vec(py, keeps).reshape(shape)?,
        ))
    }

    /// Each seat's exact win probability at every position (float64, positions x players)
    /// where chance moves or more than two play (against the others' coalition); None where
    /// the truth is win/draw/loss values (`value`).
    fn win_probabilities<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
        match self.inner.win_probabilities() {
            Some(p) => Ok(Some(
                PyArray1::from_vec(py, p).reshape([self.inner.len(), self.game.num_players()])?,
            )),
            None => Ok(None),
        }
    }

    /// Hackenbush: every position's combinatorial-game value in CGSuite's notation (None
    /// before nature deals); None for the other games.
    fn cgt_values(&self, py: Python<'_>) -> Option<Vec<Option<String>>> {
        py.detach(|| self.inner.cgt_values())
    }

    /// The solution as columns, one row per position (numbered as `state(id)`): `id`,
    /// `player` (-1 chance, -4 the end), `position` (the game's notation, or the board as
    /// text), `legal_actions` and `optimal_actions` (those that keep the mover's value); where
    /// values are win/draw/loss, `winner` (-1 for a draw) and `plies` to the end under perfect
    /// play; where chance moves or more than two play, `win_probability_<player>`; Hackenbush,
    /// `cgt_value`. A dict of numpy arrays and lists: `polars.DataFrame(sol.columns())` (what
    /// `to_polars` does) or pandas'.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let n = self.inner.len();
        let out = PyDict::new(py);
        out.set_item("id", PyArray1::from_vec(py, (0..n as u32).collect()))?;
        out.set_item("player", PyArray1::from_vec(py, self.inner.players()))?;
        let mut positions = Vec::with_capacity(n);
        let (mut legal, mut optimal) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for id in 0..n {
            let state = self.inner.state(id).map_err(to_py)?;
            positions.push(match self.game.write_position(&state) {
                Ok(text) => text,
                Err(_) => self.game.render(&state).map_err(to_py)?,
            });
            let moves = self.inner.moves(id).map_err(to_py)?;
            legal.push(moves.iter().map(|&(a, _)| a).collect::<Vec<u32>>());
            optimal.push(
                moves
                    .iter()
                    .filter(|&&(_, keeps)| keeps)
                    .map(|&(a, _)| a)
                    .collect::<Vec<u32>>(),
            );
        }
        out.set_item("position", positions)?;
        out.set_item("legal_actions", legal)?;
        out.set_item("optimal_actions", optimal)?;
        if self.inner.value(0).map_err(to_py)?.is_some() {
            let (mut winner, mut plies) = (Vec::with_capacity(n), Vec::with_capacity(n));
            for id in 0..n {
                let (w, p) = self.inner.value(id).map_err(to_py)?.unwrap_or((None, 0));
                winner.push(w.map_or(-1, |w| w as i64));
                plies.push(p);
            }
            out.set_item("winner", PyArray1::from_vec(py, winner))?;
            out.set_item("plies", PyArray1::from_vec(py, plies))?;
        }
        if let Some(p) = self.inner.win_probabilities() {
            let players = self.game.num_players();
            let names = solvedgym_agent_names(&self.game);
            for (seat, name) in names.iter().enumerate() {
                let column: Vec<f64> = p.iter().skip(seat).step_by(players).copied().collect();
                out.set_item(
                    format!("win_probability_{name}"),
                    PyArray1::from_vec(py, column),
                )?;
            }
        }
        if let Some(values) = self.cgt_values(py) {
            out.set_item("cgt_value", values)?;
        }
        Ok(out)
    }

    /// `columns()` as a polars DataFrame (polars must be installed: `pip install polars`).
    fn to_polars<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let polars = py.import("polars").map_err(|_| {
            pyo3::exceptions::PyImportError::new_err(
                "to_polars needs polars: pip install polars (or use columns())",
            )
        })?;
        polars.call_method1("DataFrame", (self.columns(py)?,))
    }

    /// The observation tensors of positions `ids` from `player`'s point of view (float32,
    /// len(ids) x observation_size).
    fn observations<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        player: i64,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let ids = indices(ids, "ids")?;
        self.observations_of(py, &ids, player)
    }

    /// Evaluates `policy` exactly, by the Rust evaluator's dynamic programs, at `seats` (all
    /// seats by default), each seat alone: the policy plays that seat, perfect, random or
    /// best-response play every other one (never the policy against itself), and `opponent`
    /// (a policy in any form `policy` takes) where one is given. `policy` is either a table
    /// (positions x actions) or a callable `policy(observations, masks)` called on batches of
    /// up to `batch_size` positions of one seat (`observations`: float32, batch x
    /// observation_size, from that seat's point of view; `masks`: bool, batch x actions, the
    /// legal ones) that returns a batch x actions array.
    ///
    /// `output="probabilities"` (the default): the entries are weights, at least 0, normalised
    /// (divided by the largest first, so a policy scaled by 1e308 or 5e-324 scores as the same
    /// policy unscaled); `output="logits"`: raw scores, made probabilities by a softmax over the
    /// row (-inf: never played). `illegal="raise"` (the default): weight on an illegal action
    /// raises `ValueError` naming the first position; `"lose"`: it ends the game as a loss for
    /// the mover, as an environment made with `illegal="lose"` plays it; `"renormalize"`: it is
    /// dropped and the legal entries normalised. A read entry that is NaN, infinite or (as a
    /// weight) negative, or a row with no weight, raises `ValueError` naming the position (its
    /// number and notation) and the action. The opponent is read the same way.
    ///
    /// Returns a dict: `moves` (optimal-move rates over all positions, over the positions it
    /// can face and along perfect play; blunders and mistakes) over every seat evaluated and
    /// `moves_per_seat`; per seat `throws_per_seat` (the probability mass it puts on throwing
    /// a win or a draw away, over the positions it can face and along play against perfect
    /// play) and its exact result (`win`, `draw`, `loss`, `expected_return`)
    /// `against_perfect`, `against_best_response`, `against_random` and, given an opponent,
    /// `against_opponent`.
    #[pyo3(signature = (policy, seats = None, batch_size = 4096, illegal = "raise", output = "probabilities", opponent = None))]
    #[allow(clippy::too_many_arguments)]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        policy: &Bound<'py, PyAny>,
        seats: Option<&Bound<'py, PyAny>>,
        batch_size: usize,
        illegal: &str,
        output: &str,
        opponent: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let illegal: Illegal = illegal.parse().map_err(to_py)?;
        let output: Output = output.parse().map_err(to_py)?;
        let seats: Vec<usize> = match seats.filter(|s| !s.is_none()) {
            Some(seats) => indices(seats, "seats")?,
            None => (0..self.game.num_players()).collect(),
        };
        let players = self.game.num_players();
        if seats.is_empty() || seats.iter().any(|&p| p >= players) {
            return Err(PyValueError::new_err(format!(
                "seats {seats:?}: the seats of {} are 0 to {}",
                self.game.name(),
                players - 1
            )));
        }
        let table = self.policy_table(py, policy, &seats, batch_size, "policy")?;
        let others: Vec<usize> = (0..players)
            .filter(|q| seats.iter().any(|s| s != q))
            .collect();
        let opponent = match opponent.filter(|o| !o.is_none()) {
            Some(o) => Some(self.policy_table(py, o, &others, batch_size, "opponent")?),
            None => None,
        };
        let spec = |table| PolicyTable {
            table,
            illegal,
            output,
        };
        let evaluation = py
            .detach(|| {
                self.inner
                    .evaluate_with(spec(&table), &seats, opponent.as_deref().map(spec))
            })
            .map_err(to_py)?;
        let json =
            serde_json::to_value(&evaluation).map_err(|e| PyValueError::new_err(e.to_string()))?;
        from_json(py, &json)
    }

    /// The best any policy achieves at `seat` against `opponent` at every other seat:
    /// `"random"` (uniform over the legal moves), `"perfect"` (the solver's play: uniform over
    /// the moves that keep the best value) or a policy in any form `evaluate` takes (read with
    /// `illegal` and `output` as `evaluate` reads it). The ceiling of a learner trained against
    /// that opponent. Returns a dict: `seat`, its exact `win`, `draw`, `loss` and
    /// `expected_return`, and `policy`, a positions x actions table with 1 at the move it plays
    /// at each of the seat's positions (the move of greatest expected return; ties to the
    /// greater win probability, then the smaller loss probability, then the first move).
    #[pyo3(signature = (opponent, seat, batch_size = 4096, illegal = "raise", output = "probabilities"))]
    fn best_response<'py>(
        &self,
        py: Python<'py>,
        opponent: &Bound<'py, PyAny>,
        seat: i64,
        batch_size: usize,
        illegal: &str,
        output: &str,
    ) -> PyResult<Bound<'py, PyDict>> {
        let illegal: Illegal = illegal.parse().map_err(to_py)?;
        let output: Output = output.parse().map_err(to_py)?;
        let players = self.game.num_players();
        let seat = usize::try_from(seat)
            .ok()
            .filter(|&s| s < players)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "seat {seat}: the seats of {} are 0 to {}",
                    self.game.name(),
                    players - 1
                ))
            })?;
        let named = opponent
            .extract::<String>()
            .ok()
            .map(|name| match name.as_str() {
                "random" => Ok(None),
                "perfect" | "optimal" => Ok(Some(())),
                _ => Err(PyValueError::new_err(format!(
                    "opponent={}: \"random\", \"perfect\", or a policy (a positions x actions table, a callable, a saved agent)",
                    abbreviated(&name, 40)
                ))),
            })
            .transpose()?;
        let others: Vec<usize> = (0..players).filter(|&q| q != seat).collect();
        let table = match named {
            Some(_) => None,
            None => Some(self.policy_table(py, opponent, &others, batch_size, "opponent")?),
        };
        let reply = py
            .detach(|| {
                let opponent = match (named, &table) {
                    (Some(None), _) => Opponent::Random,
                    (Some(Some(())), _) => Opponent::Perfect,
                    (None, Some(table)) => Opponent::Policy(PolicyTable {
                        table,
                        illegal,
                        output,
                    }),
                    (None, None) => unreachable!("a table where the opponent is no name"),
                };
                self.inner.best_response(opponent, seat)
            })
            .map_err(to_py)?;
        let out = PyDict::new(py);
        out.set_item("seat", reply.seat)?;
        out.set_item("win", reply.result.win)?;
        out.set_item("draw", reply.result.draw)?;
        out.set_item("loss", reply.result.loss)?;
        out.set_item("expected_return", reply.result.expected_return)?;
        let width = self.game.num_distinct_actions();
        let policy = PyArray1::from_vec(py, reply.policy).reshape([self.inner.len(), width])?;
        out.set_item("policy", policy)?;
        Ok(out)
    }

    fn __repr__(&self) -> String {
        format!(
            "Solution({}: {} positions, {})",
            self.game.describe(),
            self.inner.len(),
            self.inner.describe_start()
        )
    }
}

/// A computer player of one game (`Game.computer(...)`).
#[pyclass(module = "solvedgym._solvedgym", frozen)]
struct Computer {
    game: Arc<DynGame>,
    player: DynPlayer,
}

#[pymethods]
impl Computer {
    /// What it plays ("fuzzy(p=0.1, optimal)", "random").
    #[getter]
    fn name(&self) -> String {
        self.player.name().to_string()
    }

    /// Its move at `state` (a player's turn), drawn with `seed` (the same seed, the same
    /// move); None where it resigns.
    #[pyo3(signature = (state, seed = 0))]
    fn choose(&self, state: &Bound<'_, State>, seed: u64) -> PyResult<Option<u32>> {
        self.game
            .choose(&self.player, &state.get().state, seed)
            .map_err(to_py)
    }

    fn __repr__(&self) -> String {
        format!("Computer({}, {})", self.game.describe(), self.player.name())
    }
}

/// A saved agent (`solvedgym.load_agent(path)`): what its file says and its play, usable
/// wherever a policy is (`Solution.evaluate`, `Solution.best_response`, an environment's
/// `opponent`).
#[pyclass(module = "solvedgym._solvedgym", frozen)]
struct Agent {
    inner: DynAgent,
    game: Arc<DynGame>,
}

#[pymethods]
impl Agent {
    /// The file it was read from.
    #[getter]
    fn path(&self) -> String {
        self.inner.path.display().to_string()
    }

    /// The game it was saved from (with its parameters).
    #[getter]
    fn game(&self) -> Game {
        Game {
            inner: self.game.clone(),
        }
    }

    /// Its learner's kind (`q-learning`, `her`...) and label.
    #[getter]
    fn kind(&self) -> String {
        self.inner.header.kind.clone()
    }

    #[getter]
    fn label(&self) -> String {
        self.inner.header.label.clone()
    }

    /// Every key of its learner's config, as TOML.
    #[getter]
    fn config(&self) -> String {
        self.inner.header.learner.clone()
    }

    /// The seats it trained at, by name (every seat in self-play).
    #[getter]
    fn seats(&self) -> Vec<String> {
        self.inner.header.seats.clone()
    }

    /// The numbers of those seats.
    #[getter]
    fn seat_numbers(&self) -> Vec<usize> {
        let names = solvedgym_agent_names(&self.game);
        self.inner
            .header
            .seats
            .iter()
            .filter_map(|s| names.iter().position(|n| n == s))
            .collect()
    }

    /// The episodes it trained.
    #[getter]
    fn episodes(&self) -> u64 {
        self.inner.header.episodes
    }

    /// Where it was trained (a dict: `run`, `opponent`, `seed`, `episodes`, `condition`,
    /// `config_hash`, and `config`, its run's resolved config), or None.
    #[getter]
    fn origin<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        match &self.inner.header.origin {
            None => Ok(None),
            Some(o) => {
                let json =
                    serde_json::to_value(o).map_err(|e| PyValueError::new_err(e.to_string()))?;
                from_json(py, &json).map(Some)
            }
        }
    }

    /// Everything its file's header says, as a dict.
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_value(&self.inner.header)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        from_json(py, &json)
    }

    /// Its name as a computer player (`agent=PATH`), as an environment's `opponent` or
    /// `solvedgym play --ai` takes it.
    #[getter]
    fn spec(&self) -> String {
        self.inner.spec()
    }

    /// Its play as a computer player (a random move with probability `fuzz`).
    #[pyo3(signature = (fuzz = 0.0))]
    fn computer(&self, py: Python<'_>, fuzz: f64) -> PyResult<Computer> {
        let (game, spec) = (self.game.clone(), self.inner.spec());
        let player = py
            .detach(move || game.computer(&spec, fuzz))
            .map_err(to_py)?;
        Ok(Computer {
            game: self.game.clone(),
            player,
        })
    }

    /// The probabilities of its moves at every position of `solution` (positions x actions).
    fn table<'py>(
        &self,
        py: Python<'py>,
        solution: &Bound<'py, Solution>,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let sol = solution.get();
        let table = py
            .detach(|| sol.inner.player_table(&self.inner.player))
            .map_err(to_py)?;
        PyArray1::from_vec(py, table).reshape([sol.inner.len(), sol.game.num_distinct_actions()])
    }

    /// Its run's figures made again, as `solvedgym evaluate PATH --json` makes them: a dict of
    /// `agent` (its header) and `metrics` ([name, value] pairs, the run's last row of
    /// curves.parquet for that learner, opponent and seed).
    #[pyo3(signature = (progress = false))]
    fn evaluate<'py>(&self, py: Python<'py>, progress: bool) -> PyResult<Bound<'py, PyAny>> {
        let path = self.inner.path.clone();
        let evaluation = py
            .detach(move || solvedgym::experiment::evaluate_agent(&path, progress))
            .map_err(|e| PyValueError::new_err(format!("{e:#}")))?;
        let json =
            serde_json::to_value(&evaluation).map_err(|e| PyValueError::new_err(e.to_string()))?;
        from_json(py, &json)
    }

    fn __repr__(&self) -> String {
        format!(
            "Agent({} {} on {}, {} episodes, as {}: {})",
            self.inner.header.kind,
            self.inner.header.label,
            self.game.describe(),
            self.inner.header.episodes,
            self.inner.header.seats.join(" and "),
            self.inner.path.display()
        )
    }
}

/// Opens the agent a run saved at `path` (`<run folder>/agents/*.parquet`): its learner
/// restored, on the game and parameters it was saved from. Refused, saying why, where the file
/// is not an agent, of another format version, or of a learner this solvedgym does not have.
#[pyfunction]
fn load_agent(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Agent> {
    let inner = py.detach(move || DynAgent::load(&path)).map_err(to_py)?;
    Ok(Agent {
        game: Arc::new(inner.game.clone()),
        inner,
    })
}

type Rows<'py, T> = Bound<'py, PyArray2<T>>;
type Column<'py, T> = Bound<'py, PyArray1<T>>;

/// What one call of the vector environment returns: observations, rewards, terminated,
/// truncated, masks.
type VectorStep<'py> = (
    Rows<'py, f32>,
    Column<'py, f64>,
    Column<'py, bool>,
    Column<'py, bool>,
    Rows<'py, bool>,
);

/// Many environments of one game stepped in one call (`solvedgym.vector.SolvedGymVectorEnv`
/// wraps it as a Gymnasium `VectorEnv`): the learner plays `seat`, the computer player
/// `opponent` every other seat, chance is drawn inside; an episode that ends starts again on
/// the next step (that step's action for it is ignored).
#[pyclass(module = "solvedgym._solvedgym")]
struct VectorCore {
    /// A lock only for Python's rules (a class shared between threads); one caller at a time.
    inner: std::sync::Mutex<DynVector>,
    /// The game, for the messages about actions.
    game: Arc<DynGame>,
    num_envs: usize,
    observation_len: usize,
    num_actions: usize,
}

impl VectorCore {
    fn buffers<'py>(&self, py: Python<'py>) -> VectorStep<'py> {
        let n = self.num_envs;
        (
            PyArray2::zeros(py, [n, self.observation_len], false),
            PyArray1::zeros(py, n, false),
            PyArray1::zeros(py, n, false),
            PyArray1::zeros(py, n, false),
            PyArray2::zeros(py, [n, self.num_actions], false),
        )
    }

    /// Runs `f` on the buffers' memory with the GIL released.
    fn fill<'py>(
        &mut self,
        py: Python<'py>,
        f: impl FnOnce(&mut DynVector, &mut Batch<'_>) -> Result<(), FrontError> + Send,
    ) -> PyResult<VectorStep<'py>> {
        let out = self.buffers(py);
        {
            let mut obs = out.0.readwrite();
            let mut rewards = out.1.readwrite();
            let mut terminated = out.2.readwrite();
            let mut truncated = out.3.readwrite();
            let mut masks = out.4.readwrite();
            let contiguous = |_| PyValueError::new_err("an array that is not contiguous");
            let mut batch = Batch {
                observations: obs.as_slice_mut().map_err(contiguous)?,
                rewards: rewards.as_slice_mut().map_err(contiguous)?,
                terminated: terminated.as_slice_mut().map_err(contiguous)?,
                truncated: truncated.as_slice_mut().map_err(contiguous)?,
                masks: masks.as_slice_mut().map_err(contiguous)?,
            };
            let mut inner = self
                .inner
                .lock()
                .map_err(|_| PyValueError::new_err("a step of this vector panicked before"))?;
            let inner = &mut *inner;
            py.detach(|| f(inner, &mut batch)).map_err(to_py)?;
        }
        Ok(out)
    }
}

#[pymethods]
impl VectorCore {
    #[new]
    #[pyo3(signature = (game, num_envs, seat, opponent, fuzz = 0.0, illegal_loses = false))]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, Game>,
        num_envs: usize,
        seat: i64,
        opponent: &str,
        fuzz: f64,
        illegal_loses: bool,
    ) -> PyResult<Self> {
        let g = game.get().inner.clone();
        let opponent = opponent.to_string();
        let inner = py
            .detach(|| DynVector::new(&g, num_envs, seat, &opponent, fuzz, illegal_loses))
            .map_err(to_py)?;
        Ok(VectorCore {
            num_envs: inner.num_envs(),
            inner: std::sync::Mutex::new(inner),
            observation_len: g.observation_len(),
            game: g.clone(),
            num_actions: g.num_distinct_actions(),
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }

    /// Starts every environment afresh, environment i seeded with seeds[i]: returns
    /// (observations, rewards, terminated, truncated, masks) as `step` does.
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seeds: &Bound<'py, PyAny>,
    ) -> PyResult<VectorStep<'py>> {
        let seeds = numbers(seeds, "seeds")?;
        self.fill(py, move |v, batch| v.reset(&seeds, batch))
    }

    /// Plays actions[i] in environment i: (observations float32 (n, observation_size), rewards
    /// float64 (n,), terminated bool (n,), truncated bool (n,), masks bool (n, actions)).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<VectorStep<'py>> {
        let actions: Vec<i64> = match actions.extract::<numpy::PyReadonlyArray1<'py, i64>>() {
            Ok(array) => array.as_array().to_vec(),
            Err(_) => {
                let mut out = Vec::new();
                for a in actions.try_iter()? {
                    out.push(action_number(&a?, &self.game)?);
                }
                out
            }
        };
        self.fill(py, move |v, batch| v.step(&actions, batch))
    }
}

/// The episode of a PettingZoo AEC environment and its bookkeeping, in Rust so that the
/// protocol's calls per move (`last`, `observe`, `step`) are one call each:
/// `solvedgym.pettingzoo.SolvedGymAEC` derives from it and from `pettingzoo.AECEnv`. It holds
/// the position, the generator that draws chance events, and the dicts PettingZoo reads
/// (`rewards`, `_cumulative_rewards`, `terminations`, `truncations`, `infos`), `agents` and
/// `agent_selection` as attributes; the rest of the protocol is `AECEnv`'s own.
#[pyclass(module = "solvedgym._solvedgym", subclass)]
struct AecBase {
    game: Option<Arc<DynGame>>,
    state: Option<DynState>,
    rng: solvedgym::core::random::SgRng,
    /// Who acts (-4 at the end), worked out once per position.
    player: i64,
    /// The agents' names by seat, and seats by name.
    names: Vec<Py<PyString>>,
    seats: Py<PyDict>,
    #[pyo3(get, set)]
    agents: Py<PyAny>,
    #[pyo3(get, set)]
    agent_selection: Py<PyAny>,
    #[pyo3(get, set)]
    rewards: Py<PyAny>,
    #[pyo3(get, set, name = "_cumulative_rewards")]
    cumulative_rewards: Py<PyAny>,
    #[pyo3(get, set)]
    terminations: Py<PyAny>,
    #[pyo3(get, set)]
    truncations: Py<PyAny>,
    #[pyo3(get, set)]
    infos: Py<PyAny>,
    /// PettingZoo's `_skip_agent_selection`: the agent selected when the first of several
    /// agents that are done was stepped.
    #[pyo3(get, set, name = "_skip_agent_selection")]
    skip_agent_selection: Option<Py<PyAny>>,
    /// The legal actions of the agent to act (in `infos` too), for its mask.
    legal: Vec<u32>,
}

impl AecBase {
    fn game(&self) -> PyResult<(&Arc<DynGame>, &DynState)> {
        match (&self.game, &self.state) {
            (Some(g), Some(s)) => Ok((g, s)),
            _ => Err(PyValueError::new_err(
                "the environment has no game: call _bind(game, agents) first",
            )),
        }
    }

    /// After a move: the next agent with its legal moves, or the end with everyone's reward.
    fn settle(&mut self, py: Python<'_>, player: i64) -> PyResult<()> {
        self.player = player;
        let (Some(game), Some(state)) = (&self.game, &self.state) else {
            return Err(PyValueError::new_err("the environment has no game"));
        };
        let infos = self.infos.bind(py);
        let legal_moves = pyo3::intern!(py, "legal_moves");
        if player >= 0 {
            let agent = self.names[player as usize].clone_ref(py);
            self.legal = game.legal_actions(state).map_err(to_py)?;
            infos.get_item(&agent)?.set_item(legal_moves, &self.legal)?;
            self.agent_selection = agent.into_any();
            return Ok(());
        }
        self.legal.clear();
        let returns = game.returns(state).map_err(to_py)?;
        let truncated = game.is_cut_off(state).map_err(to_py)?;
        let (rewards, cumulative) = (self.rewards.bind(py), self.cumulative_rewards.bind(py));
        for (seat, name) in self.names.iter().enumerate() {
            let name = name.bind(py);
            if !rewards.contains(name)? {
                continue;
            }
            rewards.set_item(name, returns[seat])?;
            let before: f64 = cumulative.get_item(name)?.extract()?;
            cumulative.set_item(name, before + returns[seat])?;
            self.terminations.bind(py).set_item(name, !truncated)?;
            self.truncations.bind(py).set_item(name, truncated)?;
            let info = infos.get_item(name)?;
            if info.contains(legal_moves)? {
                info.del_item(legal_moves)?;
            }
        }
        Ok(())
    }

    /// PettingZoo's `_was_dead_step`: the agent that is done leaves; the next agent that is
    /// done is selected, or, when none is left, the one selected before them.
    fn dead_step(
        &mut self,
        py: Python<'_>,
        agent: &Bound<'_, PyAny>,
        action: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if !action.is_none() {
            return Err(PyValueError::new_err(
                "when an agent is dead, the only valid action is None",
            ));
        }
        for dict in [
            &self.terminations,
            &self.truncations,
            &self.rewards,
            &self.cumulative_rewards,
            &self.infos,
        ] {
            dict.bind(py).del_item(agent)?;
        }
        let agents = self.agents.bind(py);
        agents.call_method1(pyo3::intern!(py, "remove"), (agent,))?;
        let mut next_dead = None;
        for a in agents.try_iter()? {
            let a = a?;
            if self.flag(py, &self.terminations, &a)? || self.flag(py, &self.truncations, &a)? {
                next_dead = Some(a.unbind());
                break;
            }
        }
        match next_dead {
            Some(next) => {
                if self.skip_agent_selection.is_none() {
                    self.skip_agent_selection = Some(self.agent_selection.clone_ref(py));
                }
                self.agent_selection = next;
            }
            None => {
                if let Some(skipped) = self.skip_agent_selection.take() {
                    self.agent_selection = skipped;
                }
            }
        }
        let rewards = self.rewards.bind(py);
        for key in rewards.try_iter()?.collect::<PyResult<Vec<_>>>()? {
            rewards.set_item(key, 0)?;
        }
        Ok(())
    }

    fn flag(&self, py: Python<'_>, dict: &Py<PyAny>, agent: &Bound<'_, PyAny>) -> PyResult<bool> {
        dict.bind(py).get_item(agent)?.extract()
    }
}

#[pymethods]
impl AecBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(
        py: Python<'_>,
        _args: &Bound<'_, PyTuple>,
        _kwargs: Option<&Bound<'_, PyDict>>,
    ) -> Self {
        let empty = || PyDict::new(py).into_any().unbind();
        AecBase {
            game: None,
            state: None,
            rng: solvedgym::core::random::rng(0),
            player: 0,
            names: Vec::new(),
            seats: PyDict::new(py).unbind(),
            agents: PyList::empty(py).into_any().unbind(),
            agent_selection: py.None(),
            rewards: empty(),
            cumulative_rewards: empty(),
            terminations: empty(),
            truncations: empty(),
            infos: empty(),
            skip_agent_selection: None,
            legal: Vec::new(),
        }
    }

    /// Binds the environment to `game`, its agents named `agents` by seat (done by the
    /// subclass's `__init__`).
    fn _bind(
        &mut self,
        py: Python<'_>,
        game: &Bound<'_, Game>,
        agents: Vec<String>,
    ) -> PyResult<()> {
        let g = game.get().inner.clone();
        if agents.len() != g.num_players() {
            return Err(PyValueError::new_err(format!(
                "{} agents for {} players",
                agents.len(),
                g.num_players()
            )));
        }
        self.names = agents
            .iter()
            .map(|a| PyString::new(py, a).unbind())
            .collect();
        let seats = PyDict::new(py);
        for (i, name) in self.names.iter().enumerate() {
            seats.set_item(name, i)?;
        }
        self.seats = seats.unbind();
        self.state = Some(g.initial_state());
        self.game = Some(g);
        Ok(())
    }

    /// A new episode: every agent back, rewards cleared, the generator reseeded where `seed`
    /// is given, chance drawn until an agent acts.
    #[pyo3(signature = (seed = None, options = None))]
    fn reset(
        &mut self,
        py: Python<'_>,
        seed: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let _ = options;
        if let Some(seed) = seed.filter(|s| !s.is_none()) {
            let seed: i128 = seed.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "seed={}: a seed is an integer",
                    seed.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })?;
            if seed < 0 {
                return Err(PyValueError::new_err(format!(
                    "seed={seed}: a seed is a non-negative integer"
                )));
            }
            self.rng = solvedgym::core::random::rng(seed as u64);
        }
        let game = self.game()?.0.clone();
        let agents = PyList::empty(py);
        let (rewards, cumulative, terminations, truncations, infos) = (
            PyDict::new(py),
            PyDict::new(py),
            PyDict::new(py),
            PyDict::new(py),
            PyDict::new(py),
        );
        for name in &self.names {
            agents.append(name)?;
            rewards.set_item(name, 0.0)?;
            cumulative.set_item(name, 0.0)?;
            terminations.set_item(name, false)?;
            truncations.set_item(name, false)?;
            infos.set_item(name, PyDict::new(py))?;
        }
        self.agents = agents.into_any().unbind();
        self.rewards = rewards.into_any().unbind();
        self.cumulative_rewards = cumulative.into_any().unbind();
        self.terminations = terminations.into_any().unbind();
        self.truncations = truncations.into_any().unbind();
        self.infos = infos.into_any().unbind();
        self.agent_selection = self.names[0].clone_ref(py).into_any();
        let state = game
            .settle(game.initial_state(), &mut self.rng)
            .map_err(to_py)?;
        let player = game.current_player(&state).map_err(to_py)?;
        self.state = Some(state);
        self.settle(py, player)
    }

    /// `agent`'s observation as PettingZoo's classic games give it: a dict of `observation`
    /// (float32) and `action_mask` (int8; zeros unless `agent` is to act).
    fn observe<'py>(
        &self,
        py: Python<'py>,
        agent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (game, state) = self.game()?;
        let seat: i64 = match self.seats.bind(py).get_item(agent)? {
            Some(seat) => seat.extract()?,
            None => {
                return Err(PyValueError::new_err(format!(
                    "no agent {}: the agents are {}",
                    agent.repr()?,
                    self.names
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        };
        let observation = game.observation(state, seat).map_err(to_py)?;
        let mut mask = [0i8; 256];
        let n = game.num_distinct_actions();
        let mut long = Vec::new();
        let mask: &mut [i8] = if n <= mask.len() {
            &mut mask[..n]
        } else {
            long.resize(n, 0);
            &mut long
        };
        if seat == self.player {
            for &a in &self.legal {
                mask[a as usize] = 1;
            }
        }
        let out = PyDict::new(py);
        out.set_item(
            pyo3::intern!(py, "observation"),
            PyArray1::from_slice(py, &observation),
        )?;
        out.set_item(
            pyo3::intern!(py, "action_mask"),
            PyArray1::from_slice(py, mask),
        )?;
        Ok(out)
    }

    /// The acting agent's view: (observation, cumulative reward, terminated, truncated, info).
    #[pyo3(signature = (observe = true))]
    fn last<'py>(&self, py: Python<'py>, observe: bool) -> PyResult<Bound<'py, PyTuple>> {
        let agent = self.agent_selection.bind(py);
        let observation = if observe {
            self.observe(py, agent)?.into_any()
        } else {
            py.None().into_bound(py)
        };
        PyTuple::new(
            py,
            [
                observation,
                self.cumulative_rewards.bind(py).get_item(agent)?,
                self.terminations.bind(py).get_item(agent)?,
                self.truncations.bind(py).get_item(agent)?,
                self.infos.bind(py).get_item(agent)?,
            ],
        )
    }

    /// The selected agent plays `action` (None once it is done: PettingZoo's dead step); the
    /// chance events that follow are drawn.
    fn step(slf: &Bound<'_, Self>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let mut this = slf.borrow_mut();
        let agent = this.agent_selection.clone_ref(py);
        let agent = agent.bind(py);
        if this.flag(py, &this.terminations, agent)? || this.flag(py, &this.truncations, agent)? {
            return this.dead_step(py, agent, action);
        }
        let (game, state) = this.game()?;
        let game = game.clone();
        let next = game
            .apply(state, action_number(action, &game)?)
            .map_err(to_py)?;
        let this = &mut *this;
        let next = game.settle(next, &mut this.rng).map_err(to_py)?;
        let player = game.current_player(&next).map_err(to_py)?;
        this.state = Some(next);
        this.cumulative_rewards.bind(py).set_item(agent, 0.0)?;
        this.settle(py, player)
    }

    /// The position now.
    #[getter]
    fn state(&self) -> PyResult<State> {
        let (game, state) = self.game()?;
        Ok(State {
            game: game.clone(),
            state: state.clone(),
        })
    }
}

/// The players' names as column suffixes: unique (numbered where names repeat, as the
/// PettingZoo agents are).
fn solvedgym_agent_names(game: &DynGame) -> Vec<String> {
    let names = game.player_names();
    let unique: std::collections::HashSet<_> = names.iter().collect();
    if unique.len() == names.len() {
        names.iter().map(|n| n.to_string()).collect()
    } else {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{n}_{i}"))
            .collect()
    }
}

/// A list of whole numbers given from Python (`ids`, `seats`, `seeds`): a text is not one
/// (pyo3 would say "Can't extract `str` to `Vec`").
fn numbers(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
    if value.is_instance_of::<PyString>() || value.is_instance_of::<pyo3::types::PyBytes>() {
        return Err(PyTypeError::new_err(format!(
            "{what}: a list of whole numbers, not {}",
            shown(value)
        )));
    }
    value.extract::<Vec<u64>>()
}

/// [`numbers`] as indices (one beyond the platform's is out of every range there is).
fn indices(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<usize>> {
    Ok(numbers(value, what)?
        .into_iter()
        .map(|x| usize::try_from(x).unwrap_or(usize::MAX))
        .collect())
}

/// An action given from Python to `game`: an integer (numpy integers included), never a bool or
/// float. One beyond 64 bits is refused here as out of range (the rules see the others, and
/// list the legal actions where one is not).
fn action_number(action: &Bound<'_, PyAny>, game: &DynGame) -> PyResult<i64> {
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

/// The registered games: name, aliases, summary and parameters (name -> help, default).
#[pyfunction]
fn games<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut out = Vec::new();
    for info in solvedgym::games::GAMES {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("aliases", info.aliases.to_vec())?;
        d.set_item("summary", info.summary)?;
        let defaults = info.defaults();
        let params = PyDict::new(py);
        for (key, help) in info.fields {
            let default = match defaults.get(*key) {
                Some(v) => from_json(
                    py,
                    &serde_json::to_value(v).unwrap_or(serde_json::Value::Null),
                )?,
                None => py.None().into_bound(py),
            };
            params.set_item(*key, (help.trim(), default))?;
        }
        d.set_item("params", params)?;
        out.push(d);
    }
    Ok(out)
}

/// The game `name` (any of its names or aliases) with parameters `params` (the same names and
/// defaults as the command line and configs: `make("fox-hounds", size=8)`).
#[pyfunction]
#[pyo3(signature = (name, **params))]
fn make(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Game> {
    let (table, conversion) = match params {
        Some(p) => to_table(p)?,
        None => (toml::Table::new(), Conversion::default()),
    };
    let inner = DynGame::new(name, table)
        .map_err(|e| PyValueError::new_err(conversion.quiet(plain_words(&e.to_string()))))?;
    Ok(Game {
        inner: Arc::new(inner),
    })
}

/// A combinatorial game in CGSuite's notation analysed, as `solvedgym value --json` does: its
/// canonical form, outcome class, and what more the command prints ({"3", "{3||2*|1*}", "^^*"}).
/// Bounds as the command's: a refused expression raises ValueError saying which bound.
#[pyfunction]
fn value<'py>(py: Python<'py>, expression: &str) -> PyResult<Bound<'py, PyAny>> {
    let expression = expression.to_string();
    let analysis = py
        .detach(move || {
            solvedgym::truth::cgt::analyse(&expression).map_err(|e| {
                let shown = solvedgym::io::text::abbreviated(&expression, 60);
                format!("{shown}: {e}")
            })
        })
        .map_err(PyValueError::new_err)?;
    let json = serde_json::to_value(&analysis).map_err(|e| PyValueError::new_err(e.to_string()))?;
    from_json(py, &json)
}

/// A study's error as its message: the chain of causes, as `{:#}` writes it. A config error
/// far along a long line is written without its source line (which would quote the line
/// whole, and whose caret `io::source` cannot pad past column 65,535).
fn error_text(e: &anyhow::Error) -> String {
    use solvedgym::io::source::ConfigError;
    let far = |c: &ConfigError| c.column > 2 * QUOTED;
    if !e
        .chain()
        .any(|c| c.downcast_ref::<ConfigError>().is_some_and(far))
    {
        return format!("{e:#}");
    }
    let parts: Vec<String> = e
        .chain()
        .map(|c| match c.downcast_ref::<ConfigError>() {
            Some(c) => format!(
                "{}:{}:{}: {}{}",
                c.file.display(),
                c.line,
                c.column,
                c.key
                    .as_deref()
                    .map(|k| format!("`{}`: ", abbreviated(k, QUOTED)))
                    .unwrap_or_default(),
                c.message
            ),
            None => c.to_string(),
        })
        .collect();
    parts.join(": ")
}

/// What `_run` calls a config given as a dict, in its errors and its stored runs.
const DICT_CONFIG: &str = "<dict config>";

/// `solvedgym.run`'s engine: the config (a path, or a dict turned into TOML here so that its
/// errors name its keys) run as `solvedgym run` runs it, into `out`, with `progress` drawing the
/// command line's bar on stderr. The study runs on a thread of its own while this one checks
/// for Ctrl-C (KeyboardInterrupt stops it: the runs stored so far are kept) and calls
/// `observer(done, total)` (episodes) at most every 100 ms. Returns one dict per game:
/// `name`, `dir` and `written` (the files).
#[pyfunction]
#[pyo3(signature = (config, out, fresh = false, csv = false, progress = false, observer = None))]
fn _run<'py>(
    py: Python<'py>,
    config: &Bound<'py, PyAny>,
    out: std::path::PathBuf,
    fresh: bool,
    csv: bool,
    progress: bool,
    observer: Option<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    use solvedgym::experiment::{Observer, RunOptions, StudyOutcome};
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::mpsc;

    let mut conversion = Conversion::default();
    let (path, text) = match config.cast::<PyDict>() {
        Ok(dict) => {
            let (table, converted) = to_table(dict)?;
            conversion = converted;
            let text = toml::to_string(&table).map_err(|e| {
                PyValueError::new_err(format!(
                    "the config dict as TOML: {}",
                    plain_words(&e.to_string())
                ))
            })?;
            (std::path::PathBuf::from(DICT_CONFIG), Some(text))
        }
        Err(_) => (
            config.extract::<std::path::PathBuf>().map_err(|_| {
                PyTypeError::new_err(
                    "config: a path to a TOML config (str or os.PathLike) or a dict",
                )
            })?,
            None,
        ),
    };
    // What the study has trained, written by its threads, read by this one.
    let done = Arc::new(AtomicU64::new(0));
    let total = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let watch = {
        let (done, total, stop) = (done.clone(), total.clone(), stop.clone());
        Observer(Arc::new(move |d, t| {
            total.store(t, Ordering::Relaxed);
            done.store(d, Ordering::Relaxed);
            !stop.load(Ordering::Relaxed)
        }))
    };
    let options = RunOptions {
        progress,
        fresh,
        csv,
        observer: Some(watch),
        ..RunOptions::default()
    };
    let (tx, rx) = mpsc::channel();
    let worker_out = out.clone();
    let worker = std::thread::spawn(move || {
        let outcome = match &text {
            Some(text) => solvedgym::experiment::run_study_text(&path, text, &worker_out, &options),
            None => solvedgym::experiment::run_study(&path, &worker_out, &options),
        };
        // The receiver is gone only where this thread outlived its caller: nothing to tell.
        let _ = tx.send(outcome);
    });

    // This thread waits with the GIL released, waking to check for Ctrl-C and to report.
    let mut rx = Some(rx);
    let mut failure: Option<PyErr> = None;
    let mut told = (u64::MAX, u64::MAX);
    let outcome = loop {
        let Some(receiver) = rx.take() else {
            break None;
        };
        let (receiver, got) = py.detach(move || {
            let got = receiver.recv_timeout(std::time::Duration::from_millis(100));
            (receiver, got)
        });
        rx = Some(receiver);
        let finished = match got {
            Ok(outcome) => Some(Some(outcome)),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            // The thread ended without sending: it panicked.
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(None),
        };
        if failure.is_none() {
            let now = (done.load(Ordering::Relaxed), total.load(Ordering::Relaxed));
            let reported = match (&observer, now != told) {
                (Some(f), true) => f.call1(now).map(drop),
                _ => Ok(()),
            };
            told = now;
            if let Err(e) = reported.and_then(|()| py.check_signals()) {
                stop.store(true, Ordering::Relaxed);
                failure = Some(e);
            }
        }
        if let Some(outcome) = finished {
            break outcome;
        }
    };
    let joined = py.detach(move || worker.join());
    if let Some(e) = failure {
        return Err(e);
    }
    let summaries = match (outcome, joined) {
        (Some(Ok(StudyOutcome::Finished(summaries))), Ok(())) => summaries,
        (Some(Ok(StudyOutcome::Shard(_))), _) => {
            return Err(PyValueError::new_err(
                "a shard was run: no outputs were written",
            ));
        }
        (Some(Err(e)), _) => {
            let message = conversion.quiet(plain_words(&error_text(&e)));
            return Err(match e.downcast_ref::<std::io::Error>() {
                Some(io) if io.kind() == std::io::ErrorKind::NotFound => {
                    pyo3::exceptions::PyFileNotFoundError::new_err(message)
                }
                _ => PyValueError::new_err(message),
            });
        }
        _ => {
            return Err(pyo3::exceptions::PyRuntimeError::new_err(
                "the study stopped on an internal error (a panic); please report it",
            ));
        }
    };
    let mut games = Vec::with_capacity(summaries.len());
    for s in &summaries {
        let d = PyDict::new(py);
        d.set_item("name", &s.name)?;
        d.set_item("dir", out.join(&s.name))?;
        d.set_item("written", s.written.clone())?;
        games.push(d);
    }
    Ok(games)
}

#[pymodule]
fn _solvedgym(m: &Bound<'_, PyModule>) -> PyResult<()> {
    parquet::register();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(make, m)?)?;
    m.add_function(wrap_pyfunction!(load_agent, m)?)?;
    m.add_function(wrap_pyfunction!(value, m)?)?;
    m.add_function(wrap_pyfunction!(_run, m)?)?;
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
