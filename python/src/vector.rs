//! `VectorCore`: many environments of one game stepped in Rust (the vector env's engine).

use super::*;

type Rows<'py, T> = Bound<'py, PyArray2<T>>;
type Column<'py, T> = Bound<'py, PyArray1<T>>;

/// What one call of the vector environment returns: observations, rewards, terminated,
/// truncated, masks.
pub(crate) type VectorStep<'py> = (
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
pub(crate) struct VectorCore {
    /// A lock only for Python's rules (a class shared between threads); one caller at a time.
    pub(crate) inner: std::sync::Mutex<DynVector>,
    /// The game, for the messages about actions.
    pub(crate) game: Arc<DynGame>,
    pub(crate) num_envs: usize,
    pub(crate) observation_len: usize,
    pub(crate) num_actions: usize,
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
