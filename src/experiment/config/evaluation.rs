//! `[evaluation]` of one game, checked: the evaluator (the config's choice, or the exact one
//! where the game allows it), its references (an AI, a saved agent), the held-out game, the
//! best response and the rating over every position; opponents the game cannot supply are
//! refused here too, before any work.

use std::num::NonZeroU64;
use std::path::PathBuf;

use super::{
    BestResponseToml, ConfigError, DEFAULT_MATCH_GAMES, Evaluation, EvaluationToml, EvaluatorName,
    GameEntry, MAX_MATCH_GAMES, ReferenceAi,
};
use crate::ai::players::PlayerSpec;
use crate::core::game::Game;
use crate::experiment::opponents::{OpponentPolicy, OpponentSpec};
use crate::games::{AnyGame, GameSpecError};
use crate::io::source::Source;

/// What `[evaluation]` says for one game, checked.
pub(super) struct Checked {
    pub(super) evaluation: Evaluation,
    /// The AI the match evaluator plays as a reference (`ai`).
    pub(super) reference_ai: Option<ReferenceAi>,
    /// `held_out`: the keys as given, and the held-out game's parameters.
    pub(super) held_out: Option<(toml::Table, toml::Table)>,
    /// `agent`: the saved agent every evaluation measures the learner against.
    pub(super) reference_agent: Option<PathBuf>,
    /// `best_response`: the most positions the best-response evaluator may enumerate per seat.
    pub(super) best_response: Option<usize>,
    pub(super) all_positions: bool,
}

/// `[evaluation]` (`given`) for the game `entry`, trained against `opponents`, checked in turn:
/// the evaluator, the AI, the held-out game, the best response, the agent, every position.
pub(super) fn checked(
    src: &Source,
    given: &EvaluationToml,
    entry: &GameEntry,
    opponents: &[OpponentSpec],
) -> Result<Checked, ConfigError> {
    let evaluation = evaluation_of(src, given, entry, opponents)?;
    let reference_ai = reference_ai_of(src, given, entry, evaluation)?;
    let held_out = match &given.held_out {
        None => None,
        Some(keys) => Some(held_out_of(src, keys, entry, evaluation)?),
    };
    let best_response = best_response_of(src, given, evaluation)?;
    let reference_agent = reference_agent_of(src, given, entry)?;
    let all_positions = given.all_positions == Some(true);
    if all_positions && evaluation == Evaluation::Exact {
        return Err(src.error(
            "evaluation.all_positions",
            "the exact evaluator rates every position already (`greedy_optimal_rate_all`); all_positions is for evaluator = \"match\"",
        ));
    }
    Ok(Checked {
        evaluation,
        reference_ai,
        held_out,
        reference_agent,
        best_response,
        all_positions,
    })
}

/// `ai`: the search AI or MCTS the match evaluator plays, its settings checked for the game.
fn reference_ai_of(
    src: &Source,
    given: &EvaluationToml,
    entry: &GameEntry,
    evaluation: Evaluation,
) -> Result<Option<ReferenceAi>, ConfigError> {
    Ok(match &given.ai {
        None => None,
        Some(_) if evaluation == Evaluation::Exact => {
            return Err(src.error(
                "evaluation.ai",
                "an AI reference is played by the match evaluator; add evaluator = \"match\"",
            ));
        }
        Some(spec) => {
            let checked = match PlayerSpec::parse(spec) {
                Ok(PlayerSpec::Mcts(o)) => {
                    with_game!(&entry.game, g => o.check(g)).map(|()| ReferenceAi::Mcts(o))
                }
                Ok(PlayerSpec::Search(o)) => {
                    with_game!(&entry.game, g => o.evaluator(g).map(|_| ()))
                        .map(|()| ReferenceAi::Search(o))
                }
                Ok(other) => Err(format!(
                    "`{}`: an AI reference is search settings (depth=N,...) or mcts settings; the exact reference is the solution's",
                    other.name()
                )),
                Err(e) => Err(e),
            };
            Some(checked.map_err(|e| src.error("evaluation.ai", e))?)
        }
    })
}

/// `best_response`: off, on (with the default limit) or the most positions per seat; the match
/// evaluator's alone.
fn best_response_of(
    src: &Source,
    given: &EvaluationToml,
    evaluation: Evaluation,
) -> Result<Option<usize>, ConfigError> {
    Ok(match given.best_response {
        None | Some(BestResponseToml::On(false)) => None,
        Some(_) if evaluation == Evaluation::Exact => {
            return Err(src.error(
                "evaluation.best_response",
                "the exact evaluator measures every position already (`worst_case_return`); best_response is for evaluator = \"match\"",
            ));
        }
        Some(BestResponseToml::On(true)) => Some(crate::eval::response::DEFAULT_RESPONSE_LIMIT),
        Some(BestResponseToml::Limit(0)) => {
            return Err(src.error(
                "evaluation.best_response",
                "give true, false or the most positions an evaluation may enumerate (at least 1)",
            ));
        }
        Some(BestResponseToml::Limit(n)) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
    })
}

/// `agent`: a saved agent's file, which must load for the game.
fn reference_agent_of(
    src: &Source,
    given: &EvaluationToml,
    entry: &GameEntry,
) -> Result<Option<PathBuf>, ConfigError> {
    let Some(file) = &given.agent else {
        return Ok(None);
    };
    let path = PathBuf::from(file);
    with_game!(&entry.game, g => {
        crate::learn::saved::load_agent(g, &path).map(|_| ())
    })
    .map_err(|e| src.error("evaluation.agent", format!("{e:#}")))?;
    Ok(Some(path))
}

/// The evaluator of a game's run: the config's choice, or the exact one where the game's
/// capabilities allow it; opponents that the game cannot supply are refused here, before work.
fn evaluation_of(
    src: &Source,
    given: &EvaluationToml,
    entry: &GameEntry,
    opponents: &[OpponentSpec],
) -> Result<Evaluation, ConfigError> {
    let caps = with_game!(&entry.game, g => g.capabilities());
    let refusal = caps.enumeration_refusal(crate::truth::DEFAULT_STATE_LIMIT);
    let evaluation = match (given.evaluator, &refusal) {
        (Some(EvaluatorName::Exact), Some(why)) => {
            return Err(src.error(
                "evaluation.evaluator",
                format!(
                    "{} cannot be evaluated exactly: {why}; use evaluator = \"match\"",
                    entry.game.name()
                ),
            ));
        }
        (None, None) if given.games.is_some() => {
            return Err(src.error(
                "evaluation.games",
                format!(
                    "`games` belongs to the match evaluator; {} is evaluated exactly unless evaluator = \"match\"",
                    entry.game.name()
                ),
            ));
        }
        (Some(EvaluatorName::Exact), None) | (None, None) => Evaluation::Exact,
        _ if given.games.is_some_and(|g| g.get() > MAX_MATCH_GAMES) => {
            let games = given.games.map_or(0, NonZeroU64::get);
            return Err(src.error(
                "evaluation.games",
                format!(
                    "games = {} is more than one evaluation plays (at most {}): each game's \
                     result is kept until the evaluation ends (24 bytes a game, {} in all) and a \
                     game takes about a microsecond; a few thousand games give a rate to ±2%",
                    crate::io::text::group(&games.to_string()),
                    crate::io::text::group(&MAX_MATCH_GAMES.to_string()),
                    crate::io::memory::human(games.saturating_mul(24)),
                ),
            ));
        }
        _ => Evaluation::Match {
            games: given.games.unwrap_or(DEFAULT_MATCH_GAMES),
        },
    };
    for (i, o) in opponents.iter().enumerate() {
        let heuristic = with_game!(&entry.game, g => g.heuristic(&g.initial_state(), 0).is_some());
        let why = if o.policy.needs_oracle() && caps.solver == crate::core::game::Solver::None {
            "has no exact solver, so no perfect play to train against"
        } else if o.policy.needs_heuristic() && !heuristic {
            "has no heuristic for a greedy or search player"
        } else if o.frozen().is_some() && refusal.is_some() {
            "cannot have every position enumerated, and a frozen copy is tabulated over them"
        } else {
            if let OpponentPolicy::Player(PlayerSpec::Search(options)) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => options.evaluator(g).map(|_| ()))
            {
                return Err(src.error(&format!("opponents[{i}].settings"), e));
            }
            if let OpponentPolicy::Player(PlayerSpec::Mcts(options)) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => options.check(g))
            {
                return Err(src.error(&format!("opponents[{i}].settings"), e));
            }
            if let OpponentPolicy::Player(PlayerSpec::Agent(file)) = &o.policy
                && let Err(e) = with_game!(&entry.game, g => {
                    crate::learn::saved::load_agent(g, file).map(|_| ())
                })
            {
                return Err(src.error(&format!("opponents[{i}].agent"), format!("{e:#}")));
            }
            continue;
        };
        return Err(src.error(
            &format!("opponents[{i}].policy"),
            format!("{} {why}", entry.game.name()),
        ));
    }
    Ok(evaluation)
}

/// `[evaluation] held_out`: the keys as given and the held-out game's parameters, checked: the
/// game builds with them, differs from the training game, is evaluated exactly, and is observed
/// and acted in alike (a learner made for the one reads the other).
fn held_out_of(
    src: &Source,
    keys: &toml::Table,
    entry: &GameEntry,
    evaluation: Evaluation,
) -> Result<(toml::Table, toml::Table), ConfigError> {
    const KEY: &str = "evaluation.held_out";
    if evaluation != Evaluation::Exact {
        return Err(src.error(
            KEY,
            "a held-out game is measured by the exact evaluator (every position enumerated); remove evaluator = \"match\"",
        ));
    }
    if keys.is_empty() {
        return Err(src.error(
            KEY,
            "give the game parameters that make the held-out game, e.g. held_out = { deal = \"held-out\" }",
        ));
    }
    let mut params = entry.params.clone();
    params.extend(keys.clone());
    let error = |e: GameSpecError| match &e {
        GameSpecError::BadParams { key: Some(k), .. } => {
            src.error(&format!("{KEY}.{k}"), e.to_string())
        }
        _ => src.error(KEY, e.to_string()),
    };
    let game = AnyGame::from_spec(&entry.name, params.clone()).map_err(error)?;
    let params = game.resolved_params(&entry.name, params).map_err(error)?;
    if params == entry.params {
        return Err(src.error(
            KEY,
            "these parameters make the training game itself; change one (e.g. deal = \"held-out\")",
        ));
    }
    let shape = |g: &AnyGame| with_game!(g, g => (g.num_players(), g.num_distinct_actions(), g.observation_len()));
    let (trained, held) = (shape(&entry.game), shape(&game));
    if trained != held {
        return Err(src.error(
            KEY,
            format!(
                "the held-out game must be played and observed alike: it has {} players, {} actions and observations of {} numbers, the training game {}, {} and {}",
                held.0, held.1, held.2, trained.0, trained.1, trained.2
            ),
        ));
    }
    let caps = with_game!(&game, g => g.capabilities());
    if let Some(why) = caps.enumeration_refusal(crate::truth::DEFAULT_STATE_LIMIT) {
        return Err(src.error(
            KEY,
            format!("the held-out game cannot be evaluated exactly: {why}"),
        ));
    }
    Ok((keys.clone(), params))
}
