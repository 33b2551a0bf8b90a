//! Environments over any [`Game`], following Gymnasium and PettingZoo conventions.
//!
//! - [`Env`]: the single-agent view. The learner holds one seat; every other seat is played by
//!   a [`Policy`] and chance events are drawn by the environment, so `step` returns when it is
//!   the learner's turn again or the game is over (Gymnasium's `reset`/`step`).
//! - [`AecEnv`]: the turn-based multi-agent view (PettingZoo's AEC API): `agent_selection`
//!   names who acts, `last` gives that agent's view, `step` acts for it; chance events are
//!   resolved by the environment.
//!
//! Observations are the game states themselves (tabular learners key on them);
//! [`Env::observation_tensor`] gives the game's numeric encoding for function approximation.
//! Rewards are zero until the end, then each seat's return; every seat receives its return,
//! including seats that did not make the last move.

use rand::SeedableRng;
use thiserror::Error;

use crate::core::game::{Action, Game, IllegalAction, Player, Returns, Turn};
use crate::core::policy::Policy;
use crate::core::random::SgRng;

#[derive(Debug, Error, Clone, PartialEq)]
pub enum EnvError {
    #[error(transparent)]
    Illegal(#[from] IllegalAction),
    #[error("the episode is over; call reset() before step()")]
    EpisodeOver,
    #[error("there is no legal action number {index} (counting from 0): {count} are legal")]
    NoSuchPlace { index: usize, count: usize },
    #[error("seat {seat} does not exist: the game has {players} players")]
    NoSuchSeat { seat: Player, players: usize },
    #[error(
        "Env::new takes one opponent, for two-player games; this game has {players} players: use Env::with_opponents"
    )]
    NotTwoPlayer { players: usize },
    #[error("give one policy for each of the {players} seats except the learner's (seat {seat})")]
    Opponents { seat: Player, players: usize },
}

/// What `reset` and `step` report besides the observation.
#[derive(Clone, Debug, PartialEq)]
pub struct Info {
    /// Who acts next (`Terminal` when the episode is over).
    pub turn: Turn,
    /// Plies (player moves and chance events) played since `reset`.
    pub ply: u32,
    /// The seat that resigned, if the episode ended by resignation.
    pub resigned: Option<Player>,
    /// The chance outcomes drawn since the last `reset` or `step` (Hase und Igel's hare cards,
    /// `game.action_to_string` names them), each with the seat that moved before it, in order.
    pub drawn: Vec<(Player, Action)>,
}

/// The result of one `step`, as Gymnasium returns it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step<S> {
    pub observation: S,
    pub reward: f64,
    /// The game reached its end (or someone resigned).
    pub terminated: bool,
    /// The episode was cut off: by the environment's ply limit (no returns), or by a cap in the
    /// game's rules such as a round cap (returns as the rules give them there).
    pub truncated: bool,
    pub info: Info,
}

/// Where `action` stands among the ascending `legal` actions, if it is one: a short list counts
/// those below it (no branch that depends on where it stands), a long one is halved.
#[inline]
pub fn place_of(legal: &[Action], action: Action) -> Option<usize> {
    let k = if legal.len() <= 16 {
        legal.iter().map(|&a| usize::from(a < action)).sum()
    } else {
        legal.partition_point(|&a| a < action)
    };
    (legal.get(k) == Some(&action)).then_some(k)
}

/// Shared mechanics of both views: the current state, the ply count and the end of the episode.
/// The legal actions of `state`: kept in place by the game ([`Game::keeps_legal_actions`]), or
/// the first `len` of `copy` ([`Core::enter`]; `len` is 0 once a seat resigned).
#[inline]
fn legal_at<'a, G: Game>(
    game: &'a G,
    state: &G::State,
    copy: &'a [Action],
    len: u32,
) -> &'a [Action] {
    if game.keeps_legal_actions() {
        game.legal_actions_in_place(state).unwrap_or_default()
    } else {
        &copy[..len as usize]
    }
}

#[derive(Clone)]
struct Core<G: Game> {
    game: G,
    state: G::State,
    rng: SgRng,
    ply: u32,
    max_plies: Option<u32>,
    returns: Option<Returns>,
    truncated: bool,
    resigned: Option<Player>,
    /// Chance outcomes drawn since the last reset or step, with the seat that moved before each.
    drawn: Vec<(Player, Action)>,
    /// The seat that made the last move.
    last_mover: Player,
    /// The game's turn at `state`, worked out once per state by `enter`.
    state_turn: Turn,
    /// The turn as the episode sees it: `state_turn`, or `Terminal` once the episode is over
    /// (ended, cut off or resigned). One byte that every move reads, not three flags.
    now: Turn,
    legal: Vec<Action>,
    /// `legal.len()`, kept apart: the learner's view of `legal` is read right after `legal` is
    /// refilled, and a load of the vector's (pointer, length) pair as one 16-byte word cannot
    /// be forwarded from the 8-byte store of its length (a stall of a dozen cycles per move).
    legal_len: u32,
    outcomes: Vec<(Action, f64)>,
}

impl<G: Game> Core<G> {
    fn new(game: G, seed: u64) -> Self {
        let state = game.initial_state();
        Core {
            game,
            state,
            rng: SgRng::seed_from_u64(seed),
            ply: 0,
            max_plies: None,
            returns: None,
            truncated: false,
            resigned: None,
            drawn: Vec::new(),
            last_mover: 0,
            state_turn: Turn::Terminal,
            now: Turn::Terminal,
            legal: Vec::new(),
            legal_len: 0,
            outcomes: Vec::new(),
        }
    }

    #[inline]
    fn reset(&mut self, seed: Option<u64>) {
        if let Some(seed) = seed {
            self.rng = SgRng::seed_from_u64(seed);
        }
        self.ply = 0;
        self.returns = None;
        self.truncated = false;
        self.resigned = None;
        self.drawn.clear();
        self.enter(self.game.initial_state());
    }

    /// The game ended by its own rules (not cut off by a cap: that is `truncated`).
    fn terminated(&self) -> bool {
        self.returns.is_some() && !self.truncated
    }

    #[inline]
    fn done(&self) -> bool {
        matches!(self.now, Turn::Terminal)
    }

    /// Moves to `state`: its legal actions and the end-of-episode flags. Worked out from
    /// `state` before it is stored, so that a small state is read from registers rather than
    /// reloaded from memory right after the store (a stall when the sizes of the two differ).
    #[inline]
    fn enter(&mut self, state: G::State) {
        if self.game.keeps_legal_actions() {
            // Read in place when asked for: not copied.
            self.state_turn = self.game.turn(&state);
        } else {
            self.state_turn = self.game.turn_and_legal_actions(&state, &mut self.legal);
            self.legal_len = self.legal.len() as u32;
        }
        self.now = self.state_turn;
        if self.state_turn.is_terminal() {
            self.returns = Some(self.game.returns(&state));
            self.truncated = self.game.is_cut_off(&state);
        } else if self.max_plies.is_some_and(|m| self.ply >= m) {
            self.truncated = true;
            self.now = Turn::Terminal;
        }
        self.state = state;
    }

    /// The legal actions at `state` (empty at the end).
    #[inline]
    fn legal(&self) -> &[Action] {
        legal_at(&self.game, &self.state, &self.legal, self.legal_len)
    }

    /// One flag per action of the action space, set for the legal actions: made when asked
    /// for (the checks and the tests ask; learners and the environments of the fronts never do,
    /// so no move pays for keeping it).
    fn mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.game.num_distinct_actions()];
        // None after a resignation (a game keeping its legal actions still lists them).
        let legal = if self.resigned.is_some() {
            &[]
        } else {
            self.legal()
        };
        for &a in legal {
            mask[a as usize] = true;
        }
        mask
    }

    /// Plays a player's action, checked against the legal actions already at hand.
    #[inline]
    fn apply(&mut self, action: Action) -> Result<(), EnvError> {
        if self.done() {
            return Err(EnvError::EpisodeOver);
        }
        let Some(k) = place_of(self.legal(), action) else {
            return Err(self.game.illegal(&self.state, action.to_string()).into());
        };
        self.play(k, action);
        Ok(())
    }

    /// Plays the `k`-th legal action (counting from 0, ascending): [`Core::apply`] for a caller
    /// that knows its action's place, as a learner choosing from the legal actions does.
    #[inline]
    fn apply_at(&mut self, k: usize) -> Result<(), EnvError> {
        if self.done() {
            return Err(EnvError::EpisodeOver);
        }
        let legal = self.legal();
        match legal.get(k) {
            Some(&action) => {
                self.play(k, action);
                Ok(())
            }
            None => Err(EnvError::NoSuchPlace {
                index: k,
                count: legal.len(),
            }),
        }
    }

    /// Plays `action`, the `k`-th legal action.
    #[inline]
    fn play(&mut self, k: usize, action: Action) {
        if let Turn::Player(p) = self.state_turn {
            self.last_mover = p;
        }
        let next = self.game.apply_legal(&self.state, k, action);
        self.ply += 1;
        self.enter(next);
    }

    #[inline]
    fn advance_with(&mut self, action: Action) {
        let next = self.game.apply(&self.state, action);
        self.ply += 1;
        self.enter(next);
    }

    fn resign(&mut self, seat: Player) -> Result<(), EnvError> {
        if self.done() {
            return Err(EnvError::EpisodeOver);
        }
        self.returns = Some(self.game.resignation_returns(&self.state, seat));
        self.resigned = Some(seat);
        self.now = Turn::Terminal;
        self.legal.clear();
        self.legal_len = 0;
        Ok(())
    }

    fn draw_chance(&mut self) {
        self.game.chance_outcomes(&self.state, &mut self.outcomes);
        let outcome = crate::core::policy::draw_outcome(&self.outcomes, &mut self.rng);
        self.drawn.push((self.last_mover, outcome));
        self.advance_with(outcome);
    }

    #[inline]
    fn turn(&self) -> Turn {
        self.now
    }

    fn info(&self) -> Info {
        Info {
            turn: self.turn(),
            ply: self.ply,
            resigned: self.resigned,
            drawn: self.drawn.clone(),
        }
    }

    fn reward(&self, seat: Player) -> f64 {
        self.returns.map_or(0.0, |r| r[seat])
    }

    /// The moves from `seat`'s turn up to the next chance event, the end, the ply limit, a
    /// resignation or a place past the legal actions: `choose` gives the place of the move of
    /// `seat` at `(state, legal, ply)`, drawing from the environment's random stream. Between
    /// two chance events the state, the ply and the turn are kept in locals, and the core takes
    /// them once at the end, as [`Core::play`] would have left them. Returns why it stopped,
    /// the seat to act then, and whether any move was played.
    #[inline]
    fn play_moves<F>(&mut self, mut seat: Player, mut choose: F) -> (Stop, Player, bool)
    where
        F: FnMut(&G, &G::State, Player, &[Action], u32, &mut SgRng) -> Option<usize>,
    {
        let limit = self.max_plies.unwrap_or(u32::MAX);
        let (game, copy, rng) = (&self.game, &mut self.legal, &mut self.rng);
        let keeps = game.keeps_legal_actions();
        let mut state = self.state.clone();
        let (mut ply, mut mover) = (self.ply, self.last_mover);
        let stop = loop {
            let legal = if keeps {
                game.legal_actions_in_place(&state).unwrap_or_default()
            } else {
                &copy[..]
            };
            let Some(k) = choose(game, &state, seat, legal, ply, rng) else {
                break Stop::Resign;
            };
            let Some(&action) = legal.get(k) else {
                break Stop::NoSuchPlace(k, legal.len());
            };
            state = game.apply_legal(&state, k, action);
            ply += 1;
            mover = seat;
            let turn = if keeps {
                game.turn(&state)
            } else {
                game.turn_and_legal_actions(&state, copy)
            };
            match turn {
                Turn::Player(p) if ply < limit => seat = p,
                _ => break Stop::Moved,
            }
        };
        let moved = ply != self.ply;
        if moved {
            self.ply = ply;
            self.last_mover = mover;
            self.enter(state);
        }
        (stop, seat, moved)
    }
}

/// The single-agent view: the learner plays `seat`, policies play the other seats.
pub struct Env<'p, G: Game> {
    core: Core<G>,
    seat: Player,
    opponents: Vec<Option<Box<dyn Policy<G> + 'p>>>,
}

impl<'p, G: Game> Env<'p, G> {
    /// A two-player environment: the learner plays `seat`, `opponent` the other seat.
    pub fn new(
        game: G,
        seat: Player,
        opponent: Box<dyn Policy<G> + 'p>,
        seed: u64,
    ) -> Result<Self, EnvError> {
        let n = game.num_players();
        if n != 2 {
            return Err(EnvError::NotTwoPlayer { players: n });
        }
        if seat >= n {
            return Err(EnvError::NoSuchSeat { seat, players: n });
        }
        let opponents = if seat == 0 {
            vec![None, Some(opponent)]
        } else {
            vec![Some(opponent), None]
        };
        Self::with_opponents(game, seat, opponents, seed)
    }

    /// Any number of players: `opponents[p]` plays seat `p` (`None` at the learner's seat,
    /// a policy at every other seat).
    pub fn with_opponents(
        game: G,
        seat: Player,
        opponents: Vec<Option<Box<dyn Policy<G> + 'p>>>,
        seed: u64,
    ) -> Result<Self, EnvError> {
        let players = game.num_players();
        if seat >= players {
            return Err(EnvError::NoSuchSeat { seat, players });
        }
        let well_formed = opponents.len() == players
            && opponents
                .iter()
                .enumerate()
                .all(|(p, o)| o.is_none() == (p == seat));
        if !well_formed {
            return Err(EnvError::Opponents { seat, players });
        }
        let mut env = Env {
            core: Core::new(game, seed),
            seat,
            opponents,
        };
        env.reset(Some(seed));
        Ok(env)
    }

    /// Cuts episodes off (`truncated`) after this many plies; for games that may not end.
    pub fn with_max_plies(mut self, max_plies: u32) -> Self {
        self.core.max_plies = Some(max_plies);
        self
    }

    /// Starts a new episode (reseeding the environment's random stream when `seed` is given)
    /// and plays the other seats until the learner is to move or the game is over.
    pub fn reset(&mut self, seed: Option<u64>) -> (G::State, Info) {
        self.core.reset(seed);
        self.advance();
        (self.core.state.clone(), self.core.info())
    }

    /// Plays the learner's `action`, then the other seats and chance until the learner is to move
    /// again or the episode ends. An illegal action changes nothing and lists the legal ones.
    #[inline]
    pub fn step(&mut self, action: Action) -> Result<Step<G::State>, EnvError> {
        self.act(action)?;
        Ok(self.step_result())
    }

    /// [`Env::step`] without its [`Step`]: for a caller that reads only what it needs of the
    /// result ([`Env::reward`], [`Env::terminated`], [`Env::truncated`]), as the vector
    /// environment does once per environment and call.
    #[inline]
    pub fn act(&mut self, action: Action) -> Result<(), EnvError> {
        if self.core.done() {
            return Err(EnvError::EpisodeOver);
        }
        self.core.apply(action)?;
        self.core.drawn.clear();
        self.advance();
        Ok(())
    }

    /// The learner's reward for the last step: its return once the episode is over, 0 before.
    #[inline]
    pub fn reward(&self) -> f64 {
        self.core.reward(self.seat)
    }

    /// The game ended by its own rules ([`Step::terminated`]).
    #[inline]
    pub fn terminated(&self) -> bool {
        self.core.terminated()
    }

    /// The episode was cut off by a cap ([`Step::truncated`]).
    #[inline]
    pub fn truncated(&self) -> bool {
        self.core.truncated
    }

    /// Plays one episode from a reset, the other seats played by `theirs` instead of the
    /// environment's own opponents: the episode `reset` and `step` give when the opponents
    /// choose as `theirs` does, for a caller that holds them in a faster form (a learner
    /// against its frozen copy). `mine` gives the place of the learner's move among the legal
    /// actions at `(state, legal, ply)`; `theirs` the place of the move of seat `p` at
    /// `(state, p, legal)`, drawn with the environment's random stream as its opponents draw
    /// ([`place_of`] gives a policy's action's place); `None` resigns. Chance is drawn as `step`
    /// draws it. A place past the legal actions is a bug of the caller: it panics, as
    /// `play_vs_opponent` does.
    pub fn play_episode<F, O>(&mut self, mut mine: F, mut theirs: O)
    where
        F: FnMut(&G, &G::State, &[Action], u32) -> Option<usize>,
        O: FnMut(&G, &G::State, Player, &[Action], &mut SgRng) -> Option<usize>,
    {
        self.core.reset(None);
        let me = self.seat;
        loop {
            let seat = match self.core.now {
                Turn::Player(p) => p,
                Turn::Chance => {
                    self.core.draw_chance();
                    continue;
                }
                Turn::Terminal => return,
            };
            let mut mine_moved = false;
            let (stop, seat, _) =
                self.core
                    .play_moves(seat, |game, state, seat, legal, ply, rng| {
                        if seat == me {
                            let k = mine(game, state, legal, ply);
                            mine_moved |= k.is_some();
                            k
                        } else {
                            theirs(game, state, seat, legal, rng)
                        }
                    });
            if mine_moved {
                self.core.drawn.clear();
            }
            match stop {
                Stop::Moved => {}
                Stop::Resign => self.core.resign(seat).expect("the episode is running"),
                Stop::NoSuchPlace(..) => panic!("a place among the legal actions"),
            }
        }
    }

    /// The learner resigns: the episode ends with the game's resignation returns.
    pub fn resign(&mut self) -> Result<Step<G::State>, EnvError> {
        self.core.resign(self.seat)?;
        Ok(self.step_result())
    }

    fn step_result(&self) -> Step<G::State> {
        Step {
            observation: self.core.state.clone(),
            reward: self.core.reward(self.seat),
            terminated: self.core.terminated(),
            truncated: self.core.truncated,
            info: self.core.info(),
        }
    }

    fn advance(&mut self) {
        loop {
            if self.core.done() {
                return;
            }
            match self.core.state_turn {
                Turn::Terminal => return,
                Turn::Player(p) if p == self.seat => return,
                Turn::Chance => self.core.draw_chance(),
                Turn::Player(p) => {
                    let policy = self.opponents[p]
                        .as_ref()
                        .expect("every other seat has a policy");
                    let choice = policy.choose(
                        &self.core.game,
                        &self.core.state,
                        legal_at(
                            &self.core.game,
                            &self.core.state,
                            &self.core.legal,
                            self.core.legal_len,
                        ),
                        &mut self.core.rng,
                    );
                    match choice {
                        Some(a) => self
                            .core
                            .apply(a)
                            .expect("a policy chose an illegal action"),
                        None => self.core.resign(p).expect("episode still running"),
                    }
                }
            }
        }
    }

    pub fn game(&self) -> &G {
        &self.core.game
    }
    pub fn seat(&self) -> Player {
        self.seat
    }
    pub fn state(&self) -> &G::State {
        &self.core.state
    }
    pub fn is_done(&self) -> bool {
        self.core.done()
    }
    pub fn info(&self) -> Info {
        self.core.info()
    }
    /// Plies played since the reset ([`Info::ply`], without building the info).
    pub fn ply(&self) -> u32 {
        self.core.ply
    }
    /// The seat that resigned, if one did ([`Info::resigned`]).
    pub fn resigned(&self) -> Option<Player> {
        self.core.resigned
    }
    /// The legal actions of the learner now (empty when the episode is over).
    pub fn legal_actions(&self) -> &[Action] {
        if self.core.done() {
            &[]
        } else {
            self.core.legal()
        }
    }
    /// One flag per action of the action space: legal now or not.
    pub fn action_mask(&self) -> Vec<bool> {
        self.core.mask()
    }
    /// The returns of the finished episode: `None` while running or when the environment's ply
    /// limit cut it off; a game's own cap (a round cap) gives the returns its rules say.
    pub fn returns(&self) -> Option<Returns> {
        self.core.returns
    }
    /// The game's numeric encoding of the current state from the learner's seat.
    pub fn observation_tensor(&self) -> ndarray::Array1<f32> {
        let mut out = ndarray::Array1::zeros(self.core.game.observation_len());
        self.core.game.observe(
            &self.core.state,
            self.seat,
            out.as_slice_mut().expect("contiguous"),
        );
        out
    }
}

/// Why [`Core::play_moves`] left its run of moves kept in locals.
enum Stop {
    /// A move reached a chance event, the end or the ply limit.
    Moved,
    /// The seat to act resigned.
    Resign,
    /// The seat to act named a place past its legal actions: (place, count).
    NoSuchPlace(usize, usize),
}

/// The turn-based multi-agent view (PettingZoo AEC): every seat is an agent.
#[derive(Clone)]
pub struct AecEnv<G: Game> {
    core: Core<G>,
}

/// The rewards of every seat before the end: none yet.
const NO_REWARDS: [f64; crate::core::game::MAX_PLAYERS] = [0.0; crate::core::game::MAX_PLAYERS];

impl<G: Game> AecEnv<G> {
    pub fn new(game: G, seed: u64) -> Self {
        let mut env = AecEnv {
            core: Core::new(game, seed),
        };
        env.reset(Some(seed));
        env
    }

    pub fn with_max_plies(mut self, max_plies: u32) -> Self {
        self.core.max_plies = Some(max_plies);
        self
    }

    #[inline]
    pub fn reset(&mut self, seed: Option<u64>) {
        self.core.reset(seed);
        self.resolve_chance();
    }

    #[inline]
    fn resolve_chance(&mut self) {
        while matches!(self.core.now, Turn::Chance) {
            self.core.draw_chance();
        }
    }

    /// The agent to act, or `None` when the episode is over.
    pub fn agent_selection(&self) -> Option<Player> {
        self.core.turn().player()
    }

    /// The acting agent's view: observation, reward, terminated, truncated, info. After the
    /// end, it reports for `agent` (any seat) its final return.
    pub fn last(&self, agent: Player) -> (G::State, f64, bool, bool, Info) {
        (
            self.core.state.clone(),
            self.rewards()[agent],
            self.core.terminated(),
            self.core.truncated,
            self.core.info(),
        )
    }

    /// The selected agent plays `action`; chance events that follow are drawn.
    #[inline]
    pub fn step(&mut self, action: Action) -> Result<(), EnvError> {
        self.core.apply(action)?;
        self.after_move();
        Ok(())
    }

    /// The selected agent plays its `k`-th legal action (counting from 0, in the order of
    /// [`AecEnv::legal_actions`]): [`AecEnv::step`] without looking the action up.
    #[inline]
    pub fn step_at(&mut self, k: usize) -> Result<(), EnvError> {
        self.core.apply_at(k)?;
        self.after_move();
        Ok(())
    }

    /// Plays the episode on to its end: `choose` is asked at every move for the place among the
    /// legal actions (as [`AecEnv::step_at`] takes it) of the move of the seat to act, or `None`
    /// for that seat to resign. It sees the game, the state, the seat, its legal actions and the
    /// ply. The same episode, chance draws and final state as the loop
    /// `while let Some((seat, legal)) = env.to_move() { env.step_at(k)?  /  env.resign()? }`,
    /// played faster: between chance events the state, the ply and the turn are kept in
    /// locals, and the environment takes them once at the end (or at a chance event, a
    /// resignation, an error) instead of at every move.
    ///
    /// An answer past the end of the legal actions stops the episode at that state with
    /// [`EnvError::NoSuchPlace`], as `step_at` would.
    #[inline]
    pub fn play_out<F>(&mut self, mut choose: F) -> Result<(), EnvError>
    where
        F: FnMut(&G, &G::State, Player, &[Action], u32) -> Option<usize>,
    {
        loop {
            let Turn::Player(seat) = self.core.now else {
                return Ok(());
            };
            let (stop, _, moved) = self
                .core
                .play_moves(seat, |game, state, seat, legal, ply, _| {
                    choose(game, state, seat, legal, ply)
                });
            match stop {
                Stop::Moved => self.after_move(),
                Stop::Resign => {
                    if moved {
                        self.core.drawn.clear();
                    }
                    return self.resign();
                }
                Stop::NoSuchPlace(index, count) => {
                    if moved {
                        self.core.drawn.clear();
                    }
                    return Err(EnvError::NoSuchPlace { index, count });
                }
            }
        }
    }

    /// After a move: the chance events that follow are drawn (and listed anew).
    #[inline]
    fn after_move(&mut self) {
        self.core.drawn.clear();
        self.resolve_chance();
    }

    /// The selected agent resigns.
    pub fn resign(&mut self) -> Result<(), EnvError> {
        let seat = self.agent_selection().ok_or(EnvError::EpisodeOver)?;
        self.core.resign(seat)?;
        self.resolve_chance();
        Ok(())
    }

    /// Plies played so far in the episode.
    pub fn ply(&self) -> u32 {
        self.core.ply
    }
    /// Each seat's reward so far: its return once the episode is over (every reward comes at
    /// the end), zero before and after a cut by the ply limit.
    pub fn rewards(&self) -> &[f64] {
        match &self.core.returns {
            Some(r) => r.as_slice(),
            None => &NO_REWARDS[..self.core.game.num_players()],
        }
    }
    pub fn game(&self) -> &G {
        &self.core.game
    }
    pub fn state(&self) -> &G::State {
        &self.core.state
    }
    pub fn is_done(&self) -> bool {
        self.core.done()
    }
    pub fn legal_actions(&self) -> &[Action] {
        if self.core.done() {
            &[]
        } else {
            self.core.legal()
        }
    }
    /// The agent to act and its legal actions, or `None` when the episode is over:
    /// [`AecEnv::agent_selection`] and [`AecEnv::legal_actions`] at once.
    #[inline]
    pub fn to_move(&self) -> Option<(Player, &[Action])> {
        let seat = self.core.turn().player()?;
        Some((seat, self.core.legal()))
    }
    pub fn action_mask(&self) -> Vec<bool> {
        self.core.mask()
    }
    pub fn returns(&self) -> Option<Returns> {
        self.core.returns
    }
    /// The seat that resigned, if the episode ended by resignation.
    pub fn resigned(&self) -> Option<Player> {
        self.core.resigned
    }
    /// The game ended by its own rules (not cut off by a cap).
    pub fn terminated(&self) -> bool {
        self.core.terminated()
    }
    /// The episode was cut off by a cap (the game's round cap, or the environment's ply limit).
    pub fn truncated(&self) -> bool {
        self.core.truncated
    }
    /// The random stream chance is drawn from, as it stands.
    pub fn rng(&self) -> &SgRng {
        &self.core.rng
    }
    /// Goes on from `state` (a position `ply` plies into an episode, no seat resigned) with
    /// `rng` as the random stream: an episode saved as (state, ply, stream) plays on as the
    /// original would. Chance at `state` is drawn, as after a move.
    pub fn resume(&mut self, state: G::State, ply: u32, rng: SgRng) {
        let core = &mut self.core;
        core.rng = rng;
        core.ply = ply;
        core.returns = None;
        core.truncated = false;
        core.resigned = None;
        core.drawn.clear();
        core.enter(state);
        self.resolve_chance();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::policy::RandomPolicy;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};

    #[test]
    fn single_agent_env_plays_the_other_seat() {
        let game = Hexapawn::new(HexapawnParams::default()).unwrap();
        let mut env = Env::new(game, 1, Box::new(RandomPolicy), 3).unwrap();
        let (obs, info) = env.reset(Some(3));
        // White (the opponent) has moved: Black is to move.
        assert_eq!(info.turn, Turn::Player(1));
        assert_eq!(info.ply, 1);
        assert_eq!(obs.to_move, 1);
        let legal = env.legal_actions().to_vec();
        let mask_count = env.action_mask().iter().filter(|&&m| m).count();
        assert_eq!(mask_count, legal.len());
        let err = env.step(0).unwrap_err();
        assert!(matches!(err, EnvError::Illegal(_)));
        let mut steps = 0;
        while !env.is_done() {
            let a = env.legal_actions()[0];
            let step = env.step(a).unwrap();
            steps += 1;
            if step.terminated {
                assert!(step.reward == 1.0 || step.reward == -1.0);
            } else {
                assert_eq!(step.reward, 0.0);
            }
        }
        assert!(steps > 0);
        assert_eq!(env.step(0).unwrap_err(), EnvError::EpisodeOver);
    }

    #[test]
    fn resignation_ends_the_episode_with_a_loss() {
        let mut env = Env::new(TicTacToe, 0, Box::new(RandomPolicy), 1).unwrap();
        let step = env.resign().unwrap();
        assert!(step.terminated);
        assert_eq!(step.reward, -1.0);
        assert_eq!(step.info.resigned, Some(0));
        assert!(env.legal_actions().is_empty());
    }

    #[test]
    fn aec_env_delivers_rewards_to_every_seat() {
        let mut env = AecEnv::new(TicTacToe, 5);
        // x: a3 b3 c3, o: a1 b1
        for cell in [0, 6, 1, 7, 2] {
            assert!(env.agent_selection().is_some());
            env.step(cell).unwrap();
        }
        assert_eq!(env.agent_selection(), None);
        assert_eq!(env.rewards(), [1.0, -1.0]);
        let (_, r_o, terminated, truncated, _) = env.last(1);
        assert_eq!((r_o, terminated, truncated), (-1.0, true, false));
    }

    #[test]
    fn step_at_plays_the_action_at_its_place_and_refuses_a_place_past_the_end() {
        // Both ways of keeping the legal actions: worked out by the game, read from its tables.
        let tabulated = crate::core::tabulated::Tabulated::new(&TicTacToe, 1 << 20).unwrap();
        let mut by_action = AecEnv::new(TicTacToe, 5);
        let mut by_place = AecEnv::new(TicTacToe, 5);
        let mut by_table = AecEnv::new(tabulated.clone(), 5);
        let mut rng = crate::core::random::rng(9);
        for _ in 0..50 {
            by_action.reset(None);
            by_place.reset(None);
            by_table.reset(None);
            while let Some((seat, legal)) = by_place.to_move().map(|(s, l)| (s, l.to_vec())) {
                assert_eq!(by_action.agent_selection(), Some(seat));
                assert_eq!(by_action.legal_actions(), legal);
                assert_eq!(
                    by_table.to_move().map(|(s, l)| (s, l.to_vec())),
                    Some((seat, legal.to_vec()))
                );
                let n = legal.len();
                let err = by_place.step_at(n).unwrap_err();
                assert_eq!(err, EnvError::NoSuchPlace { index: n, count: n });
                assert!(err.to_string().contains(&format!("{n} are legal")));
                let k = rand::RngExt::random_range(&mut rng, 0..n);
                let action = legal[k];
                by_action.step(action).unwrap();
                by_place.step_at(k).unwrap();
                by_table.step_at(k).unwrap();
                assert_eq!(by_place.state(), by_action.state());
                assert_eq!(by_place.ply(), by_action.ply());
                assert_eq!(by_table.ply(), by_action.ply());
            }
            assert_eq!(by_action.to_move(), None);
            assert_eq!(by_table.to_move(), None);
            assert_eq!(by_place.rewards(), by_action.rewards());
            assert_eq!(by_table.rewards(), by_action.rewards());
            assert_eq!(by_place.step_at(0).unwrap_err(), EnvError::EpisodeOver);
            assert_eq!(by_table.step_at(0).unwrap_err(), EnvError::EpisodeOver);
        }
    }

    #[test]
    fn a_game_keeping_its_legal_actions_lists_none_after_a_resignation() {
        let tabulated = crate::core::tabulated::Tabulated::new(&TicTacToe, 1 << 20).unwrap();
        assert!(tabulated.keeps_legal_actions() && !TicTacToe.keeps_legal_actions());
        let mut env = AecEnv::new(tabulated, 1);
        env.step_at(4).unwrap();
        assert_eq!(env.action_mask().iter().filter(|&&m| m).count(), 8);
        env.resign().unwrap();
        assert!(env.legal_actions().is_empty());
        assert!(env.action_mask().iter().all(|&m| !m));
        assert_eq!(env.to_move(), None);
        assert_eq!(env.rewards(), [1.0, -1.0]);
    }

    #[test]
    fn truncation_after_max_plies() {
        let mut env = AecEnv::new(TicTacToe, 5).with_max_plies(2);
        env.reset(None);
        env.step(0).unwrap();
        env.step(1).unwrap();
        assert!(env.is_done());
        let (_, _, terminated, truncated, _) = env.last(0);
        assert!(!terminated && truncated);
    }

    /// What an [`AecEnv`] shows of itself: everything `play_out` must leave as the step loop does.
    fn view<G: Game>(env: &AecEnv<G>) -> String
    where
        G::State: std::fmt::Debug,
    {
        let seats: Vec<_> = (0..env.game().num_players()).map(|p| env.last(p)).collect();
        format!(
            "{:?} {} {:?} {:?} {:?} {:?} {:?} {} {:?} {:?}",
            env.state(),
            env.ply(),
            env.to_move(),
            env.legal_actions(),
            env.action_mask(),
            env.returns(),
            env.rewards(),
            env.is_done(),
            env.resigned(),
            seats
        )
    }

    /// Plays `episodes` episodes on two copies of `env`, one by `play_out` and one by the step
    /// loop, with the same chooser: a random legal place, now and then a resignation
    /// (`resign` in 1000) or a place past the end (`bad` in 1000); after an error the episode
    /// goes on. Both must give the same errors and end in the same view.
    fn play_out_agrees_with_the_step_loop<G: Game>(
        make: impl Fn() -> AecEnv<G>,
        seed: u64,
        episodes: usize,
        resign: u32,
        bad: u32,
    ) where
        G::State: std::fmt::Debug,
    {
        let chooser = |rng: &mut SgRng, legal: &[Action]| -> Option<usize> {
            use rand::RngExt;
            let r = rng.random_range(0..1000u32);
            if r < resign {
                None
            } else if r < resign + bad {
                Some(legal.len() + rng.random_range(0..3usize))
            } else {
                Some(rng.random_range(0..legal.len()))
            }
        };
        let (mut fast, mut slow) = (make(), make());
        let (mut rng_fast, mut rng_slow) = (
            crate::core::random::rng(seed),
            crate::core::random::rng(seed),
        );
        for _ in 0..episodes {
            fast.reset(None);
            slow.reset(None);
            loop {
                let mut asked = Vec::new();
                let got = fast.play_out(|game, state, seat, legal, ply| {
                    assert_eq!(game.turn(state), Turn::Player(seat));
                    asked.push((format!("{state:?}"), seat, legal.to_vec(), ply));
                    chooser(&mut rng_fast, legal)
                });
                let mut seen = Vec::new();
                let want = loop {
                    let Some((seat, legal)) = slow.to_move() else {
                        break Ok(());
                    };
                    seen.push((
                        format!("{:?}", slow.state()),
                        seat,
                        legal.to_vec(),
                        slow.ply(),
                    ));
                    let step = match chooser(&mut rng_slow, legal) {
                        Some(k) => slow.step_at(k),
                        None => slow.resign(),
                    };
                    if step.is_err() {
                        break step;
                    }
                };
                assert_eq!(asked, seen);
                assert_eq!(got, want);
                assert_eq!(view(&fast), view(&slow));
                if got.is_ok() {
                    assert!(fast.is_done());
                    break;
                }
            }
        }
        // An episode that is over plays nothing more.
        assert_eq!(fast.play_out(|_, _, _, _, _| unreachable!()), Ok(()));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        #[test]
        fn play_out_plays_as_the_step_loop(
            seed in 0u64..1000,
            resign in 0u32..40,
            bad in 0u32..40,
            max_plies in proptest::option::of(1u32..12),
        ) {
            use crate::games::{DiceRace, DiceRaceParams};
            use crate::core::tabulated::Tabulated;
            fn limit<G: Game>(env: AecEnv<G>, max_plies: Option<u32>) -> AecEnv<G> {
                match max_plies {
                    Some(m) => env.with_max_plies(m),
                    None => env,
                }
            }
            // Legal actions worked out by the game and read from its tables; with chance.
            let race = DiceRace::new(DiceRaceParams { players: 3, goal: 5 }).unwrap();
            let tabulated_race = Tabulated::new(&race, 1 << 20).unwrap();
            let tabulated_ttt = Tabulated::new(&TicTacToe, 1 << 20).unwrap();
            play_out_agrees_with_the_step_loop(
                || limit(AecEnv::new(TicTacToe.clone(), seed), max_plies),
                seed,
                20,
                resign,
                bad,
            );
            play_out_agrees_with_the_step_loop(
                || limit(AecEnv::new(tabulated_ttt.clone(), seed), max_plies),
                seed,
                20,
                resign,
                bad,
            );
            play_out_agrees_with_the_step_loop(
                || limit(AecEnv::new(race, seed), max_plies),
                seed,
                20,
                resign,
                bad,
            );
            play_out_agrees_with_the_step_loop(
                || limit(AecEnv::new(tabulated_race.clone(), seed), max_plies),
                seed,
                20,
                resign,
                bad,
            );
            // Chance now and then, after some moves only (a hare card on a hare square).
            let hase = crate::games::HaseUndIgel::new(crate::games::HaseUndIgelParams {
                players: 2,
                board: "CHCHIHC2H".into(),
                max_rounds: 12,
                ..Default::default()
            })
            .unwrap();
            play_out_agrees_with_the_step_loop(
                || limit(AecEnv::new(hase.clone(), seed), max_plies),
                seed,
                10,
                resign,
                bad,
            );
        }
    }
}
