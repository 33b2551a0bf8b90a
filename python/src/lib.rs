//! `solvedgym._solvedgym`: the Python extension module. A thin layer: every answer comes from
//! the library's [`solvedgym::front`] (the rules, their checks and their errors), and this file
//! only turns Python values into Rust ones and errors into Python exceptions, so that no input
//! from Python reaches a panic.

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use solvedgym::front::{DynGame, DynPlayer, DynSolution, DynState, FrontError};

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
    match e {
        FrontError::Illegal(_) => IllegalActionError::new_err(e.to_string()),
        FrontError::ForeignState { .. } => ForeignStateError::new_err(e.to_string()),
        _ => PyValueError::new_err(e.to_string()),
    }
}

/// A Python value as a TOML value (the parameters' common language with configs and flags).
fn to_toml(value: &Bound<'_, PyAny>, at: &str) -> PyResult<toml::Value> {
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        return match value.extract::<i64>() {
            Ok(i) => Ok(toml::Value::Integer(i)),
            Err(_) => Err(PyValueError::new_err(format!(
                "{at} = {value}: too large (parameters are 64-bit integers)"
            ))),
        };
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(value.extract()?));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in value.try_iter()?.enumerate() {
            out.push(to_toml(&item?, &format!("{at}[{i}]"))?);
        }
        return Ok(toml::Value::Array(out));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        return Ok(toml::Value::Table(to_table(dict, at)?));
    }
    Err(PyTypeError::new_err(format!(
        "{at}: a {} is not a parameter value (use bool, int, float, str, list or dict)",
        value.get_type().name()?
    )))
}

fn to_table(dict: &Bound<'_, PyDict>, at: &str) -> PyResult<toml::Table> {
    let mut table = toml::Table::new();
    for (k, v) in dict.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{at}: parameter names are strings")))?;
        let path = if at.is_empty() {
            key.clone()
        } else {
            format!("{at}.{key}")
        };
        table.insert(key, to_toml(&v, &path)?);
    }
    Ok(table)
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
        let action = action_number(action)?;
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

    /// The action in the game's notation ("b2-b3"); it must be legal here.
    fn action_to_string(
        &self,
        state: &Bound<'_, State>,
        action: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let action = action_number(action)?;
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

    /// The observation tensors of positions `ids` from `player`'s point of view (float32,
    /// len(ids) x observation_size).
    fn observations<'py>(
        &self,
        py: Python<'py>,
        ids: Vec<usize>,
        player: i64,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let width = self.game.observation_len();
        let out = self.inner.observations(&ids, player).map_err(to_py)?;
        PyArray1::from_vec(py, out).reshape([ids.len(), width])
    }

    /// Evaluates `policy` exactly, by the Rust evaluator's dynamic programs, at `seats` (all
    /// seats by default). `policy` is either a table (positions x actions) of probabilities,
    /// or a callable `policy(observations, masks) -> probabilities` called on batches of up to
    /// `batch_size` positions of one seat (`observations`: float32, batch x observation_size,
    /// from that seat's point of view; `masks`: bool, batch x actions, the legal ones) that
    /// returns a batch x actions array. Mass on illegal actions is ignored and each row's legal
    /// entries are normalised; a negative or NaN entry, or a row with no mass on a legal
    /// action, raises `ValueError`.
    ///
    /// Returns a dict: `moves` (optimal-move rates over all positions, over the positions it
    /// can face and along perfect play; blunders and mistakes), and per seat its exact result
    /// (`win`, `draw`, `loss`, `expected_return`) `against_perfect`, `against_best_response`
    /// and `against_random`.
    #[pyo3(signature = (policy, seats = None, batch_size = 4096))]
    fn evaluate<'py>(
        &self,
        py: Python<'py>,
        policy: &Bound<'py, PyAny>,
        seats: Option<Vec<usize>>,
        batch_size: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seats = seats.unwrap_or_else(|| (0..self.game.num_players()).collect());
        let (n, width) = (self.inner.len(), self.game.num_distinct_actions());
        let table: Vec<f64> = if let Ok(array) = policy.extract::<PyReadonlyArray2<'py, f64>>() {
            let array = array.as_array();
            if array.shape() != [n, width] {
                return Err(PyValueError::new_err(format!(
                    "the table is {:?}; it needs one row per position and one column per action: [{n}, {width}]",
                    array.shape()
                )));
            }
            array.iter().copied().collect()
        } else if policy.is_callable() {
            if batch_size == 0 {
                return Err(PyValueError::new_err("batch_size must be at least 1"));
            }
            let players = self.inner.players();
            let (legal, _) = self.inner.masks();
            let np = py.import("numpy")?;
            let mut table = vec![0.0; n * width];
            for &seat in &seats {
                let ids: Vec<usize> = (0..n).filter(|&id| players[id] == seat as i64).collect();
                for chunk in ids.chunks(batch_size) {
                    let obs = self.observations(py, chunk.to_vec(), seat as i64)?;
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
                            PyTypeError::new_err(
                                "the policy must return a 2-D array of probabilities (batch x actions)",
                            )
                        })?;
                    let out = out.as_array();
                    if out.shape() != [chunk.len(), width] {
                        return Err(PyValueError::new_err(format!(
                            "the policy returned a {:?} array for a batch of {} positions; it must be [{}, {width}]",
                            out.shape(),
                            chunk.len(),
                            chunk.len()
                        )));
                    }
                    for (k, &id) in chunk.iter().enumerate() {
                        for a in 0..width {
                            table[id * width + a] = out[[k, a]];
                        }
                    }
                }
            }
            table
        } else {
            return Err(PyTypeError::new_err(
                "policy: a callable (observations, masks) -> probabilities, or a positions x actions array",
            ));
        };
        let evaluation = py
            .detach(|| self.inner.evaluate(&table, &seats))
            .map_err(to_py)?;
        let json =
            serde_json::to_value(&evaluation).map_err(|e| PyValueError::new_err(e.to_string()))?;
        from_json(py, &json)
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

/// An action given from Python: an integer (numpy integers included), never a bool or float.
fn action_number(action: &Bound<'_, PyAny>) -> PyResult<i64> {
    if action.is_instance_of::<PyBool>() || action.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!(
            "an action is an integer, not {}",
            action.repr()?
        )));
    }
    let index = action.call_method0("__index__").map_err(|_| {
        PyTypeError::new_err(format!(
            "an action is an integer, not a {}",
            action
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    // Out of i64's range is simply not a legal action.
    Ok(index.extract::<i64>().unwrap_or(i64::MIN))
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
    let table = match params {
        Some(p) => to_table(p, "")?,
        None => toml::Table::new(),
    };
    let inner = DynGame::new(name, table).map_err(to_py)?;
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
                let shown = solvedgym::core::text::abbreviated(&expression, 60);
                format!("{shown}: {e}")
            })
        })
        .map_err(PyValueError::new_err)?;
    let json = serde_json::to_value(&analysis).map_err(|e| PyValueError::new_err(e.to_string()))?;
    from_json(py, &json)
}

#[pymodule]
fn _solvedgym(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(games, m)?)?;
    m.add_function(wrap_pyfunction!(make, m)?)?;
    m.add_function(wrap_pyfunction!(value, m)?)?;
    m.add_class::<Game>()?;
    m.add_class::<State>()?;
    m.add_class::<Computer>()?;
    m.add_class::<Solution>()?;
    m.add(
        "IllegalActionError",
        m.py().get_type::<IllegalActionError>(),
    )?;
    m.add("ForeignStateError", m.py().get_type::<ForeignStateError>())?;
    Ok(())
}
