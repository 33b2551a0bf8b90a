//! `AecBase`: PettingZoo's AEC protocol over one game (the PettingZoo env's engine).

use super::*;

/// The episode of a PettingZoo AEC environment and its bookkeeping, in Rust so that the
/// protocol's calls per move (`last`, `observe`, `step`) are one call each:
/// `solvedgym.pettingzoo.SolvedGymAEC` derives from it and from `pettingzoo.AECEnv`. It holds
/// the position, the generator that draws chance events, and the dicts PettingZoo reads
/// (`rewards`, `_cumulative_rewards`, `terminations`, `truncations`, `infos`), `agents` and
/// `agent_selection` as attributes; the rest of the protocol is `AECEnv`'s own.
#[pyclass(module = "solvedgym._solvedgym", subclass)]
pub(crate) struct AecBase {
    pub(crate) game: Option<Arc<DynGame>>,
    /// The episode: the core every environment steps (`solvedgym::front::DynAec`).
    pub(crate) engine: Option<DynAec>,
    /// The agents' names by seat, and seats by name.
    pub(crate) names: Vec<Py<PyString>>,
    pub(crate) seats: Py<PyDict>,
    /// Every agent to 0.0, and to False: what `reset` copies.
    zeros: Py<PyDict>,
    falses: Py<PyDict>,
    #[pyo3(get, set)]
    pub(crate) agents: Py<PyAny>,
    #[pyo3(get, set)]
    pub(crate) agent_selection: Py<PyAny>,
    #[pyo3(get, set)]
    pub(crate) rewards: Py<PyAny>,
    #[pyo3(get, set, name = "_cumulative_rewards")]
    pub(crate) cumulative_rewards: Py<PyAny>,
    #[pyo3(get, set)]
    pub(crate) terminations: Py<PyAny>,
    #[pyo3(get, set)]
    pub(crate) truncations: Py<PyAny>,
    #[pyo3(get, set)]
    pub(crate) infos: Py<PyAny>,
    /// PettingZoo's `_skip_agent_selection`: the agent selected when the first of several
    /// agents that are done was stepped.
    #[pyo3(get, set, name = "_skip_agent_selection")]
    pub(crate) skip_agent_selection: Option<Py<PyAny>>,
}

fn not_contiguous(_: numpy::NotContiguousError) -> PyErr {
    PyValueError::new_err("an array that is not contiguous")
}

/// `last(observe)`'s argument, read by its truth as PettingZoo's own `last` reads it: any
/// truthy value observes (Tianshou's `PettingZooEnv` passes the environment itself), a falsy
/// one (`None` included) does not.
pub(crate) struct Truth(bool);

impl<'a, 'py> FromPyObject<'a, 'py> for Truth {
    type Error = PyErr;
    fn extract(obj: pyo3::Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        obj.is_truthy().map(Truth)
    }
}

/// PettingZoo's `agent_iter(max_iter)`: each iteration over it yields the agent to act until
/// every agent is done or `max_iter` agents were yielded (`AECIterable`, in Rust).
#[pyclass(module = "solvedgym._solvedgym")]
pub(crate) struct AgentIterable {
    env: Py<AecBase>,
    max_iter: u64,
}

#[pymethods]
impl AgentIterable {
    fn __iter__(&self, py: Python<'_>) -> AgentIterator {
        AgentIterator {
            env: self.env.clone_ref(py),
            left: self.max_iter,
        }
    }
}

/// One iteration of [`AgentIterable`] (`AECIterator`).
#[pyclass(module = "solvedgym._solvedgym")]
pub(crate) struct AgentIterator {
    env: Py<AecBase>,
    left: u64,
}

#[pymethods]
impl AgentIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let env = self.env.borrow(py);
        let agents = env.agents.bind(py);
        let any = match agents.cast::<PyList>() {
            Ok(list) => !list.is_empty(),
            Err(_) => agents.is_truthy()?,
        };
        if !any || self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        Ok(Some(env.agent_selection.clone_ref(py)))
    }
}

impl AecBase {
    fn engine(&self) -> PyResult<(&Arc<DynGame>, &DynAec)> {
        match (&self.game, &self.engine) {
            (Some(g), Some(e)) => Ok((g, e)),
            _ => Err(PyValueError::new_err(
                "the environment has no game: call _bind(game, agents) first",
            )),
        }
    }

    /// After a move: the next agent, or the end with everyone's reward.
    fn settle(&mut self, py: Python<'_>) -> PyResult<()> {
        let engine = self.engine()?.1;
        if let Some(player) = engine.player() {
            self.agent_selection = self.names[player].clone_ref(py).into_any();
            return Ok(());
        }
        let returns = engine
            .returns()
            .unwrap_or_else(|| vec![0.0; self.names.len()]);
        let truncated = engine.truncated();
        let (rewards, cumulative) = (self.rewards.bind(py), self.cumulative_rewards.bind(py));
        let (terminated, truncated) = (
            PyBool::new(py, !truncated).to_owned().into_any(),
            PyBool::new(py, truncated).to_owned().into_any(),
        );
        for (seat, name) in self.names.iter().enumerate() {
            let name = name.bind(py);
            let present = match rewards.cast::<PyDict>() {
                Ok(d) => d.contains(name)?,
                Err(_) => rewards.contains(name)?,
            };
            if !present {
                continue;
            }
            store(rewards, name, &PyFloat::new(py, returns[seat]).into_any())?;
            let before: f64 = lookup(cumulative, name)?.extract()?;
            store(
                cumulative,
                name,
                &PyFloat::new(py, before + returns[seat]).into_any(),
            )?;
            store(self.terminations.bind(py), name, &terminated)?;
            store(self.truncations.bind(py), name, &truncated)?;
        }
        Ok(())
    }

    /// The seat of agent `agent` (its name as the environment gave it, or an equal string).
    fn seat_of(&self, py: Python<'_>, agent: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Some(seat) = self.names.iter().position(|n| n.is(agent)) {
            return Ok(seat);
        }
        match self.seats.bind(py).get_item(agent)? {
            Some(seat) => seat.extract(),
            None => Err(PyValueError::new_err(format!(
                "no agent {}: the agents are {}",
                agent.repr()?,
                self.names
                    .iter()
                    .map(|n| n.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
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
            let dict = dict.bind(py);
            match dict.cast::<PyDict>() {
                Ok(d) => d.del_item(agent)?,
                Err(_) => dict.del_item(agent)?,
            }
        }
        let agents = self.agents.bind(py);
        let place = match agents.cast::<PyList>() {
            Ok(list) => list.iter().position(|a| a.is(agent)),
            Err(_) => None,
        };
        match (place, agents.cast::<PyList>()) {
            (Some(i), Ok(list)) => list.del_item(i)?,
            _ => {
                agents.call_method1(pyo3::intern!(py, "remove"), (agent,))?;
            }
        }
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
        let zero = 0i32.into_pyobject(py)?.into_any();
        match rewards.cast::<PyDict>() {
            Ok(d) => {
                for key in d.keys() {
                    d.set_item(key, &zero)?;
                }
            }
            Err(_) => {
                for key in rewards.try_iter()?.collect::<PyResult<Vec<_>>>()? {
                    rewards.set_item(key, &zero)?;
                }
            }
        }
        Ok(())
    }

    fn flag(&self, py: Python<'_>, dict: &Py<PyAny>, agent: &Bound<'_, PyAny>) -> PyResult<bool> {
        lookup(dict.bind(py), agent)?.extract()
    }
}

/// `mapping[key] = value`, as [`lookup`] reads.
fn store<'py>(
    mapping: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
    value: &Bound<'py, PyAny>,
) -> PyResult<()> {
    match mapping.cast::<PyDict>() {
        Ok(dict) => dict.set_item(key, value),
        Err(_) => mapping.set_item(key, value),
    }
}

/// `mapping[key]`: one of PettingZoo's dicts, read as a dict where it is one (they are, unless
/// a caller put another mapping in its place).
fn lookup<'py>(
    mapping: &Bound<'py, PyAny>,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    match mapping.cast::<PyDict>() {
        Ok(dict) => dict
            .get_item(key)?
            .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(key.clone().unbind())),
        Err(_) => mapping.get_item(key),
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
            engine: None,
            names: Vec::new(),
            seats: PyDict::new(py).unbind(),
            zeros: PyDict::new(py).unbind(),
            falses: PyDict::new(py).unbind(),
            agents: PyList::empty(py).into_any().unbind(),
            agent_selection: py.None(),
            rewards: empty(),
            cumulative_rewards: empty(),
            terminations: empty(),
            truncations: empty(),
            infos: empty(),
            skip_agent_selection: None,
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
        let (seats, zeros, falses) = (PyDict::new(py), PyDict::new(py), PyDict::new(py));
        for (i, name) in self.names.iter().enumerate() {
            seats.set_item(name, i)?;
            zeros.set_item(name, 0.0)?;
            falses.set_item(name, false)?;
        }
        self.seats = seats.unbind();
        (self.zeros, self.falses) = (zeros.unbind(), falses.unbind());
        self.engine = Some(py.detach(|| DynAec::new(&g, 0)));
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
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(seed) => {
                let seed: i128 = seed.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "seed={}: a seed is an integer",
                        seed.repr().map(|r| r.to_string()).unwrap_or_default()
                    ))
                })?;
                if !(0..=i128::from(u64::MAX)).contains(&seed) {
                    return Err(PyValueError::new_err(format!(
                        "seed={seed}: a seed is a non-negative integer below 2^64"
                    )));
                }
                Some(seed as u64)
            }
            None => None,
        };
        self.engine()?;
        if let Some(engine) = self.engine.as_mut() {
            engine.reset(seed);
        }
        // Fresh dicts every episode (a caller may keep the last episode's), copied from the two
        // made at `_bind`: a copy of a small dict costs a fraction of filling one.
        let (zeros, falses) = (self.zeros.bind(py), self.falses.bind(py));
        let infos = PyDict::new(py);
        for name in &self.names {
            infos.set_item(name, PyDict::new(py))?;
        }
        self.agents = PyList::new(py, &self.names)?.into_any().unbind();
        self.rewards = zeros.copy()?.into_any().unbind();
        self.cumulative_rewards = zeros.copy()?.into_any().unbind();
        self.terminations = falses.copy()?.into_any().unbind();
        self.truncations = falses.copy()?.into_any().unbind();
        self.infos = infos.into_any().unbind();
        self.skip_agent_selection = None;
        self.agent_selection = self.names[0].clone_ref(py).into_any();
        self.settle(py)
    }

    /// `agent`'s observation as PettingZoo's classic games give it: a dict of `observation`
    /// (float32) and `action_mask` (int8; zeros unless `agent` is to act).
    fn observe<'py>(
        &self,
        py: Python<'py>,
        agent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (game, engine) = self.engine()?;
        let seat = self.seat_of(py, agent)?;
        let observation = PyArray1::<f32>::zeros(py, game.observation_len(), false);
        let mask = PyArray1::<i8>::zeros(py, game.num_distinct_actions(), false);
        // SAFETY: both arrays were made just now, contiguous, and nothing else holds them yet:
        // no other view of their memory exists while it is written (and so no need of the
        // numpy crate's borrow tracking, a tenth of this call's time).
        unsafe {
            engine.observe(seat, observation.as_slice_mut().map_err(not_contiguous)?);
            if engine.player() == Some(seat) {
                let m = mask.as_slice_mut().map_err(not_contiguous)?;
                for &a in engine.legal_actions() {
                    m[a as usize] = 1;
                }
            }
        }
        let out = PyDict::new(py);
        out.set_item(pyo3::intern!(py, "observation"), observation)?;
        out.set_item(pyo3::intern!(py, "action_mask"), mask)?;
        Ok(out)
    }

    /// The acting agent's view: (observation, cumulative reward, terminated, truncated, info).
    /// `observe` is read by its truth, as PettingZoo's own `last` reads it: any truthy value
    /// observes (Tianshou's `PettingZooEnv` passes itself), a falsy one (`None` too) gives
    /// `None` for the observation.
    #[pyo3(signature = (observe = Truth(true)))]
    fn last<'py>(&self, py: Python<'py>, observe: Truth) -> PyResult<Bound<'py, PyTuple>> {
        let agent = self.agent_selection.bind(py);
        let observation = if observe.0 {
            self.observe(py, agent)?.into_any()
        } else {
            py.None().into_bound(py)
        };
        PyTuple::new(
            py,
            [
                observation,
                lookup(self.cumulative_rewards.bind(py), agent)?,
                lookup(self.terminations.bind(py), agent)?,
                lookup(self.truncations.bind(py), agent)?,
                lookup(self.infos.bind(py), agent)?,
            ],
        )
    }

    /// PettingZoo's `agent_iter(max_iter=2**63)`: the agent to act, until every agent is done
    /// or `max_iter` agents were yielded.
    #[pyo3(signature = (max_iter = 1 << 63))]
    fn agent_iter(slf: &Bound<'_, Self>, max_iter: u64) -> AgentIterable {
        AgentIterable {
            env: slf.clone().unbind(),
            max_iter,
        }
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
        let game = this.engine()?.0.clone();
        let action = action_number(action, &game)?;
        if let Some(engine) = this.engine.as_mut() {
            engine.step(action).map_err(to_py)?;
        }
        // PettingZoo clears the mover's cumulative reward; it is nearly always 0 already (the
        // rewards come at the end), and a look costs a third of a write.
        let cumulative = this.cumulative_rewards.bind(py);
        let zero = lookup(cumulative, agent)
            .ok()
            .and_then(|v| v.extract::<f64>().ok())
            .is_some_and(|v| v == 0.0 && v.is_sign_positive());
        if !zero {
            store(cumulative, agent, &PyFloat::new(py, 0.0).into_any())?;
        }
        this.settle(py)
    }

    /// Makes this environment's episode a copy of `other`'s, for `copy.deepcopy`: the position,
    /// the generator (so that both draw the same chance events from here), and deep copies of
    /// PettingZoo's dicts and agent list (`memo` as `copy.deepcopy` keeps it).
    fn _copy_engine(
        &mut self,
        py: Python<'_>,
        other: PyRef<'_, AecBase>,
        memo: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let deepcopy = py.import("copy")?.getattr("deepcopy")?;
        let copy = |o: &Py<PyAny>| -> PyResult<Py<PyAny>> {
            Ok(deepcopy.call1((o.bind(py), memo))?.unbind())
        };
        self.game = other.game.clone();
        self.engine = other.engine.clone();
        self.names = other.names.iter().map(|n| n.clone_ref(py)).collect();
        self.seats = other.seats.bind(py).copy()?.unbind();
        self.zeros = other.zeros.clone_ref(py);
        self.falses = other.falses.clone_ref(py);
        self.agents = copy(&other.agents)?;
        self.agent_selection = other.agent_selection.clone_ref(py);
        self.rewards = copy(&other.rewards)?;
        self.cumulative_rewards = copy(&other.cumulative_rewards)?;
        self.terminations = copy(&other.terminations)?;
        self.truncations = copy(&other.truncations)?;
        self.infos = copy(&other.infos)?;
        self.skip_agent_selection = other.skip_agent_selection.as_ref().map(|a| a.clone_ref(py));
        Ok(())
    }

    /// The episode as a pickle keeps it: (the position's exact key, plies played, the chance
    /// generator's state as JSON), what `_resume_engine` reads.
    fn _engine_state(&self) -> PyResult<(String, u32, String)> {
        let (game, engine) = self.engine()?;
        let (state, ply, rng) = engine.export();
        let key = game.write_state_key(&state).map_err(to_py)?;
        let rng = serde_json::to_string(&rng)
            .map_err(|e| PyValueError::new_err(format!("the generator: {e}")))?;
        Ok((key, ply, rng))
    }

    /// Goes on from an `_engine_state` of an environment of the same game (the dicts are
    /// the caller's to restore).
    fn _resume_engine(&mut self, key: &str, ply: u32, rng: &str) -> PyResult<()> {
        let game = self.engine()?.0.clone();
        let state = game.read_state_key(key).map_err(to_py)?;
        let rng: solvedgym::front::SgRng = serde_json::from_str(rng).map_err(|e| {
            PyValueError::new_err(format!(
                "the saved generator {}: {e}",
                quote_short(format!("{rng:?}"), rng, 60)
            ))
        })?;
        if let Some(engine) = self.engine.as_mut() {
            engine.resume(&state, ply, rng).map_err(to_py)?;
        }
        Ok(())
    }

    /// The position now.
    #[getter]
    fn state(&self) -> PyResult<State> {
        let (game, engine) = self.engine()?;
        Ok(State {
            game: game.clone(),
            state: engine.state(),
        })
    }
}
