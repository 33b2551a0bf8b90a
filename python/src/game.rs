//! `Game` and `State` (the rules from Python), `games()`, `make()` and `value()`.

use super::*;

/// A position of a game: immutable, hashable, compared as the game compares positions. Made
/// by `Game.initial_state()`, `Game.apply()` and `Game.read_position()`; `repr` shows it in the
/// game's notation.
#[pyclass(module = "solvedgym._solvedgym", frozen)]
pub(crate) struct State {
    pub(crate) game: Arc<DynGame>,
    pub(crate) state: DynState,
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
        py_hash(&self.state)
    }

    /// Pickled as its game (by name and parameters) and its state key (`Game.write_state_key`):
    /// the text that reads back to this very state, whatever the game (the board and the mover,
    /// Hase und Igel's whole position as JSON, Hackenbush's dealt board and standing edges), a
    /// few dozen to a few hundred bytes. A state holds no history, so the key is all of it.
    /// Unpickled, it is a state of an equal game: usable with the original `Game` object.
    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduced<'py, (Game, String)> {
        let key = self.game.write_state_key(&self.state).map_err(to_py)?;
        let game = Game {
            inner: self.game.clone(),
        };
        Ok((restorer(py, "_restore_state")?, (game, key)))
    }

    /// A state is immutable: a copy shares it.
    fn __copy__(&self) -> State {
        State {
            game: self.game.clone(),
            state: self.state.clone(),
        }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> State {
        self.__copy__()
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
pub(crate) struct Game {
    pub(crate) inner: Arc<DynGame>,
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
    pub(crate) fn computer(&self, py: Python<'_>, ai: &str, fuzz: f64) -> PyResult<Computer> {
        let inner = self.inner.clone();
        let (ai, ai_name) = (ai.to_string(), ai.to_string());
        // Solving can take seconds: other Python threads run meanwhile.
        let player = py
            .detach(move || inner.computer(&ai, fuzz))
            .map_err(to_py)?;
        Ok(Computer {
            game: self.inner.clone(),
            player: Arc::new(player),
            plays: Plays::Named(ai_name),
            fuzz,
        })
    }

    /// Every position play from the start reaches, with its exact truth (the command line's
    /// `solve`, by enumeration); refused with the numbers where the game has more than
    /// `max_states` positions or no exact truth.
    #[pyo3(signature = (max_states = 50_000_000))]
    pub(crate) fn solve(&self, py: Python<'_>, max_states: usize) -> PyResult<Solution> {
        let inner = self.inner.clone();
        let solution = py.detach(move || inner.solve(max_states)).map_err(to_py)?;
        Ok(Solution {
            game: self.inner.clone(),
            inner: Arc::new(solution),
            max_states,
        })
    }

    fn __repr__(&self) -> String {
        format!("Game({})", self.inner.describe())
    }

    /// Games are equal where their names and parameters are (their states are then
    /// interchangeable).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Game>()
            .is_ok_and(|o| *o.get().inner == *self.inner)
    }

    fn __hash__(&self) -> u64 {
        py_hash(&*self.inner)
    }

    /// Pickled by the name and the parameters `make` was given: unpickled, it is
    /// `make(name, **params)` again, an equal game.
    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduced<'py, (&'static str, Bound<'py, PyAny>)> {
        let params = serde_json::to_value(self.inner.given_params())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok((
            restorer(py, "_restore_game")?,
            (self.inner.info().name, from_json(py, &params)?),
        ))
    }

    /// A game is immutable: a copy shares it.
    fn __copy__(&self) -> Game {
        Game {
            inner: self.inner.clone(),
        }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Game {
        self.__copy__()
    }
}

/// Unpickles a `Game` (its `__reduce__`): `make(name, **params)`.
#[pyfunction]
pub(crate) fn _restore_game(name: &str, params: &Bound<'_, PyDict>) -> PyResult<Game> {
    make(name, Some(params))
}

/// Unpickles a `State` (its `__reduce__`): the state `key` names in `game`.
#[pyfunction]
pub(crate) fn _restore_state(game: &Bound<'_, Game>, key: &str) -> PyResult<State> {
    game.get().read_state_key(key)
}

/// The players' names as column suffixes: unique (numbered where names repeat, as the
/// PettingZoo agents are).
pub(crate) fn solvedgym_agent_names(game: &DynGame) -> Vec<String> {
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

/// The registered games: name, aliases, summary and parameters (name -> help, default).
#[pyfunction]
pub(crate) fn games<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let mut out = Vec::new();
    for info in solvedgym::front::study::games() {
        let d = PyDict::new(py);
        d.set_item("name", info.name)?;
        d.set_item("aliases", info.aliases.to_vec())?;
        d.set_item("summary", info.summary)?;
        let params = PyDict::new(py);
        for (key, help, default) in info.params {
            let default = match default {
                Some(v) => from_json(py, &v)?,
                None => py.None().into_bound(py),
            };
            params.set_item(key, (help, default))?;
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
pub(crate) fn make(name: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<Game> {
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
pub(crate) fn value<'py>(py: Python<'py>, expression: &str) -> PyResult<Bound<'py, PyAny>> {
    let expression = expression.to_string();
    let analysis = py
        .detach(move || solvedgym::front::study::value(&expression))
        .map_err(PyValueError::new_err)?;
    let json = serde_json::to_value(&analysis).map_err(|e| PyValueError::new_err(e.to_string()))?;
    from_json(py, &json)
}
