//! How well a search AI plays, measured against exact truth. The game is enumerated and solved
//! once; each search setting then chooses a move at every position of the state graph (in
//! parallel: every position is searched on its own, so the table does not depend on the
//! number of threads), and the exact evaluator's dynamic programs compare that table with the
//! truth, for each seat the AI may take, with the other seats playing perfectly:
//!
//! - the **optimal-move rate** (a move keeps the value where the oracle's `keeps_value` says
//!   so): over every reachable position of the seat ([`PolicyReport::optimal_rate_all`]), and
//!   along play ([`optimal_rate_along_play`]: each position weighted by the probability that
//!   games of the AI against perfect play reach it);
//! - the **exact win probability against perfect play**, next to the optimum (the seat's win
//!   probability under perfect play when every other seat plays against it), and the same for
//!   the expected return;
//! - the **search effort**: positions visited per decision (mean over every searched position).
//!
//! With more than two seats "perfect play" by the others is each seat maximising its own
//! paranoid value, not a coalition, so the AI may then do better than its optimum.

use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use thiserror::Error;

use crate::ai::search::{Evaluator, SearchOptions};
use crate::core::game::{Action, Game, Player, Turn};
use crate::core::graph::{StateGraph, StateId};
use crate::core::policy::Policy;
use crate::eval::{
    EvalError, GraphTruth, Objective, PolicyReport, Profile, evaluate_profile, expected_result_of,
    minimax_return, optimal_rate_along_play, worst_case_of,
};
use crate::truth::OptimalPolicy;
use crate::truth::{DEFAULT_STATE_LIMIT, SolveError};

/// Why a rating could not be made.
#[derive(Debug, Error)]
pub enum QualityError {
    /// The solve's error is told in this message, not again as its source.
    #[error("rating a search needs every position solved exactly: {0}")]
    Solve(SolveError),
    #[error(transparent)]
    Eval(#[from] EvalError),
    #[error("search settings {settings}: {why}")]
    Settings { settings: String, why: String },
    /// A position asked for that no player moves at or that the start does not reach.
    #[error("no player moves at this position, or the start does not reach it:\n{0}")]
    Position(String),
}

impl From<SolveError> for QualityError {
    fn from(e: SolveError) -> Self {
        QualityError::Solve(e)
    }
}

impl From<crate::core::graph::GraphError> for QualityError {
    fn from(e: crate::core::graph::GraphError) -> Self {
        QualityError::Eval(e.into())
    }
}

/// One seat's figures for one search setting (the AI at `seat`, every other seat perfect).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatQuality {
    pub seat: Player,
    pub player: String,
    /// Share of the seat's reachable positions where the search keeps the value.
    pub optimal_rate_all: f64,
    /// The seat's reachable positions (where it moves).
    pub positions: usize,
    /// The same share along play against perfect play: expected value-keeping decisions over
    /// expected decisions.
    pub optimal_rate_along_play: f64,
    /// Expected decisions of the seat per game against perfect play.
    pub decisions_per_game: f64,
    /// Exact probability of winning against perfect play.
    pub win_prob_vs_optimal: f64,
    /// The win probability perfect play guarantees the seat.
    pub optimum_win_prob: f64,
    /// Exact expected return against perfect play.
    pub return_vs_optimal: f64,
    /// The return perfect play guarantees the seat.
    pub optimum_return: f64,
}

/// One search setting rated against the truth: its seats' figures and their means.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityRow {
    /// The settings in full ([`SearchOptions::spec`]).
    pub settings: String,
    /// The settings without the depth ([`family`]): one line of the depth figure.
    pub family: String,
    pub depth: u32,
    /// Means over the seats of [`SeatQuality`]'s figures.
    pub optimal_rate_all: f64,
    pub optimal_rate_along_play: f64,
    pub win_prob_vs_optimal: f64,
    pub optimum_win_prob: f64,
    pub return_vs_optimal: f64,
    pub optimum_return: f64,
    /// Mean positions visited per search, over every searched position.
    pub nodes_per_decision: f64,
    /// Positions searched: every reachable position where a player moves.
    pub decisions: usize,
    /// Reachable positions of the game (all kinds).
    pub states: usize,
    /// Wall-clock seconds of the searches.
    pub seconds: f64,
    pub seats: Vec<SeatQuality>,
}

/// The settings without the depth, naming only what sets a family apart from paranoid pruned
/// search: "order", "no-order", "order,cutoffs=0-0-8-8-4", "mode=lead,order".
pub fn family(options: &SearchOptions) -> String {
    options
        .spec()
        .split(',')
        .filter(|part| !part.starts_with("depth=") && *part != "mode=paranoid" && *part != "prune")
        .collect::<Vec<_>>()
        .join(",")
}

/// Rates each of `entrants` against the exact truth of `game` (enumerated once, at most
/// [`DEFAULT_STATE_LIMIT`] positions; refused early where the game's size says it cannot be).
/// `progress`: a progress bar and the solve's figures on stderr.
pub fn rate<G: Game + Sync>(
    game: &G,
    entrants: &[SearchOptions],
    progress: bool,
) -> Result<Vec<QualityRow>, QualityError> {
    if let Some(why) = game.capabilities().enumeration_refusal(DEFAULT_STATE_LIMIT) {
        return Err(SolveError::Unsolvable {
            game: game.name(),
            why,
        }
        .into());
    }
    // The game each setting searches with (its evaluation settings applied), checked before the
    // solve.
    let evaluators = entrants
        .iter()
        .map(|options| {
            if !options.evaluates_apart() {
                // The game's own heuristic, or none: a search to the end needs none.
                return Ok(Evaluator {
                    game: game.clone(),
                    learned: None,
                });
            }
            options
                .evaluator(game)
                .map_err(|why| QualityError::Settings {
                    settings: options.spec(),
                    why,
                })
        })
        .collect::<Result<Vec<Evaluator<G>>, _>>()?;
    if progress {
        eprintln!("solving {} ...", game.name());
    }
    let solution = crate::truth::enumerate(game, DEFAULT_STATE_LIMIT)?;
    let graph = solution.graph();
    let oracle = solution.as_oracle();
    if progress {
        eprintln!(
            "  {} states, {} ({:.3} s)",
            crate::io::text::group(&graph.len().to_string()),
            solution.describe_start(),
            solution.seconds()
        );
    }
    let n = game.num_players();
    let truth = GraphTruth::new(graph, oracle)?;
    let optimal_policy = OptimalPolicy::new(oracle);
    let optimal = Profile::new(graph, &vec![Some(&optimal_policy as &dyn Policy<G>); n])?;
    // What perfect play guarantees each seat when everyone else plays against it.
    let optimum: Vec<(f64, f64)> = (0..n)
        .map(|seat| {
            let win = worst_case_of(graph, seat, &optimal, Objective::WinProbability)?.win;
            Ok((win, minimax_return(graph, seat)?))
        })
        .collect::<Result<_, crate::core::graph::GraphError>>()?;

    let movers: Vec<StateId> = (0..graph.len() as StateId)
        .filter(|&id| matches!(graph.turn(id), Turn::Player(_)))
        .collect();
    let bar = progress_bar(progress, (movers.len() * entrants.len()) as u64);
    let mut rows = Vec::with_capacity(entrants.len());
    for (options, evaluator) in entrants.iter().zip(&evaluators) {
        bar.set_message(format!("{} depth {}", family(options), options.depth));
        let started = Instant::now();
        let chosen = Chosen::search(graph, evaluator, options, &movers, &bar);
        let seconds = started.elapsed().as_secs_f64();
        let ai = Profile::new(graph, &vec![Some(&chosen as &dyn Policy<G>); n])?;
        let seats = (0..n)
            .map(|seat| {
                let report: PolicyReport = evaluate_profile(graph, &truth, &[seat], &ai);
                let against_optimal =
                    Profile::mix(graph, &[&ai, &optimal], |p| usize::from(p != seat));
                let result = expected_result_of(graph, &against_optimal, seat)?;
                let along = optimal_rate_along_play(graph, &truth, seat, &against_optimal)?;
                Ok(SeatQuality {
                    seat,
                    player: game.player_name(seat).to_string(),
                    optimal_rate_all: report.optimal_rate_all,
                    positions: report.states_all,
                    optimal_rate_along_play: along.optimal_rate,
                    decisions_per_game: along.decisions,
                    win_prob_vs_optimal: result.win,
                    optimum_win_prob: optimum[seat].0,
                    return_vs_optimal: result.expected_return,
                    optimum_return: optimum[seat].1,
                })
            })
            .collect::<Result<Vec<_>, crate::core::graph::GraphError>>()?;
        let mean = |f: fn(&SeatQuality) -> f64| seats.iter().map(f).sum::<f64>() / n as f64;
        rows.push(QualityRow {
            settings: options.spec(),
            family: family(options),
            depth: options.depth,
            optimal_rate_all: mean(|s| s.optimal_rate_all),
            optimal_rate_along_play: mean(|s| s.optimal_rate_along_play),
            win_prob_vs_optimal: mean(|s| s.win_prob_vs_optimal),
            optimum_win_prob: mean(|s| s.optimum_win_prob),
            return_vs_optimal: mean(|s| s.return_vs_optimal),
            optimum_return: mean(|s| s.optimum_return),
            nodes_per_decision: chosen.nodes as f64 / movers.len().max(1) as f64,
            decisions: movers.len(),
            states: graph.len(),
            seconds,
            seats,
        });
    }
    bar.finish_and_clear();
    Ok(rows)
}

fn progress_bar(show: bool, total: u64) -> ProgressBar {
    if !show {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{msg:32} [{bar:40.cyan/blue}] {human_pos}/{human_len} positions searched ({eta} left)",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    bar
}

/// A search's choice at every position where a player moves, as a deterministic policy the
/// exact evaluator tabulates.
struct Chosen<'g, G: Game> {
    graph: &'g StateGraph<G>,
    /// Per state: the index of the chosen move among the graph's actions (`u32::MAX` where
    /// nobody moves).
    choice: Vec<u32>,
    /// Positions visited by all the searches.
    nodes: u64,
}

impl<'g, G: Game> Chosen<'g, G> {
    /// Searches every position of `movers` in `evaluator` (the graph's game, its heuristic
    /// perhaps set otherwise), in parallel; each search starts afresh, so the choices do not
    /// depend on the number of threads.
    fn search(
        graph: &'g StateGraph<G>,
        evaluator: &Evaluator<G>,
        options: &SearchOptions,
        movers: &[StateId],
        bar: &ProgressBar,
    ) -> Self {
        let found: Vec<(u32, u64)> = movers
            .par_iter()
            .with_min_len(64)
            .map_init(
                || evaluator.search(options.clone()),
                |search, &id| {
                    let result = search.best_move(graph.state(id));
                    // As the search policy plays: the first legal move where the search has none.
                    let k = result
                        .action
                        .and_then(|a| graph.actions(id).iter().position(|&b| b == a))
                        .unwrap_or(0);
                    bar.inc(1);
                    (k as u32, result.nodes)
                },
            )
            .collect();
        let mut choice = vec![u32::MAX; graph.len()];
        for (&id, &(k, _)) in movers.iter().zip(&found) {
            choice[id as usize] = k;
        }
        Chosen {
            graph,
            choice,
            nodes: found.iter().map(|&(_, n)| n).sum(),
        }
    }
}

impl<G: Game> Policy<G> for Chosen<'_, G> {
    fn name(&self) -> String {
        "search".into()
    }
    fn probabilities(
        &self,
        _game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        probs.clear();
        // A position outside the graph (none is asked for) resigns.
        let chosen = self.graph.id(state).and_then(|id| {
            let k = *self.choice.get(id as usize)?;
            self.graph.actions(id).get(k as usize).copied()
        });
        probs.extend(
            legal
                .iter()
                .map(|&a| f64::from(u8::from(Some(a) == chosen))),
        );
        true
    }
}

/// The console table of `rows`.
pub fn table(rows: &[QualityRow]) -> String {
    let width = rows
        .iter()
        .map(|r| r.family.len())
        .chain([8])
        .max()
        .unwrap_or(8);
    let mut out = format!(
        "{:width$}  {:>5}  {:>9}  {:>10}  {:>10}  {:>7}  {:>13}  {:>7}  {:>14}  {:>7}\n",
        "settings",
        "depth",
        "opt. rate",
        "along play",
        "win vs opt",
        "optimum",
        "return vs opt",
        "optimum",
        "nodes/decision",
        "seconds"
    );
    for r in rows {
        out.push_str(&format!(
            "{:width$}  {:>5}  {:>9.4}  {:>10.4}  {:>10.4}  {:>7.4}  {:>13.4}  {:>7.4}  {:>14}  {:>7.2}\n",
            r.family,
            r.depth,
            r.optimal_rate_all,
            r.optimal_rate_along_play,
            r.win_prob_vs_optimal,
            r.optimum_win_prob,
            r.return_vs_optimal,
            r.optimum_return,
            crate::io::text::group(&format!("{:.1}", r.nodes_per_decision)),
            r.seconds,
        ));
    }
    out
}

/// The depth figure of `rows` (.svg or .png by the name of `path`): the optimal-move rate along
/// play and the win probability against perfect play (with the optimum dashed) against the
/// search depth, one line per family of settings, each figure the mean over the seats.
pub fn plot(rows: &[QualityRow], title: &str, path: &Path) -> anyhow::Result<()> {
    use crate::io::plot::{LinePanel, line_chart};
    anyhow::ensure!(
        !rows.is_empty(),
        "plotting {}: nothing rated",
        path.display()
    );
    let mut families: Vec<&str> = Vec::new();
    for r in rows {
        if !families.contains(&r.family.as_str()) {
            families.push(&r.family);
        }
    }
    let lines = |value: fn(&QualityRow) -> f64| -> Vec<(String, Vec<(f64, f64)>)> {
        families
            .iter()
            .map(|&f| {
                let mut points: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.family == f)
                    .map(|r| (f64::from(r.depth), value(r)))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                (f.to_string(), points)
            })
            .collect()
    };
    let optimum = rows[0].optimum_win_prob;
    let fit = |values: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let lo = ((lo - 0.05) * 10.0).floor() / 10.0;
        let hi = ((hi + 0.05) * 10.0).ceil() / 10.0;
        (lo.max(0.0), hi.min(1.02))
    };
    let rate_range = fit(&mut rows.iter().map(|r| r.optimal_rate_along_play).chain([1.0]));
    let win_range = fit(&mut rows.iter().map(|r| r.win_prob_vs_optimal).chain([optimum]));
    let panels = [
        LinePanel {
            title: "Optimal-move rate along play".into(),
            y_label: "share of value-keeping moves".into(),
            y_range: rate_range,
            lines: lines(|r| r.optimal_rate_along_play),
            reference: Some((1.0, "perfect play keeps every value (1)".into())),
        },
        LinePanel {
            title: "Win probability against perfect play".into(),
            y_label: "exact win probability".into(),
            y_range: win_range,
            lines: lines(|r| r.win_prob_vs_optimal),
            reference: Some((
                optimum,
                format!("optimum: perfect play's win probability ({optimum:.3})"),
            )),
        },
    ];
    line_chart(path, title, "search depth (plies)", &panels)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;

    fn depth(d: u32) -> SearchOptions {
        SearchOptions::parse(&format!("depth={d}")).unwrap()
    }

    /// Tic-tac-toe has 9 plies: a search to depth 9 is minimax and keeps every value.
    #[test]
    fn full_depth_keeps_every_value_and_the_optimum() {
        let rows = rate(&TicTacToe, &[depth(9)], false).unwrap();
        let r = &rows[0];
        assert_eq!(r.optimal_rate_all, 1.0, "{r:?}");
        assert_eq!(r.optimal_rate_along_play, 1.0, "{r:?}");
        for s in &r.seats {
            assert_eq!(s.optimal_rate_all, 1.0, "{s:?}");
            assert!((s.win_prob_vs_optimal - s.optimum_win_prob).abs() < 1e-12);
            assert!((s.return_vs_optimal - s.optimum_return).abs() < 1e-12);
            // Tic-tac-toe is a draw.
            assert_eq!(s.optimum_win_prob, 0.0);
            assert!(s.decisions_per_game > 4.0, "{s:?}");
        }
        assert_eq!(r.decisions, 4520, "positions with a move");
        assert!(r.nodes_per_decision > 1.0);
    }

    /// One ply sees only immediate wins: it misses the opponent's threats.
    #[test]
    fn one_ply_misses_values() {
        let rows = rate(&TicTacToe, &[depth(1), depth(2)], false).unwrap();
        for r in &rows {
            assert!(r.optimal_rate_all < 1.0, "{r:?}");
            assert!(r.optimal_rate_along_play < 1.0, "{r:?}");
            assert!(r.return_vs_optimal < r.optimum_return, "{r:?}");
            for s in &r.seats {
                assert!(s.win_prob_vs_optimal <= s.optimum_win_prob + 1e-12);
            }
        }
        assert!(rows[0].nodes_per_decision < rows[1].nodes_per_decision);
    }

    #[test]
    fn results_do_not_depend_on_the_number_of_threads() {
        let entrants = [depth(3), SearchOptions::parse("depth=4,no-order").unwrap()];
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut rows = pool.install(|| rate(&TicTacToe, &entrants, false).unwrap());
            for r in &mut rows {
                r.seconds = 0.0;
            }
            rows
        };
        assert_eq!(on(1), on(3));
    }

    #[test]
    fn families_drop_the_depth_and_the_defaults() {
        let f = |spec: &str| family(&SearchOptions::parse(spec).unwrap());
        assert_eq!(f("depth=3,order"), "order");
        assert_eq!(f("depth=5,no-order"), "no-order");
        assert_eq!(
            f("order,cutoffs=0-0-8-8-4,depth=2"),
            "order,cutoffs=0-0-8-8-4"
        );
        assert_eq!(f("mode=lead"), "mode=lead,order");
        assert_eq!(f("no-prune,no-order"), "no-order,no-prune");
    }

    #[test]
    fn a_game_too_big_to_solve_is_refused() {
        use crate::games::{HaseUndIgel, HaseUndIgelParams};
        let game = HaseUndIgel::new(HaseUndIgelParams::default()).unwrap();
        let err = rate(&game, &[depth(1)], false).unwrap_err();
        assert!(err.to_string().contains("solved exactly"), "{err}");
    }
}
