//! The environment checker: a reusable test of the [`Game`] contract and of both environment
//! views over it. Every game in the crate runs it; a new game should too:
//!
//! ```
//! use solvedgym::core::check::{check_game, CheckOptions};
//! use solvedgym::games::TicTacToe;
//! let report = check_game(&TicTacToe, &CheckOptions::default()).unwrap();
//! assert!(report.episodes > 0);
//! ```
//!
//! It plays random episodes from the start with a fixed seed and checks at every state visited:
//! legal actions are non-empty, strictly ascending and inside the action space until the end;
//! chance outcomes are distinct with probabilities summing to one; `apply` of each legal action
//! agrees with `try_apply`, and an illegal action is an error that lists the legal ones; action
//! names are distinct and parse back; terminal returns have one entry per player and sum as the
//! rules say; observations have the announced length and finite values; the dense index and the
//! symmetries round-trip and commute with moves; rendering works. Then it replays the episodes
//! through [`Env`] and [`AecEnv`] and checks masks, rewards and determinism under the seed.

use rand::RngExt;

use crate::core::env::{AecEnv, Env};
use crate::core::game::{Action, Game, Turn};
use crate::core::policy::RandomPolicy;
use crate::core::random::rng;

#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Random episodes to play.
    pub episodes: usize,
    pub seed: u64,
    /// An episode longer than this is an error (the game should end).
    pub max_plies: u32,
    /// What the returns of every terminal state sum to (`None`: not checked).
    pub returns_sum: Option<f64>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            episodes: 200,
            seed: 0,
            max_plies: 10_000,
            returns_sum: Some(0.0),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckReport {
    pub episodes: usize,
    pub states_checked: usize,
    pub chance_states: usize,
    pub terminal_states: usize,
}

/// Runs every check; the error names the failed check and shows the state.
pub fn check_game<G: Game>(game: &G, opts: &CheckOptions) -> Result<CheckReport, String> {
    let mut report = CheckReport::default();
    let mut r = rng(opts.seed);
    for _ in 0..opts.episodes {
        let mut state = game.initial_state();
        for ply in 0.. {
            if ply > opts.max_plies {
                return Err(fail(
                    game,
                    &state,
                    "the episode did not end within max_plies",
                ));
            }
            check_state(game, &state, opts)?;
            report.states_checked += 1;
            let action = match game.turn(&state) {
                Turn::Terminal => {
                    report.terminal_states += 1;
                    break;
                }
                Turn::Chance => {
                    report.chance_states += 1;
                    let mut outcomes = Vec::new();
                    game.chance_outcomes(&state, &mut outcomes);
                    outcomes[r.random_range(0..outcomes.len())].0
                }
                Turn::Player(_) => {
                    let mut legal = Vec::new();
                    game.legal_actions(&state, &mut legal);
                    legal[r.random_range(0..legal.len())]
                }
            };
            state = game.apply(&state, action);
        }
        report.episodes += 1;
    }
    check_envs(game, opts)?;
    Ok(report)
}

fn fail<G: Game>(game: &G, state: &G::State, what: &str) -> String {
    format!("{}: {what}\n{}", game.name(), game.render(state))
}

fn check_state<G: Game>(game: &G, state: &G::State, opts: &CheckOptions) -> Result<(), String> {
    let n = game.num_players();
    if !(1..=crate::core::game::MAX_PLAYERS).contains(&n) {
        return Err(format!("{}: {n} players", game.name()));
    }
    if game.render(state).trim().is_empty() {
        return Err(fail(game, state, "render() is empty"));
    }
    let mut legal = Vec::new();
    let mut outcomes = Vec::new();
    game.legal_actions(state, &mut legal);
    game.chance_outcomes(state, &mut outcomes);
    match game.turn(state) {
        Turn::Player(p) => {
            if p >= n {
                return Err(fail(game, state, &format!("player {p} does not exist")));
            }
            if legal.is_empty() {
                return Err(fail(
                    game,
                    state,
                    "a player is to move but has no legal action",
                ));
            }
            if !legal.windows(2).all(|w| w[0] < w[1]) {
                return Err(fail(
                    game,
                    state,
                    &format!("legal actions not strictly ascending: {legal:?}"),
                ));
            }
            if legal
                .iter()
                .any(|&a| a as usize >= game.num_distinct_actions())
            {
                return Err(fail(
                    game,
                    state,
                    "a legal action is outside the action space",
                ));
            }
            if !outcomes.is_empty() {
                return Err(fail(game, state, "chance outcomes at a player's turn"));
            }
            check_moves(game, state, &legal)?;
        }
        Turn::Chance => {
            if outcomes.is_empty() || !legal.is_empty() {
                return Err(fail(
                    game,
                    state,
                    "a chance state needs outcomes and no legal actions",
                ));
            }
            let total: f64 = outcomes.iter().map(|o| o.1).sum();
            if (total - 1.0).abs() > 1e-9 || outcomes.iter().any(|o| !o.1.is_finite() || o.1 <= 0.0)
            {
                return Err(fail(
                    game,
                    state,
                    &format!("chance probabilities {outcomes:?}"),
                ));
            }
            let mut actions: Vec<Action> = outcomes.iter().map(|o| o.0).collect();
            actions.sort_unstable();
            actions.dedup();
            if actions.len() != outcomes.len() {
                return Err(fail(game, state, "repeated chance outcome"));
            }
            for &(a, _) in &outcomes {
                if game.try_apply(state, a) != Ok(game.apply(state, a)) {
                    return Err(fail(game, state, "try_apply rejects a chance outcome"));
                }
            }
        }
        Turn::Terminal => {
            if !legal.is_empty() || !outcomes.is_empty() {
                return Err(fail(game, state, "moves offered at a terminal state"));
            }
            let returns = game.returns(state);
            if returns.len() != n || returns.as_slice().iter().any(|v| !v.is_finite()) {
                return Err(fail(game, state, &format!("bad returns {returns:?}")));
            }
            if let Some(sum) = opts.returns_sum {
                let s: f64 = returns.as_slice().iter().sum();
                if (s - sum).abs() > 1e-9 {
                    return Err(fail(game, state, &format!("returns sum to {s}, not {sum}")));
                }
            }
            if game.try_apply(state, 0).is_ok() {
                return Err(fail(game, state, "try_apply accepts a move after the end"));
            }
        }
    }
    let mut obs = vec![f32::NAN; game.observation_len()];
    for p in 0..n {
        game.observe(state, p, &mut obs);
        if obs.iter().any(|v| !v.is_finite()) {
            return Err(fail(
                game,
                state,
                "observation has a non-finite value (or an unwritten entry)",
            ));
        }
    }
    if let Some(board) = game.board_cells() {
        let mut cells = vec![u8::MAX; board.squares.len()];
        for p in 0..n {
            game.cell_values(state, p, &mut cells);
            if let Some(v) = cells.iter().find(|&&v| v >= board.values) {
                return Err(fail(
                    game,
                    state,
                    &format!(
                        "a cell holds {v}, not below the {} contents the board declares (or was not written)",
                        board.values
                    ),
                ));
            }
        }
    }
    if let Some(len) = game.state_index_len() {
        let i = game.state_index(state);
        if i >= len || game.state_from_index(i).as_ref() != Some(state) {
            return Err(fail(
                game,
                state,
                &format!("dense index {i} does not round-trip"),
            ));
        }
    }
    for sym in 0..game.num_symmetries() {
        let t = game.transform_state(state, sym);
        if game.transform_state(&t, game.inverse_symmetry(sym)) != *state {
            return Err(fail(
                game,
                state,
                &format!("symmetry {sym} and its inverse do not round-trip"),
            ));
        }
        if game.turn(&t) != game.turn(state) {
            return Err(fail(
                game,
                state,
                &format!("symmetry {sym} changes whose turn it is"),
            ));
        }
        for &a in &legal {
            let ta = game.transform_action(state, a, sym);
            if game.try_apply(&t, ta) != Ok(game.transform_state(&game.apply(state, a), sym)) {
                return Err(fail(
                    game,
                    state,
                    &format!("symmetry {sym} does not commute with action {a}"),
                ));
            }
        }
    }
    Ok(())
}

fn check_moves<G: Game>(game: &G, state: &G::State, legal: &[Action]) -> Result<(), String> {
    let mut names = Vec::new();
    for &a in legal {
        let next = game.apply(state, a);
        if game.try_apply(state, a).as_ref() != Ok(&next) {
            return Err(fail(
                game,
                state,
                &format!("try_apply({a}) disagrees with apply"),
            ));
        }
        let name = game.action_to_string(state, a);
        if name.trim().is_empty() {
            return Err(fail(game, state, &format!("action {a} has an empty name")));
        }
        if game.parse_action(state, &name) != Ok(a) {
            return Err(fail(
                game,
                state,
                &format!("action name {name:?} does not parse back to {a}"),
            ));
        }
        names.push(name.to_lowercase());
    }
    let count = names.len();
    names.sort();
    names.dedup();
    if names.len() != count {
        return Err(fail(game, state, "two legal actions share a name"));
    }
    if let Some(illegal) = (0..game.num_distinct_actions() as Action).find(|a| !legal.contains(a)) {
        match game.try_apply(state, illegal) {
            Ok(_) => {
                return Err(fail(
                    game,
                    state,
                    &format!("try_apply accepts illegal action {illegal}"),
                ));
            }
            Err(e) if e.legal.len() != legal.len() => {
                return Err(fail(
                    game,
                    state,
                    &format!(
                        "the error for an illegal action lists {} moves, not {}",
                        e.legal.len(),
                        legal.len()
                    ),
                ));
            }
            Err(_) => {}
        }
    }
    if game.parse_action(state, "no such move").is_ok() {
        return Err(fail(game, state, "parse_action accepts nonsense"));
    }
    Ok(())
}

/// The end of each episode: the final state and every seat's reward.
type Trace<S> = Vec<(S, Vec<f64>)>;

/// Both environment views: masks match legal actions, rewards are zero until the end and then
/// the returns, and the same seed gives the same episode.
fn check_envs<G: Game>(game: &G, opts: &CheckOptions) -> Result<(), String> {
    let episodes = opts.episodes.clamp(1, 20);
    let run_aec = |seed: u64| -> Result<Trace<G::State>, String> {
        let mut env = AecEnv::new(game.clone(), seed).with_max_plies(opts.max_plies);
        let mut r = rng(seed ^ 0xA5A5);
        let mut trace = Vec::new();
        for _ in 0..episodes {
            env.reset(None);
            while let Some(agent) = env.agent_selection() {
                let legal = env.legal_actions().to_vec();
                let mask = env.action_mask();
                if mask.len() != game.num_distinct_actions()
                    || mask.iter().filter(|&&m| m).count() != legal.len()
                    || legal.iter().any(|&a| !mask[a as usize])
                {
                    return Err(fail(
                        game,
                        env.state(),
                        "AEC action mask disagrees with legal actions",
                    ));
                }
                let (_, reward, terminated, _, _) = env.last(agent);
                if reward != 0.0 || terminated {
                    return Err(fail(game, env.state(), "reward before the end"));
                }
                env.step(legal[r.random_range(0..legal.len())])
                    .map_err(|e| fail(game, env.state(), &e.to_string()))?;
            }
            if let Some(ret) = env.returns()
                && env.rewards() != ret.as_slice()
            {
                return Err(fail(
                    game,
                    env.state(),
                    "AEC rewards at the end differ from the returns",
                ));
            }
            trace.push((env.state().clone(), env.rewards().to_vec()));
        }
        Ok(trace)
    };
    if run_aec(opts.seed)? != run_aec(opts.seed)? {
        return Err(format!(
            "{}: the AEC environment is not deterministic under its seed",
            game.name()
        ));
    }
    let run_single = |seat: usize, seed: u64| -> Result<Vec<(G::State, f64)>, String> {
        let policies = (0..game.num_players())
            .map(|p| {
                (p != seat)
                    .then(|| Box::new(RandomPolicy) as Box<dyn crate::core::policy::Policy<G>>)
            })
            .collect();
        let mut env = Env::with_opponents(game.clone(), seat, policies, seed)
            .map_err(|e| format!("{}: {e}", game.name()))?
            .with_max_plies(opts.max_plies);
        let mut r = rng(seed ^ 0x5A5A);
        let mut trace = Vec::new();
        for _ in 0..episodes {
            let (_, info) = env.reset(None);
            if !env.is_done() && info.turn != Turn::Player(seat) {
                return Err(fail(
                    game,
                    env.state(),
                    "reset() returned when it was not the learner's turn",
                ));
            }
            let mut last_reward = None;
            while !env.is_done() {
                let legal = env.legal_actions().to_vec();
                let step = env
                    .step(legal[r.random_range(0..legal.len())])
                    .map_err(|e| fail(game, env.state(), &e.to_string()))?;
                if !step.terminated && !step.truncated && step.info.turn != Turn::Player(seat) {
                    return Err(fail(
                        game,
                        env.state(),
                        "step() returned when it was not the learner's turn",
                    ));
                }
                // A game's own cap (truncated, not terminated) pays the returns its rules give.
                if !step.terminated && !step.truncated && step.reward != 0.0 {
                    return Err(fail(game, env.state(), "reward before the end"));
                }
                last_reward = Some(step.reward);
            }
            if let (Some(ret), Some(reward)) = (env.returns(), last_reward)
                && ret[seat] != reward
            {
                return Err(fail(
                    game,
                    env.state(),
                    "the final reward is not the seat's return",
                ));
            }
            if env.step(0).is_ok() {
                return Err(fail(game, env.state(), "step() after the end succeeded"));
            }
            trace.push((env.state().clone(), env.returns().map_or(0.0, |r| r[seat])));
        }
        Ok(trace)
    };
    for seat in 0..game.num_players() {
        if run_single(seat, opts.seed)? != run_single(seat, opts.seed)? {
            return Err(format!(
                "{}: the single-agent environment is not deterministic under its seed",
                game.name()
            ));
        }
    }
    Ok(())
}

/// A seeded random game written out move by move, as OpenSpiel's playthroughs are: every
/// position as the game draws it, who acts, the legal actions (with their numbers) or the chance
/// outcomes (with their probabilities), the move taken, and the returns at the end. Stored
/// playthroughs pin a game's rules: any change of a rule, a notation or a rendering shows.
pub fn playthrough<G: Game>(game: &G, seed: u64) -> String {
    use crate::core::policy::{Policy, sample};
    let mut r = rng(seed);
    let mut state = game.initial_state();
    let mut out = format!(
        "game: {} {}\nplayers: {}\nseed: {seed}\n",
        game.name(),
        game.params(),
        (0..game.num_players())
            .map(|p| game.player_name(p))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (mut legal, mut outcomes) = (Vec::new(), Vec::new());
    for ply in 0.. {
        out.push_str(&format!("\nply {ply}\n{}", game.render(&state)));
        if !out.ends_with('\n') {
            out.push('\n');
        }
        let action = match game.turn(&state) {
            Turn::Terminal => break,
            Turn::Chance => {
                game.chance_outcomes(&state, &mut outcomes);
                let listed: Vec<String> = outcomes
                    .iter()
                    .map(|&(a, p)| format!("{}={a} ({p:.4})", game.action_to_string(&state, a)))
                    .collect();
                out.push_str(&format!("chance: {}\n", listed.join(" ")));
                let (actions, probs): (Vec<Action>, Vec<f64>) = outcomes.iter().copied().unzip();
                sample(&actions, &probs, &mut r).expect("chance outcomes sum to one")
            }
            Turn::Player(p) => {
                game.legal_actions(&state, &mut legal);
                let listed: Vec<String> = legal
                    .iter()
                    .map(|&a| format!("{}={a}", game.action_to_string(&state, a)))
                    .collect();
                out.push_str(&format!(
                    "{} to move: {}\n",
                    game.player_name(p),
                    listed.join(" ")
                ));
                RandomPolicy
                    .choose(game, &state, &legal, &mut r)
                    .expect("random play never resigns")
            }
        };
        out.push_str(&format!(
            "plays {}\n",
            game.action_to_string(&state, action)
        ));
        state = game.apply(&state, action);
    }
    let returns = game.returns(&state);
    out.push_str(&format!("returns: {:?}\n", returns.as_slice()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Hexapawn, HexapawnParams, TicTacToe};

    #[test]
    fn shipped_games_pass() {
        check_game(&TicTacToe, &CheckOptions::default()).unwrap();
        for (rows, cols) in [(3, 3), (4, 4), (3, 5), (5, 3)] {
            let g = Hexapawn::new(HexapawnParams { rows, cols }).unwrap();
            check_game(&g, &CheckOptions::default()).unwrap();
        }
    }
}
