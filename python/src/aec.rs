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
    pub(crate) state: Option<DynState>,
    pub(crate) rng: solvedgym::front::SgRng,
    /// Who acts (-4 at the end), worked out once per position.
    pub(crate) player: i64,
    /// The agents' names by seat, and seats by name.
    pub(crate) names: Vec<Py<PyString>>,
    pub(crate) seats: Py<PyDict>,
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
    /// The legal actions of the agent to act, for its mask.
    pub(crate) legal: Vec<u32>,
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
        if player >= 0 {
            self.legal = game.legal_actions(state).map_err(to_py)?;
            self.agent_selection = self.names[player as usize].clone_ref(py).into_any();
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
            rng: solvedgym::front::rng(0),
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
            self.rng = solvedgym::front::rng(seed as u64);
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
    /// `observe` is read as PettingZoo's own `last` reads it, by its truth: any truthy value
    /// observes (Tianshou's `PettingZooEnv` passes itself), a falsy one gives `None`.
    /// (Read from `*args, **kwargs`, because an explicit `None` must not observe, as the
    /// default does.)
    #[pyo3(signature = (*args, **kwargs))]
    fn last<'py>(
        &self,
        py: Python<'py>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let agent = self.agent_selection.bind(py);
        let keyword = match kwargs {
            Some(kwargs) if !kwargs.is_empty() => {
                let observe = kwargs.get_item("observe")?;
                if observe.is_none() || kwargs.len() > 1 {
                    let names: Vec<String> = kwargs.keys().iter().map(|k| k.to_string()).collect();
                    return Err(PyTypeError::new_err(format!(
                        "last() takes one argument, observe; got {}",
                        names.join(", ")
                    )));
                }
                observe
            }
            _ => None,
        };
        let observe = match (args.len(), keyword) {
            (0, None) => true,
            (1, None) => args.get_item(0)?.is_truthy()?,
            (0, Some(o)) => o.is_truthy()?,
            _ => {
                return Err(PyTypeError::new_err(
                    "last() takes one argument, observe (given twice or more)",
                ));
            }
        };
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
        self.state = other.state.clone();
        self.rng = other.rng.clone();
        self.player = other.player;
        self.names = other.names.iter().map(|n| n.clone_ref(py)).collect();
        self.seats = other.seats.bind(py).copy()?.unbind();
        self.agents = copy(&other.agents)?;
        self.agent_selection = other.agent_selection.clone_ref(py);
        self.rewards = copy(&other.rewards)?;
        self.cumulative_rewards = copy(&other.cumulative_rewards)?;
        self.terminations = copy(&other.terminations)?;
        self.truncations = copy(&other.truncations)?;
        self.infos = copy(&other.infos)?;
        self.skip_agent_selection = other.skip_agent_selection.as_ref().map(|a| a.clone_ref(py));
        self.legal = other.legal.clone();
        Ok(())
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
