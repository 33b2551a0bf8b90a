//! What the runs of one game share, found once before any of them trains ([`Truth`]): every
//! position with its value (the exact evaluator), or the game's own solver (perfect play for
//! opponents), the held-out game's positions, the fixed opponents and the reference agent
//! tabulated for the exact evaluator, and the saved agents the runs play ([`Agents`]).

use anyhow::{Context, Result};

use super::agents::Agents;
use super::config::{Evaluation, ExperimentConfig};
use super::plan::Condition;
use super::progress::Progress;
use crate::core::game::Game;
use crate::core::graph::StateGraph;
use crate::eval::exact::ExactTruth;
use crate::eval::{ExpectedResult, Profile};
use crate::truth::oracle::{GraphOracle, Oracle};
use crate::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions, SolveReport};

/// A policy tabulated for the exact evaluator, with a reference result against it at each seat.
pub(super) type Tabulated = (Profile, Vec<ExpectedResult>);

/// What a run knows of its game, found once: every position with its value (the exact
/// evaluator), or the game's own solver (perfect play for opponents), or nothing.
pub(super) struct Truth<'s, G: Game> {
    pub(super) exact: Option<ExactTruth<'s, G>>,
    pub(super) oracle: Option<&'s dyn Oracle<G>>,
    /// The state graph frozen copies are tabulated over.
    pub(super) graph: Option<&'s StateGraph<G>>,
    /// The held-out game's truth (`[evaluation] held_out`): every evaluation also scores the
    /// learner's play there.
    pub(super) held_out: Option<ExactTruth<'s, G>>,
    /// The fixed training opponent of each condition, tabulated for the exact evaluator, with
    /// the best response's result against it at each seat (the ceiling: the reference lines
    /// of the results against it).
    pub(super) opponents: Vec<Option<Tabulated>>,
    /// The saved agent of `[evaluation] agent`, tabulated for the exact evaluator, with perfect
    /// play's result against it at each seat.
    pub(super) agent: Option<Tabulated>,
    /// The saved agents the runs play, each read once.
    pub(super) agents: Agents<G>,
}

/// Whether the runs of `game` enumerate its positions: for the exact evaluator, or wherever the
/// game allows it (the match evaluator plays perfect play from them; frozen copies are
/// tabulated over them).
pub(super) fn enumerates<G: Game>(game: &G, config: &ExperimentConfig) -> bool {
    config.evaluation() == Evaluation::Exact
        || game
            .capabilities()
            .enumeration_refusal(DEFAULT_STATE_LIMIT)
            .is_none()
}

/// Finds the truth a run of `config` on `game` needs, once ([`Truth`]), and hands it to `f`
/// with the oracle's report (its timing left out: the summary must be the same bytes on every
/// run).
pub(super) fn with_truth<G: Solve, R>(
    game: &G,
    config: &ExperimentConfig,
    conditions: &[Condition],
    progress: &Progress,
    f: impl FnOnce(&Truth<G>, Option<SolveReport>) -> Result<R>,
) -> Result<R> {
    // The truth: every position where the game allows it (the exact evaluator reads them all;
    // the match evaluator plays perfect play from them; frozen copies are tabulated over them),
    // else the game's own solver where an opponent plays perfectly.
    let solution = match enumerates(game, config) {
        true => Some(enumerated(game, progress)?),
        false => None,
    };
    let own = match solution {
        None if needs_oracle(config, conditions) => Some(own_solution(game, progress)?),
        _ => None,
    };
    let held_game = held_out_game(game, config)?;
    let held_solution = match &held_game {
        Some(held) => Some(held_out_solution(held, progress)?),
        None => None,
    };
    let held_out = match &held_solution {
        Some(s) => Some(ExactTruth::new(s.graph(), s.as_oracle())?),
        None => None,
    };
    let oracle: Option<&dyn Oracle<G>> = match (&solution, &own) {
        (Some(s), _) => Some(s.as_oracle()),
        (None, Some(o)) => Some(o.as_ref()),
        (None, None) => None,
    };
    let exact = match (&solution, config.evaluation()) {
        (Some(s), Evaluation::Exact) => Some(ExactTruth::new(s.graph(), s.as_oracle())?),
        _ => None,
    };
    let agents = Agents::load(game, config)?;
    let truth = Truth {
        opponents: tabulated_opponents(game, conditions, exact.as_ref(), oracle, &agents)?,
        agent: tabulated_agent(config, exact.as_ref(), &agents)?,
        exact,
        oracle,
        graph: solution.as_ref().map(|s| s.graph()),
        held_out,
        agents,
    };
    let mut report = oracle.map(|o| o.report());
    if let Some(r) = &mut report {
        // The summary must be the same bytes on every run.
        r.seconds = None;
    }
    f(&truth, report)
}

/// Whether a perfect player is needed where the positions are not enumerated: an opponent that
/// plays perfectly, or an evaluation that measures against perfect play.
fn needs_oracle(config: &ExperimentConfig, conditions: &[Condition]) -> bool {
    conditions
        .iter()
        .any(|c| c.opponent.is_some_and(|o| o.policy.needs_oracle()))
        || config.best_response().is_some()
        || config.all_positions()
}

/// Every position of `game` with its value.
fn enumerated<G: Game>(game: &G, progress: &Progress) -> Result<Box<dyn GraphOracle<G>>> {
    progress.note(format_args!("solving {} ...", game.name()));
    let solution = crate::truth::enumerate(game, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("solving {} for the evaluator", game.name()))?;
    progress.note(format_args!(
        "  {}: {} states, {} ({:.3} s)",
        game.name(),
        crate::io::text::group(&solution.graph().len().to_string()),
        solution.describe_start(),
        solution.seconds()
    ));
    Ok(solution)
}

/// The game's own solver, for perfect play where its positions are not enumerated.
fn own_solution<G: Solve>(game: &G, progress: &Progress) -> Result<Box<dyn Oracle<G>>> {
    progress.note(format_args!(
        "solving {} with its own solver for perfect play ...",
        game.name()
    ));
    let options = SolveOptions {
        counts: false,
        progress: progress.on,
        ..SolveOptions::default()
    };
    Ok(progress.bar.suspend(|| game.solve(&options))?)
}

/// Every position of the held-out game with its value.
fn held_out_solution<G: Game>(held: &G, progress: &Progress) -> Result<Box<dyn GraphOracle<G>>> {
    progress.note(format_args!("solving the held-out {} ...", held.name()));
    let solution = crate::truth::enumerate(held, DEFAULT_STATE_LIMIT)
        .with_context(|| format!("solving the held-out {}", held.name()))?;
    progress.note(format_args!(
        "  held out: {} states, {}",
        crate::io::text::group(&solution.graph().len().to_string()),
        solution.describe_start(),
    ));
    Ok(solution)
}

/// The fixed opponent of each condition tabulated for the exact evaluator (`exact`), with the
/// best response's results against it: the ceiling, the reference lines of the results
/// against it. `None` for a condition in self-play or against a frozen copy, and for all of
/// them without the exact evaluator.
fn tabulated_opponents<G: Game>(
    game: &G,
    conditions: &[Condition],
    exact: Option<&ExactTruth<G>>,
    oracle: Option<&dyn Oracle<G>>,
    agents: &Agents<G>,
) -> Result<Vec<Option<Tabulated>>> {
    conditions
        .iter()
        .map(|c| match (exact, c.opponent) {
            (Some(t), Some(o)) if o.frozen().is_none() => {
                let profile = t.tabulate(agents.opponent(&o.policy, game, oracle)?.as_ref())?;
                let ceiling = t.best_against(&profile)?;
                Ok(Some((profile, ceiling)))
            }
            _ => Ok(None),
        })
        .collect()
}

/// The saved agent every evaluation plays (`[evaluation] agent`), tabulated once for the
/// exact evaluator (`exact`) with perfect play's results against it.
fn tabulated_agent<G: Game>(
    config: &ExperimentConfig,
    exact: Option<&ExactTruth<G>>,
    agents: &Agents<G>,
) -> Result<Option<Tabulated>> {
    let (Some(t), Some(file)) = (exact, config.reference_agent()) else {
        return Ok(None);
    };
    let profile = t.tabulate(&agents.get(file))?;
    let perfect = t.perfect_against(&profile)?;
    Ok(Some((profile, perfect)))
}

/// The held-out game of `config` (`[evaluation] held_out`) as the type of `game`: a game of the
/// registry, played by its own rules (runs with a held-out game are not played from a table,
/// whose positions are one game's numbers).
fn held_out_game<G: Game>(game: &G, config: &ExperimentConfig) -> Result<Option<G>> {
    let Some(held) = config.held_out_game() else {
        return Ok(None);
    };
    let held = held.context("`evaluation.held_out`: building the held-out game")?;
    let typed = with_game!(&held, g => (g as &dyn std::any::Any).downcast_ref::<G>().cloned());
    typed.map(Some).with_context(|| {
        format!(
            "the held-out {} is played by its own rules, not from a table",
            game.name()
        )
    })
}
