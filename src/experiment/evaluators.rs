//! How a run's learner is evaluated: the exact evaluator where the positions are enumerated,
//! else matches against the references (random, optimal, the reference agent and AI, the
//! training opponent), with the best response beside them where the config asks; and the
//! held-out game's figures beside the training game's ([`Beside`]).

use anyhow::Result;

use super::config::{self, Evaluation, ExperimentConfig};
use super::plan::Condition;
use super::truth::Truth;
use crate::core::game::Game;
use crate::core::policy::{Policy, RandomPolicy};
use crate::core::random::derive_seed;
use crate::eval::exact::ExactEvaluator;
use crate::eval::matches::{MatchEvaluator, Reference};
use crate::eval::response::ResponseEvaluator;
use crate::eval::{Evaluator, FrozenPolicy, Metric, Role};
use crate::learn::Learner;
use crate::truth::OptimalPolicy;

/// The evaluator of condition `c` for the run seeded `seed` (the match evaluator's deals come
/// from it); `learner` tells whether the learner learns values.
pub(super) fn evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    c: usize,
    cond: &Condition,
    seed: u64,
    learner: &dyn Learner<G>,
) -> Result<Box<dyn Evaluator<G> + 't>> {
    let seats = cond.learner.seat.players(game.num_players());
    let trained = trained_evaluator(game, config, truth, c, cond, seed, learner)?;
    Ok(match &truth.held_out {
        // The learner's play on positions it never trained on: no training opponent there.
        Some(held) => Box::new(Beside::held_out(
            trained,
            Box::new(ExactEvaluator::new(
                held,
                seats,
                None,
                false,
                learner.learns_values(),
            )),
        )),
        None => trained,
    })
}

/// The evaluator of condition `c` on the training game (see [`evaluator`]).
fn trained_evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    c: usize,
    cond: &Condition,
    seed: u64,
    learner: &dyn Learner<G>,
) -> Result<Box<dyn Evaluator<G> + 't>> {
    let seats = cond.learner.seat.players(game.num_players());
    let copy = cond.opponent.is_some_and(|o| o.frozen().is_some());
    Ok(match (config.evaluation(), &truth.exact) {
        (Evaluation::Exact, Some(exact)) => Box::new(
            ExactEvaluator::new(
                exact,
                seats,
                truth.opponents[c].as_ref().map(|(p, r)| (p, r.as_slice())),
                copy,
                learner.learns_values(),
            )
            .with_agent(truth.agent.as_ref().map(|(p, r)| (p, r.as_slice()))),
        ),
        (evaluation, _) => match_evaluator(game, config, truth, cond, seed, evaluation)?,
    })
}

/// The match evaluator of condition `cond` for the run seeded `seed` (`evaluation`: the
/// config's, or the exact one where the positions are not enumerated, which plays the
/// default number of games), with the best-response evaluator beside it where the config asks.
fn match_evaluator<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    cond: &Condition,
    seed: u64,
    evaluation: Evaluation,
) -> Result<Box<dyn Evaluator<G> + 't>> {
    let seats = cond.learner.seat.players(game.num_players());
    let games = match evaluation {
        Evaluation::Match { games } => games.get(),
        Evaluation::Exact => config::DEFAULT_MATCH_GAMES.get(),
    };
    let matches: Box<dyn Evaluator<G> + 't> = Box::new(MatchEvaluator::new(
        game,
        seats.clone(),
        references(game, config, truth, cond)?,
        games,
        derive_seed(seed, 3),
    ));
    let (limit, all) = (config.best_response(), config.all_positions());
    if limit.is_none() && !all {
        return Ok(matches);
    }
    let response = ResponseEvaluator::new(game, seats, truth.oracle, limit, all)
        .map_err(|e| anyhow::anyhow!("[evaluation]: {e}"))?;
    Ok(Box::new(Beside::new(vec![
        (matches, true),
        (Box::new(response), true),
    ])))
}

/// The references the match evaluator plays the learner against, in their order: random,
/// optimal (where an oracle answers), the reference agent and AI (where the config names
/// them), the training opponent (`None`: the frozen copy, handed over at each evaluation).
fn references<'t, G: Game>(
    game: &G,
    config: &ExperimentConfig,
    truth: &'t Truth<'t, G>,
    cond: &Condition,
) -> Result<Vec<Reference<'t, G>>> {
    let mut references: Vec<Reference<'t, G>> =
        vec![("random".into(), Some(Box::new(RandomPolicy)))];
    if let Some(oracle) = truth.oracle {
        references.push(("optimal".into(), Some(Box::new(OptimalPolicy::new(oracle)))));
    }
    if let Some(file) = config.reference_agent() {
        references.push(("agent".into(), Some(Box::new(truth.agents.get(file)))));
    }
    if let Some(ai) = config.reference_ai() {
        let policy: Box<dyn Policy<G>> = match ai {
            config::ReferenceAi::Search(o) => Box::new(
                crate::ai::search::SearchPolicy::for_game(o.clone(), game)
                    .map_err(|e| anyhow::anyhow!("[evaluation] ai: {e}"))?,
            ),
            config::ReferenceAi::Mcts(o) => Box::new(
                crate::ai::mcts::MctsPolicy::for_game(o.clone(), game)
                    .map_err(|e| anyhow::anyhow!("[evaluation] ai: {e}"))?,
            ),
        };
        references.push(("ai".into(), Some(policy)));
    }
    if let Some(o) = cond.opponent {
        let policy = match o.frozen() {
            Some(_) => None,
            None => Some(truth.agents.opponent(&o.policy, game, truth.oracle)?),
        };
        references.push(("opponent".into(), policy));
    }
    Ok(references)
}

/// Evaluators recorded side by side: each one's metrics in turn. A part of another game (the
/// held-out one) is not handed the frozen copy of the training opponent.
struct Beside<'t, G: Game> {
    parts: Vec<(Box<dyn Evaluator<G> + 't>, bool)>,
    metrics: Vec<Metric>,
}

impl<'t, G: Game> Beside<'t, G> {
    /// `parts`, each with whether it reads the frozen copy (its game is the training game).
    fn new(parts: Vec<(Box<dyn Evaluator<G> + 't>, bool)>) -> Self {
        let metrics = parts
            .iter()
            .flat_map(|(p, _)| p.metrics().to_vec())
            .collect();
        Beside { parts, metrics }
    }

    /// `trained` and, beside it, every metric of `held_out` measured on the held-out game: its
    /// name with [`config::HELD_OUT_SUFFIX`], its title saying so, and no role (the thresholds,
    /// the summary's columns and perfect play read the training game's figures).
    fn held_out(trained: Box<dyn Evaluator<G> + 't>, held_out: Box<dyn Evaluator<G> + 't>) -> Self {
        let first = trained.metrics().len();
        let mut beside = Beside::new(vec![(trained, true), (held_out, false)]);
        for m in &mut beside.metrics[first..] {
            m.name.push_str(config::HELD_OUT_SUFFIX);
            m.title.push_str(" (held-out positions)");
            if let Some((low, high)) = &mut m.interval {
                low.push_str(config::HELD_OUT_SUFFIX);
                high.push_str(config::HELD_OUT_SUFFIX);
            }
            m.role = Role::Plain;
        }
        beside
    }
}

impl<G: Game> Evaluator<G> for Beside<'_, G> {
    fn metrics(&self) -> &[Metric] {
        &self.metrics
    }
    fn evaluate(
        &self,
        learner: &dyn Learner<G>,
        copy: Option<&FrozenPolicy<'_, G>>,
    ) -> Result<Vec<f64>, crate::eval::EvalError> {
        let mut values = Vec::with_capacity(self.metrics.len());
        for (part, reads_copy) in &self.parts {
            values.extend(part.evaluate(learner, copy.filter(|_| *reads_copy))?);
        }
        Ok(values)
    }
}
