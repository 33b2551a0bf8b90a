//! `Solution`: a solved game's positions, values and moves as arrays, and the exact evaluation
//! of a Python policy.

use super::*;

/// A positions x actions array of booleans.
pub(crate) type BoolTable<'py> = Bound<'py, PyArray2<bool>>;

/// Every reachable position of a game, numbered from 0 (the start), with its exact truth
/// (`Game.solve()`). Pickled as its game and bound, it is solved again where it is unpickled
/// (its pickle is about a hundred bytes; unpickling costs the solve: `__reduce__`).
#[pyclass(module = "solvedgym._solvedgym", frozen)]
pub(crate) struct Solution {
    pub(crate) game: Arc<DynGame>,
    /// Immutable once solved (its lazily tabulated opponents aside): copies share it.
    pub(crate) inner: Arc<DynSolution>,
    /// The bound it was solved under, which solving it again needs (the game's own size bound
    /// may exceed the positions it has).
    pub(crate) max_states: usize,
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
            Some(&*computer.get().player)
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

    /// Pickled as its game and the bound it was solved under, and solved again when unpickled:
    /// the solver numbers the positions in the same order every time, so the copy is the same
    /// solution, position for position. Its pickle is about a hundred bytes whatever the game,
    /// where its tables hold every position with its truth (Fox & Hounds 8x8: 709,868); the
    /// price is the solve, paid by each process it reaches (under a second for that game on
    /// 2 cores: docs/python.md, "Across processes"). A copy (`copy.copy`, `copy.deepcopy`)
    /// shares the solved tables.
    fn __reduce__<'py>(&self, py: Python<'py>) -> Reduced<'py, (Game, usize)> {
        let game = Game {
            inner: self.game.clone(),
        };
        Ok((restorer(py, "_restore_solution")?, (game, self.max_states)))
    }

    fn __copy__(&self) -> Solution {
        Solution {
            game: self.game.clone(),
            inner: self.inner.clone(),
            max_states: self.max_states,
        }
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Solution {
        self.__copy__()
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

/// Unpickles a `Solution` (its `__reduce__`): `game.solve(max_states)` again.
#[pyfunction]
pub(crate) fn _restore_solution(
    py: Python<'_>,
    game: &Bound<'_, Game>,
    max_states: usize,
) -> PyResult<Solution> {
    game.get().solve(py, max_states)
}
