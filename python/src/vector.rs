//! `VectorCore`: environments of one game stepped in Rust, the engine of both Gymnasium
//! environments (the single one is a `VectorCore` of one environment without autoreset).

use super::*;

type Rows<'py, T> = Bound<'py, PyArray2<T>>;
type Column<'py, T> = Bound<'py, PyArray1<T>>;

/// What one call of the vector environment returns: observations, rewards, terminated,
/// truncated, masks, illegal, and the final observations (same-step mode) or None.
pub(crate) type VectorStep<'py> = (
    Rows<'py, f32>,
    Column<'py, f64>,
    Column<'py, bool>,
    Column<'py, bool>,
    Rows<'py, bool>,
    Column<'py, bool>,
    Option<Rows<'py, f32>>,
);

/// A Python callable at the other seats: `f(game, state)`, or `f(observation, mask)` (the
/// seat's own observation, float32, and its legal actions, bool) where it sees observations.
/// The exception it raises is kept for the call that asked, which raises it.
struct CallableOpponent {
    callable: Py<PyAny>,
    game: Py<Game>,
    sees_observation: bool,
    raised: std::sync::Mutex<Option<PyErr>>,
}

impl ExternalPlayer for CallableOpponent {
    fn choose(&self, game: &DynGame, state: &DynState, seat: usize) -> Result<i64, FrontError> {
        Python::attach(|py| {
            let answer = if self.sees_observation {
                let observation = game.observation(state, seat as i64)?;
                let mut mask = vec![false; game.num_distinct_actions()];
                for a in game.legal_actions(state)? {
                    mask[a as usize] = true;
                }
                self.callable.call1(
                    py,
                    (
                        PyArray1::from_vec(py, observation),
                        PyArray1::from_vec(py, mask),
                    ),
                )
            } else {
                let wrapped = State {
                    game: self.game.get().inner.clone(),
                    state: state.clone(),
                };
                Py::new(py, wrapped)
                    .and_then(|s| self.callable.call1(py, (self.game.clone_ref(py), s)))
            };
            match answer.and_then(|a| action_number(a.bind(py), game)) {
                Ok(a) => Ok(a),
                Err(e) => {
                    *self.raised.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    Err(FrontError::Refused("the opponent raised".into()))
                }
            }
        })
    }
}

/// Environments of one game stepped in one call (`solvedgym.vector.SolvedGymVectorEnv` and
/// `solvedgym.gym.SolvedGymEnv` wrap it): the learner plays `seat`, the opponent (a computer
/// player by name, or a callable) every other seat, chance is drawn inside; `autoreset` is
/// `"next_step"`, `"same_step"` or `"off"`.
#[pyclass(module = "solvedgym._solvedgym")]
pub(crate) struct VectorCore {
    /// A lock only for Python's rules (a class shared between threads); one caller at a time.
    pub(crate) inner: std::sync::Mutex<DynVector>,
    /// The game, for the messages about actions.
    pub(crate) game: Arc<DynGame>,
    pub(crate) num_envs: usize,
    pub(crate) observation_len: usize,
    pub(crate) num_actions: usize,
    /// The callable opponent, if the opponent is one.
    callable: Option<Arc<CallableOpponent>>,
}

impl VectorCore {
    fn buffers<'py>(&self, py: Python<'py>, finals: bool) -> VectorStep<'py> {
        let n = self.num_envs;
        (
            PyArray2::zeros(py, [n, self.observation_len], false),
            PyArray1::zeros(py, n, false),
            PyArray1::zeros(py, n, false),
            PyArray1::zeros(py, n, false),
            PyArray2::zeros(py, [n, self.num_actions], false),
            PyArray1::zeros(py, n, false),
            finals.then(|| PyArray2::zeros(py, [n, self.observation_len], false)),
        )
    }

    /// The environments, never waited for: a call that releases the GIL holds them, and a
    /// thread that waited for them holding the GIL would wait for good (the holder needs the
    /// GIL back to finish). The calls that release it take the class mutably, so that Python's
    /// borrow check refuses another thread's call first; this refuses whatever gets past it.
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, DynVector>> {
        self.inner.try_lock().map_err(|e| match e {
            std::sync::TryLockError::Poisoned(_) => {
                PyValueError::new_err("a step of this vector panicked before")
            }
            std::sync::TryLockError::WouldBlock => pyo3::exceptions::PyRuntimeError::new_err(
                "the vector environment is in a call from another thread: one thread at a time",
            ),
        })
    }

    /// Runs `f` on the buffers' memory, with the GIL released unless a callable plays.
    fn fill<'py>(
        &self,
        py: Python<'py>,
        f: impl FnOnce(&mut DynVector, &mut Batch<'_>) -> Result<(), FrontError> + Send,
    ) -> PyResult<VectorStep<'py>> {
        let mut inner = self.lock()?;
        let out = self.buffers(py, inner.autoreset() == Autoreset::SameStep);
        if let Some(c) = &self.callable {
            c.raised.lock().unwrap_or_else(|e| e.into_inner()).take();
        }
        let result = {
            let contiguous = |_| PyValueError::new_err("an array that is not contiguous");
            // SAFETY: the buffers were made just now, contiguous, and nothing else holds them
            // until they are returned: no other view of their memory exists while it is written
            // (and so no need of the numpy crate's borrow tracking: it was 70 % of a step of one).
            let mut batch = unsafe {
                Batch {
                    observations: out.0.as_slice_mut().map_err(contiguous)?,
                    rewards: out.1.as_slice_mut().map_err(contiguous)?,
                    terminated: out.2.as_slice_mut().map_err(contiguous)?,
                    truncated: out.3.as_slice_mut().map_err(contiguous)?,
                    masks: out.4.as_slice_mut().map_err(contiguous)?,
                    illegal: out.5.as_slice_mut().map_err(contiguous)?,
                    final_observations: match out.6.as_ref() {
                        Some(f) => Some(f.as_slice_mut().map_err(contiguous)?),
                        None => None,
                    },
                }
            };
            let inner = &mut *inner;
            if self.callable.is_some() {
                f(inner, &mut batch)
            } else {
                py.detach(|| f(inner, &mut batch))
            }
        };
        if let Err(e) = result {
            let raised = self
                .callable
                .as_ref()
                .and_then(|c| c.raised.lock().unwrap_or_else(|e| e.into_inner()).take());
            return Err(raised.unwrap_or_else(|| to_py(e)));
        }
        Ok(out)
    }
}

#[pymethods]
impl VectorCore {
    #[new]
    #[pyo3(signature = (game, num_envs, seat, opponent, fuzz = 0.0, illegal_loses = false, autoreset = "next_step", sees_observation = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, Game>,
        num_envs: usize,
        seat: i64,
        opponent: &Bound<'_, PyAny>,
        fuzz: f64,
        illegal_loses: bool,
        autoreset: &str,
        sees_observation: bool,
    ) -> PyResult<Self> {
        let g = game.get().inner.clone();
        let autoreset = match autoreset {
            "next_step" => Autoreset::NextStep,
            "same_step" => Autoreset::SameStep,
            "off" => Autoreset::Off,
            other => {
                return Err(PyValueError::new_err(format!(
                    "autoreset {}: 'next_step', 'same_step' or 'off'",
                    quote_short(format!("{other:?}"), other, 40)
                )));
            }
        };
        let (inner, callable) = if let Ok(name) = opponent.cast::<PyString>() {
            let name = name.to_cow()?.into_owned();
            let inner = py
                .detach(|| {
                    DynVector::new(
                        &g,
                        num_envs,
                        seat,
                        OpponentSpec::Computer(&name),
                        fuzz,
                        illegal_loses,
                        autoreset,
                    )
                })
                .map_err(to_py)?;
            (inner, None)
        } else if opponent.is_callable() {
            let callable = Arc::new(CallableOpponent {
                callable: opponent.clone().unbind(),
                game: game.clone().unbind(),
                sees_observation,
                raised: std::sync::Mutex::new(None),
            });
            let inner = DynVector::new(
                &g,
                num_envs,
                seat,
                OpponentSpec::External(callable.clone()),
                fuzz,
                illegal_loses,
                autoreset,
            )
            .map_err(to_py)?;
            (inner, Some(callable))
        } else {
            return Err(PyTypeError::new_err(format!(
                "opponent: a computer player by name ('random', 'optimal', 'greedy', 'depth=3', \
                 'agent=PATH') or a callable, not {}",
                shown(opponent)
            )));
        };
        Ok(VectorCore {
            num_envs: inner.num_envs(),
            inner: std::sync::Mutex::new(inner),
            observation_len: g.observation_len(),
            game: g.clone(),
            num_actions: g.num_distinct_actions(),
            callable,
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }

    /// Lets a step take up to `threads` threads (None: the process's cores), each with 2,048
    /// environments or more; the results are the same whatever the number.
    #[pyo3(signature = (threads = None))]
    fn set_threads(&self, threads: Option<usize>) -> PyResult<()> {
        if threads == Some(0) {
            return Err(PyValueError::new_err("threads=0: at least 1 (or None)"));
        }
        self.lock()?.set_threads(threads);
        Ok(())
    }

    /// The threads a step takes.
    #[getter]
    fn threads(&self) -> PyResult<usize> {
        Ok(self.lock()?.threads())
    }

    /// Starts environments afresh: environment i with seeds[i], or with the next episode of
    /// its seed where that is None; only where `mask` is True when it is given (the others
    /// keep their episode and their observation). Returns what `step` returns.
    #[pyo3(signature = (seeds, mask = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seeds: &Bound<'py, PyAny>,
        mask: Option<Vec<bool>>,
    ) -> PyResult<VectorStep<'py>> {
        if seeds.is_instance_of::<PyString>() || seeds.is_instance_of::<pyo3::types::PyBytes>() {
            return Err(PyTypeError::new_err(format!(
                "seeds: a list of whole numbers or None, not {}",
                shown(seeds)
            )));
        }
        let seeds: Vec<Option<u64>> = seeds.extract()?;
        self.fill(py, move |v, batch| v.reset(&seeds, mask.as_deref(), batch))
    }

    /// Plays actions[i] in environment i: (observations float32 (n, observation_size), rewards
    /// float64 (n,), terminated bool (n,), truncated bool (n,), masks bool (n, actions),
    /// illegal bool (n,), final observations float32 (n, observation_size) in the same-step
    /// mode or None).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<VectorStep<'py>> {
        let array = actions.cast::<PyArray1<i64>>().ok();
        // SAFETY: read (copied) at once with the GIL held, before the GIL is released.
        let actions: Vec<i64> = match array.as_ref().map(|a| unsafe { a.as_slice() }) {
            Some(Ok(contiguous)) => contiguous.to_vec(),
            Some(Err(_)) => array.map_or_else(Vec::new, |a| a.readonly().as_array().to_vec()),
            None => {
                let mut out = Vec::new();
                for a in actions.try_iter()? {
                    out.push(action_number(&a?, &self.game)?);
                }
                out
            }
        };
        self.fill(py, move |v, batch| v.step(&actions, batch))
    }

    /// A uniformly random legal action of every environment, int64 `(n,)` (0 where an
    /// episode is over): draw `draw` of a stream apart from the environments' own, so that
    /// their episodes are the same whether or not a caller samples.
    fn sample_legal<'py>(&mut self, py: Python<'py>, draw: u64) -> PyResult<Column<'py, i64>> {
        let out = PyArray1::zeros(py, self.num_envs, false);
        {
            // SAFETY: made just now, contiguous, held by nothing else until it is returned.
            let actions = unsafe { out.as_slice_mut() }
                .map_err(|_| PyValueError::new_err("an array that is not contiguous"))?;
            let mut inner = self.lock()?;
            let inner = &mut *inner;
            py.detach(|| inner.sample_legal(draw, actions))
                .map_err(to_py)?;
        }
        Ok(out)
    }

    /// The position of environment `i`.
    fn state(&self, i: usize) -> PyResult<State> {
        let state = self.lock()?.state(i).map_err(to_py)?;
        Ok(State {
            game: self.game.clone(),
            state,
        })
    }

    /// Every environment's episode as its moves: a list of (seed, episode or None, moves,
    /// the callable's answers, ended, broken), what `restore` plays again.
    #[allow(clippy::type_complexity)]
    fn snapshot(&self) -> PyResult<Vec<(u64, Option<u64>, Vec<i64>, Vec<i64>, bool, bool)>> {
        Ok(self
            .lock()?
            .snapshot()
            .into_iter()
            .map(|r| (r.seed, r.episode, r.moves, r.answers, r.ended, r.broken))
            .collect())
    }

    /// Plays a `snapshot` of environments of the same game, seat and opponents again.
    #[allow(clippy::type_complexity)]
    fn restore(
        &mut self,
        py: Python<'_>,
        records: Vec<(u64, Option<u64>, Vec<i64>, Vec<i64>, bool, bool)>,
    ) -> PyResult<()> {
        let records: Vec<EpisodeRecord> = records
            .into_iter()
            .map(
                |(seed, episode, moves, answers, ended, broken)| EpisodeRecord {
                    seed,
                    episode,
                    moves,
                    answers,
                    ended,
                    broken,
                },
            )
            .collect();
        let mut inner = self.lock()?;
        let inner = &mut *inner;
        if self.callable.is_some() {
            inner.restore(&records).map_err(to_py)
        } else {
            py.detach(|| inner.restore(&records)).map_err(to_py)
        }
    }
}

/// What SB3 reads of a same-step `VectorCore` step (`solvedgym.sb3`'s `step_wait`): the dones
/// (terminated or truncated) and one info dict an environment, as `DummyVecEnv` gives them:
/// where an episode ended, `"TimeLimit.truncated"` (cut off rather than ended), a copy of its
/// last observation as `"terminal_observation"`, and `"illegal": True` where an illegal action
/// lost; empty dicts elsewhere. In Rust, because in Python the dicts cost more than the step.
#[pyfunction]
pub(crate) fn _sb3_infos<'py>(
    py: Python<'py>,
    terminated: &Bound<'py, PyArray1<bool>>,
    truncated: &Bound<'py, PyArray1<bool>>,
    illegal: &Bound<'py, PyArray1<bool>>,
    finals: &Bound<'py, PyArray2<f32>>,
) -> PyResult<(Column<'py, bool>, Bound<'py, PyList>)> {
    use numpy::PyUntypedArrayMethods;
    let contiguous = |_| PyValueError::new_err("an array that is not contiguous");
    let (n, width) = (terminated.shape()[0], finals.shape()[1]);
    let (u, lost, rows) = (truncated.shape()[0], illegal.shape()[0], finals.shape()[0]);
    if (u, lost, rows) != (n, n, n) {
        return Err(PyValueError::new_err(format!(
            "{n} terminated, {u} truncated, {lost} illegal and {rows} final observations: one \
             each an environment"
        )));
    }
    let dones = PyArray1::<bool>::zeros(py, n, false);
    let infos = PyList::empty(py);
    // SAFETY: the inputs are read with the GIL held and nothing of ours writes them meanwhile;
    // `dones` was made just now and nothing else holds it until it is returned.
    unsafe {
        let (t, u) = (
            terminated.as_slice().map_err(contiguous)?,
            truncated.as_slice().map_err(contiguous)?,
        );
        let (lost, rows) = (
            illegal.as_slice().map_err(contiguous)?,
            finals.as_slice().map_err(contiguous)?,
        );
        let done = dones.as_slice_mut().map_err(contiguous)?;
        for i in 0..n {
            let info = PyDict::new(py);
            if t[i] || u[i] {
                done[i] = true;
                info.set_item(pyo3::intern!(py, "TimeLimit.truncated"), u[i] && !t[i])?;
                let row = &rows[i * width..(i + 1) * width];
                info.set_item(
                    pyo3::intern!(py, "terminal_observation"),
                    PyArray1::from_slice(py, row),
                )?;
                if lost[i] {
                    info.set_item(pyo3::intern!(py, "illegal"), true)?;
                }
            }
            infos.append(info)?;
        }
    }
    Ok((dones, infos))
}
