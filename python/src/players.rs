//! The computer's players: `Computer` (random, greedy, perfect play, search, MCTS) and `Agent`
//! (a saved agent, `load_agent()`).

use super::*;

/// A computer player of one game (`Game.computer(...)`).
#[pyclass(module = "solvedgym._solvedgym", frozen)]
pub(crate) struct Computer {
    pub(crate) game: Arc<DynGame>,
    /// Immutable (its moves are drawn from the seed `choose` is given): copies share it.
    pub(crate) player: Arc<DynPlayer>,
    /// What it was made from, which makes it again in another process.
    pub(crate) plays: Plays,
    pub(crate) fuzz: f64,
}

/// What a [`Computer`] was made from.
pub(crate) enum Plays {
    /// Its name as `Game.computer` took it (`"optimal"`, `"depth=3"`, `"agent=PATH"`).
    Named(String),
    /// A saved agent opened in Python (`Agent.computer`): pickled with the agent's contents.
    Agent(Py<Agent>),
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

    /// Pickled as its game, what it plays and its fuzz, and made again when unpickled, as
    /// `Game.computer(ai, fuzz)` makes it (so `optimal` solves the game again there); one made
    /// by `Agent.computer` carries the agent (its file's contents), one named `agent=PATH`
    /// only the path.
    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduced<'py, (Game, Bound<'py, PyAny>, f64)> {
        use pyo3::IntoPyObjectExt;
        let plays = match &self.plays {
            Plays::Named(ai) => ai.into_bound_py_any(py)?,
            Plays::Agent(agent) => agent.bind(py).clone().into_any(),
        };
        let game = Game {
            inner: self.game.clone(),
        };
        Ok((restorer(py, "_restore_computer")?, (game, plays, self.fuzz)))
    }

    fn __copy__(&self, py: Python<'_>) -> Computer {
        Computer {
            game: self.game.clone(),
            player: self.player.clone(),
            plays: match &self.plays {
                Plays::Named(ai) => Plays::Named(ai.clone()),
                Plays::Agent(agent) => Plays::Agent(agent.clone_ref(py)),
            },
            fuzz: self.fuzz,
        }
    }

    fn __deepcopy__(&self, py: Python<'_>, _memo: &Bound<'_, PyAny>) -> Computer {
        self.__copy__(py)
    }
}

/// Unpickles a `Computer` (its `__reduce__`): `game.computer(ai, fuzz)`, or
/// `agent.computer(fuzz)` where `ai` is an `Agent`.
#[pyfunction]
pub(crate) fn _restore_computer(
    py: Python<'_>,
    game: &Bound<'_, Game>,
    ai: &Bound<'_, PyAny>,
    fuzz: f64,
) -> PyResult<Computer> {
    match ai.cast::<Agent>() {
        Ok(agent) => {
            if *agent.get().game != *game.get().inner {
                return Err(PyValueError::new_err(format!(
                    "a computer player of {} made from an agent of {}",
                    game.get().inner.describe(),
                    agent.get().game.describe()
                )));
            }
            Agent::computer(agent, py, fuzz)
        }
        Err(_) => game.get().computer(py, &ai.extract::<String>()?, fuzz),
    }
}

/// A saved agent (`solvedgym.load_agent(path)`): what its file says and its play, usable
/// wherever a policy is (`Solution.evaluate`, `Solution.best_response`, an environment's
/// `opponent`). Pickled by its file's contents, so it needs no file where it is unpickled.
#[pyclass(module = "solvedgym._solvedgym", frozen)]
pub(crate) struct Agent {
    /// Immutable: copies share it.
    pub(crate) inner: Arc<DynAgent>,
    pub(crate) game: Arc<DynGame>,
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
    fn computer(slf: &Bound<'_, Self>, py: Python<'_>, fuzz: f64) -> PyResult<Computer> {
        let this = slf.get();
        let (game, spec) = (this.game.clone(), this.inner.spec());
        let player = py
            .detach(move || game.computer(&spec, fuzz))
            .map_err(to_py)?;
        Ok(Computer {
            game: this.game.clone(),
            player: Arc::new(player),
            plays: Plays::Agent(slf.clone().unbind()),
            fuzz,
        })
    }

    /// Pickled by its file's contents (as they were when it was opened) and the path it was
    /// opened from, so that it needs no file where it is unpickled: there it is opened from
    /// that path where the file still holds those very bytes (the same machine: `path` and
    /// `spec` stay the same), else from a copy written to the temporary folder
    /// (`solvedgym-agents/`), which is kept for environments that open `spec` later.
    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduced<'py, (String, Bound<'py, PyBytes>)> {
        Ok((
            restorer(py, "_restore_agent")?,
            (self.path(), PyBytes::new(py, &self.inner.contents)),
        ))
    }

    fn __copy__(&self) -> Agent {
        Agent {
            inner: self.inner.clone(),
            game: self.game.clone(),
        }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Agent {
        self.__copy__()
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
            .detach(move || solvedgym::front::study::evaluate_agent(&path, progress))
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
pub(crate) fn load_agent(py: Python<'_>, path: std::path::PathBuf) -> PyResult<Agent> {
    let inner = py.detach(move || DynAgent::load(&path)).map_err(to_py)?;
    Ok(Agent {
        game: Arc::new(inner.game.clone()),
        inner: Arc::new(inner),
    })
}

/// Unpickles an `Agent` (its `__reduce__`): the agent whose file held `contents`, opened from
/// `path` where that file still holds them, else from a copy in the temporary folder.
#[pyfunction]
pub(crate) fn _restore_agent(
    py: Python<'_>,
    path: std::path::PathBuf,
    contents: &Bound<'_, PyBytes>,
) -> PyResult<Agent> {
    let contents = contents.as_bytes().to_vec();
    let inner = py
        .detach(move || DynAgent::restore(&path, &contents))
        .map_err(to_py)?;
    Ok(Agent {
        game: Arc::new(inner.game.clone()),
        inner: Arc::new(inner),
    })
}
