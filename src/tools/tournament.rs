//! Tournaments between AI entrants for any [`Game`] (`solvedgym tournament`): random play,
//! greedy play on the game's heuristic, and searches with their settings, each measured by win
//! rate and mean rank with 95% intervals, game length, and the search's positions and time per
//! move.
//!
//! Games come in deals. Deal `d` is seeded `derive_seed(seed, d)` and played once for every
//! seating of the [`schedule`], each game from that same seed: where play coincides the cards
//! and dice coincide, so luck is paired across the seats. With E entrants and P seats, E <= P
//! seats the entrants repeated cyclically to P seats, once per rotation of that list; E > P
//! plays every ordered choice of P distinct entrants. Either way every entrant holds every seat
//! equally often. An entrant's figure per deal is its mean over the seats it held in that deal.
//! The win rate's interval is Wilson's over its games (never `[0, 0]` at no wins); the mean
//! rank's is the normal one over deals, `mean ± 1.96·s/√n`, clipped to its range; as the match
//! evaluator computes them.
//!
//! Deals run in parallel on rayon's threads and are summed in deal order, so every figure but
//! the wall-clock ones (milliseconds per move, seconds in all) is the same to the byte on any
//! number of threads.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;
use thiserror::Error;

use crate::ai::GreedyPolicy;
use crate::ai::mcts::MctsPolicy;
use crate::ai::players::PlayerSpec;
use crate::ai::search::{Evaluator, Search};
use crate::core::game::{Action, Game, Player, Returns};
use crate::core::policy::{Policy, RandomPolicy};
use crate::core::random::{SgRng, derive_seed, rng};
use crate::eval::matches::{interval, max_plies, play_game, rank, rate_interval};
use crate::truth::oracle::Oracle;

/// More games than this in one deal (many entrants for few seats) is refused.
pub const MAX_GAMES_PER_DEAL: usize = 100_000;

/// Why a tournament cannot be played.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum TournamentError {
    #[error("a tournament needs at least 2 entrants, got {0}")]
    TooFewEntrants(usize),
    #[error("entrant `{0}` is named twice (search settings are compared in full)")]
    Duplicate(String),
    #[error("entrant `{entrant}`: {game} has no heuristic to play greedily on; use random")]
    NoHeuristic { game: &'static str, entrant: String },
    #[error("play at least one deal")]
    NoDeals,
    /// A saved agent that does not load for this game.
    #[error("entrant `{entrant}`: {why}")]
    Agent { entrant: String, why: String },
    /// An `optimal` entrant without the game's exact solution.
    #[error("entrant `optimal`: {0}")]
    NoSolution(String),
    /// A search entrant's evaluation settings (`kc=1.2`, `eval=FILE`) that the game refuses.
    #[error("entrant `{entrant}`: {why}")]
    Evaluation { entrant: String, why: String },
    #[error(
        "{entrants} entrants for {players} seats make {games} games per deal (every ordered choice of seats), more than {max}"
    )]
    TooManyGames {
        entrants: usize,
        players: usize,
        games: usize,
        max: usize,
    },
}

/// The seatings of one deal, each the entrant (by index) at every seat: with `entrants <=
/// players` the entrants repeated cyclically to `players` seats, once per rotation; otherwise
/// every ordered choice of `players` distinct entrants, in lexicographic order.
pub fn schedule(entrants: usize, players: usize) -> Vec<Vec<usize>> {
    if entrants == 0 || players == 0 {
        return Vec::new();
    }
    if entrants <= players {
        return (0..players)
            .map(|r| (0..players).map(|s| (s + r) % players % entrants).collect())
            .collect();
    }
    let mut out = Vec::new();
    let mut seating = Vec::with_capacity(players);
    let mut used = vec![false; entrants];
    permutations(entrants, players, &mut seating, &mut used, &mut out);
    out
}

fn permutations(
    entrants: usize,
    players: usize,
    seating: &mut Vec<usize>,
    used: &mut [bool],
    out: &mut Vec<Vec<usize>>,
) {
    if seating.len() == players {
        out.push(seating.clone());
        return;
    }
    for e in 0..entrants {
        if !used[e] {
            used[e] = true;
            seating.push(e);
            permutations(entrants, players, seating, used, out);
            seating.pop();
            used[e] = false;
        }
    }
}

/// The number of seatings [`schedule`] makes, without making them.
pub fn games_per_deal(entrants: usize, players: usize) -> usize {
    if entrants <= players {
        players
    } else {
        (entrants - players + 1..=entrants).fold(1usize, |n, k| n.saturating_mul(k))
    }
}

/// Checks the entrants for `game` before anything is played.
pub fn check<G: Game>(
    game: &G,
    entrants: &[PlayerSpec],
    deals: u64,
) -> Result<(), TournamentError> {
    if entrants.len() < 2 {
        return Err(TournamentError::TooFewEntrants(entrants.len()));
    }
    if deals == 0 {
        return Err(TournamentError::NoDeals);
    }
    for (i, e) in entrants.iter().enumerate() {
        if entrants[..i].iter().any(|f| f.name() == e.name()) {
            return Err(TournamentError::Duplicate(e.name()));
        }
    }
    let heuristic = game.heuristic(&game.initial_state(), 0).is_some();
    if let Some(e) = entrants
        .iter()
        .find(|e| **e == PlayerSpec::Greedy && !heuristic)
    {
        return Err(TournamentError::NoHeuristic {
            game: game.name(),
            entrant: e.name(),
        });
    }
    let players = game.num_players();
    let games = games_per_deal(entrants.len(), players);
    if games > MAX_GAMES_PER_DEAL {
        return Err(TournamentError::TooManyGames {
            entrants: entrants.len(),
            players,
            games,
            max: MAX_GAMES_PER_DEAL,
        });
    }
    Ok(())
}

/// Whether a search entrant plays on a game that has no heuristic: its positions at the depth
/// limit are all worth 0, so only a search to the end of every game plays well (tic-tac-toe
/// at depth 9). The command line warns.
pub fn blind_search<G: Game>(game: &G, entrants: &[PlayerSpec]) -> bool {
    game.heuristic(&game.initial_state(), 0).is_none()
        && entrants
            .iter()
            .any(|e| matches!(e, PlayerSpec::Search(o) if o.agent.is_none()))
}

/// One entrant's results.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntrantRow {
    /// Its name ([`PlayerSpec::name`]).
    pub entrant: String,
    /// Seats it held: games played (an entrant holding two seats of a game, when there are
    /// fewer entrants than seats, counts both).
    pub games: u64,
    /// Share of its games won, a win shared by k tied players counting 1/k: the mean over
    /// deals of its mean per deal, and the 95% interval over deals.
    pub win_rate: f64,
    pub win_rate_low: f64,
    pub win_rate_high: f64,
    /// Its mean rank by returns (1 = first; a tie shares the places), with the 95% interval.
    pub mean_rank: f64,
    pub mean_rank_low: f64,
    pub mean_rank_high: f64,
    /// Player moves per game (every seat's; chance draws not counted), over its games.
    pub plies_per_game: f64,
    /// Positions its search visited per move (MCTS: simulations; `None`: not a search).
    pub nodes_per_move: Option<f64>,
    /// Wall-clock milliseconds per move of its search (`None`: not a search); depends on the
    /// machine and on what else runs on it.
    pub ms_per_move: Option<f64>,
}

/// One entrant's results against one other, from the entrant's view, over the games both
/// played in. Each pair of seats the two held in a game is one meeting, won by the seat with
/// the larger return (equal returns: a draw); where each holds one seat a game (two players, or
/// at least as many entrants as seats) the meetings are the games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HeadToHead {
    /// The entrant ([`PlayerSpec::name`]).
    pub entrant: String,
    /// The other entrant.
    pub opponent: String,
    /// Games both played in.
    pub games: u64,
    /// Meetings the entrant won, drew and lost.
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Wins and half the draws, per meeting.
    pub score: f64,
}

/// What a tournament found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TournamentReport {
    pub game: String,
    pub params: serde_json::Value,
    pub players: usize,
    /// Deals played (the command line's `--games`).
    pub deals: u64,
    /// Games per deal (seatings of the schedule).
    pub games_per_deal: u64,
    /// Games in all.
    pub games: u64,
    pub seed: u64,
    pub entrants: Vec<String>,
    pub rows: Vec<EntrantRow>,
    /// Every ordered pair of entrants, by the first's then the second's place in `entrants`.
    pub head_to_head: Vec<HeadToHead>,
    /// Wall-clock seconds of the whole tournament.
    pub seconds: f64,
}

/// One seat's moves in one game: how many, and what its search cost.
#[derive(Clone, Copy, Debug, Default)]
struct SeatCost {
    moves: u64,
    nodes: u64,
    nanos: u64,
}

/// One game of a deal.
struct GameRecord {
    returns: Returns,
    plies: u64,
    costs: Vec<SeatCost>,
}

/// An entrant ready to play.
struct Ready<'e, G: Game> {
    entrant: &'e PlayerSpec,
    /// For a search with evaluation settings or a learned evaluation: what it evaluates with
    /// ([`SearchOptions::evaluator`]), made once before play.
    evaluator: Option<Evaluator<G>>,
    /// For `optimal`: the solution's strongest player; for a saved agent, its play.
    policy: Option<Box<dyn Policy<G> + 'e>>,
    /// For MCTS: the player, made once (a learned leaf is loaded at its first move).
    mcts: Option<MctsPolicy>,
}

/// Makes every entrant ready; the error names the entrant whose settings the game refuses, or
/// `optimal` without a solution.
fn prepare<'e, G: Game>(
    game: &G,
    entrants: &'e [PlayerSpec],
    oracle: Option<&'e dyn Oracle<G>>,
) -> Result<Vec<Ready<'e, G>>, TournamentError> {
    entrants
        .iter()
        .map(|entrant| {
            let policy = match (entrant, oracle) {
                (PlayerSpec::Optimal, None) => {
                    return Err(TournamentError::NoSolution(format!(
                        "{} was not solved for this tournament",
                        game.name()
                    )));
                }
                (PlayerSpec::Optimal | PlayerSpec::Agent(_), _) => Some(
                    entrant
                        .build(game, 0.0, oracle)
                        .map_err(|e| TournamentError::Agent {
                            entrant: entrant.name(),
                            why: format!("{e:#}"),
                        })?,
                ),
                _ => None,
            };
            let evaluator = match entrant {
                PlayerSpec::Search(o) if o.evaluates_apart() => Some(o.evaluator(game).map_err(
                    |why| TournamentError::Evaluation {
                        entrant: entrant.name(),
                        why,
                    },
                )?),
                _ => None,
            };
            let mcts = match entrant {
                PlayerSpec::Mcts(o) => {
                    Some(MctsPolicy::for_game(o.clone(), game).map_err(|why| {
                        TournamentError::Evaluation {
                            entrant: entrant.name(),
                            why,
                        }
                    })?)
                }
                _ => None,
            };
            Ok(Ready {
                entrant,
                evaluator,
                policy,
                mcts,
            })
        })
        .collect()
}

/// One move of `player` at `state`, and the positions its search generated (`None`: it does
/// not search). Every entrant's move is made here, so per-entrant settings have one place.
fn choose<G: Game>(
    game: &G,
    player: &Ready<'_, G>,
    state: &G::State,
    legal: &[Action],
    rng: &mut SgRng,
) -> (Option<Action>, Option<u64>) {
    match player.entrant {
        PlayerSpec::Random => (RandomPolicy.choose(game, state, legal, rng), None),
        PlayerSpec::Greedy => (GreedyPolicy.choose(game, state, legal, rng), None),
        PlayerSpec::Optimal | PlayerSpec::Agent(_) => {
            let policy = player.policy.as_ref().expect("prepared with its policy");
            (policy.choose(game, state, legal, rng), None)
        }
        PlayerSpec::Search(options) => {
            let found = match &player.evaluator {
                Some(evaluator) => evaluator.search(options.clone()).best_move(state),
                None => Search::new(game, options.clone()).best_move(state),
            };
            // The search has no move only where the position has none to search; play on.
            (
                found.action.or_else(|| legal.first().copied()),
                Some(found.nodes),
            )
        }
        PlayerSpec::Mcts(_) => {
            // The player `--ai mcts,...` names: seeded by the position, not the deal.
            let mcts = player.mcts.as_ref().expect("prepared with its player");
            let found = mcts.search(game, state);
            (
                found
                    .action
                    .filter(|a| legal.contains(a))
                    .or_else(|| legal.first().copied()),
                Some(found.sims),
            )
        }
    }
}

/// Plays one game of a deal: `seating[p]` is the entrant at seat `p`.
fn play_one<G: Game>(
    game: &G,
    players: &[Ready<'_, G>],
    seating: &[usize],
    max_plies: u32,
    seed: u64,
) -> GameRecord {
    let mut costs = vec![SeatCost::default(); seating.len()];
    let played = play_game(game, max_plies, &mut rng(seed), |p, state, legal, rng| {
        let player = &players[seating[p]];
        let cost = &mut costs[p];
        cost.moves += 1;
        let started = matches!(player.entrant, PlayerSpec::Search(_) | PlayerSpec::Mcts(_))
            .then(Instant::now);
        let (action, nodes) = choose(game, player, state, legal, rng);
        if let Some(t) = started {
            cost.nanos += u64::try_from(t.elapsed().as_nanos()).unwrap_or(u64::MAX);
        }
        cost.nodes += nodes.unwrap_or(0);
        action
    });
    GameRecord {
        returns: played.returns,
        plies: played.moves,
        costs,
    }
}

/// A seat's share of the win: 1/k when it is among the k seats with the largest return, else
/// 0 (so the shares of a game sum to 1; a two-player draw gives each a half).
pub fn win_share(returns: &Returns, seat: Player) -> f64 {
    let best = returns
        .as_slice()
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    if returns[seat] < best {
        return 0.0;
    }
    1.0 / returns.as_slice().iter().filter(|&&v| v == best).count() as f64
}

/// An entrant's sums over the games it played.
#[derive(Clone, Debug, Default)]
struct Sums {
    games: u64,
    plies: u64,
    moves: u64,
    nodes: u64,
    nanos: u64,
    /// Per deal: its mean win share and mean rank.
    wins: Vec<f64>,
    ranks: Vec<f64>,
}

fn add(total: &mut u64, x: u64) {
    *total = total
        .checked_add(x)
        .expect("a tournament count overflows u64");
}

/// Plays the tournament: `deals` deals of `game` seeded from `seed`, every seating of the
/// [`schedule`] of `entrants` per deal, on rayon's threads. `progress` is called with 1 after
/// every game (from any thread). An `optimal` entrant needs [`run_solved`].
pub fn run<G: Game>(
    game: &G,
    entrants: &[PlayerSpec],
    deals: u64,
    seed: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TournamentReport, TournamentError> {
    run_solved(game, entrants, deals, seed, None, progress)
}

/// Whether an entrant plays perfectly, so the game must be solved first.
pub fn needs_solution(entrants: &[PlayerSpec]) -> bool {
    entrants.contains(&PlayerSpec::Optimal)
}

/// [`run`] with the game's exact solution, which `optimal` entrants play by.
pub fn run_solved<G: Game>(
    game: &G,
    entrants: &[PlayerSpec],
    deals: u64,
    seed: u64,
    oracle: Option<&dyn Oracle<G>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<TournamentReport, TournamentError> {
    check(game, entrants, deals)?;
    let started = Instant::now();
    let ready = prepare(game, entrants, oracle)?;
    let players = game.num_players();
    let seatings = schedule(entrants.len(), players);
    let per_deal = seatings.len() as u64;
    let total = deals
        .checked_mul(per_deal)
        .expect("a tournament count overflows u64");
    let cap = max_plies(game);
    let records: Vec<GameRecord> = (0..total)
        .into_par_iter()
        .map(|i| {
            let (deal, g) = (i / per_deal, (i % per_deal) as usize);
            let record = play_one(game, &ready, &seatings[g], cap, derive_seed(seed, deal));
            progress(1);
            record
        })
        .collect();

    let mut sums = vec![Sums::default(); entrants.len()];
    let mut meetings = Meetings::new(entrants.len());
    for (record, seating) in records.iter().zip(seatings.iter().cycle()) {
        meetings.add(&record.returns, seating);
    }
    for deal in records.chunks(per_deal as usize) {
        // (win shares, ranks, seats) of each entrant in this deal.
        let mut here = vec![(0.0, 0.0, 0u64); entrants.len()];
        for (record, seating) in deal.iter().zip(&seatings) {
            for (seat, &e) in seating.iter().enumerate() {
                here[e].0 += win_share(&record.returns, seat);
                here[e].1 += rank(&record.returns, seat);
                here[e].2 += 1;
                let s = &mut sums[e];
                let cost = record.costs[seat];
                add(&mut s.games, 1);
                add(&mut s.plies, record.plies);
                add(&mut s.moves, cost.moves);
                add(&mut s.nodes, cost.nodes);
                add(&mut s.nanos, cost.nanos);
            }
        }
        for (s, (w, r, n)) in sums.iter_mut().zip(here) {
            s.wins.push(w / n as f64);
            s.ranks.push(r / n as f64);
        }
    }

    let per = |x: u64, n: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    let rows = entrants
        .iter()
        .zip(&sums)
        .map(|(e, s)| {
            let [win_rate, win_rate_low, win_rate_high] = rate_interval(&s.wins, s.games as f64);
            let [mean_rank, mean_rank_low, mean_rank_high] =
                interval(&s.ranks, Some((1.0, players as f64)));
            let search = matches!(e, PlayerSpec::Search(_) | PlayerSpec::Mcts(_));
            EntrantRow {
                entrant: e.name(),
                games: s.games,
                win_rate,
                win_rate_low,
                win_rate_high,
                mean_rank,
                mean_rank_low,
                mean_rank_high,
                plies_per_game: per(s.plies, s.games),
                nodes_per_move: search.then(|| per(s.nodes, s.moves)),
                ms_per_move: search.then(|| per(s.nanos, s.moves) / 1e6),
            }
        })
        .collect();
    Ok(TournamentReport {
        game: game.name().to_string(),
        params: game.params(),
        players,
        deals,
        games_per_deal: per_deal,
        games: total,
        seed,
        entrants: entrants.iter().map(PlayerSpec::name).collect(),
        rows,
        head_to_head: meetings.rows(entrants),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Head-to-head counts of every ordered pair of entrants: (games, wins, draws, losses) at
/// `a * entrants + b`.
struct Meetings {
    entrants: usize,
    counts: Vec<[u64; 4]>,
}

impl Meetings {
    fn new(entrants: usize) -> Meetings {
        Meetings {
            entrants,
            counts: vec![[0; 4]; entrants * entrants],
        }
    }

    /// One game: `seating[p]` held seat `p` and got `returns[p]`.
    fn add(&mut self, returns: &Returns, seating: &[usize]) {
        let n = self.entrants;
        let mut present = vec![false; n];
        for &e in seating {
            present[e] = true;
        }
        for a in (0..n).filter(|&a| present[a]) {
            for b in (0..n).filter(|&b| b != a && present[b]) {
                add(&mut self.counts[a * n + b][0], 1);
            }
        }
        for (s, &a) in seating.iter().enumerate() {
            for (t, &b) in seating.iter().enumerate() {
                if a == b {
                    continue;
                }
                let outcome = match returns[s].partial_cmp(&returns[t]) {
                    Some(std::cmp::Ordering::Greater) => 1,
                    Some(std::cmp::Ordering::Less) => 3,
                    _ => 2,
                };
                add(&mut self.counts[a * n + b][outcome], 1);
            }
        }
    }

    fn rows(&self, entrants: &[PlayerSpec]) -> Vec<HeadToHead> {
        let n = self.entrants;
        let mut out = Vec::with_capacity(n * n.saturating_sub(1));
        for a in 0..n {
            for b in (0..n).filter(|&b| b != a) {
                let [games, wins, draws, losses] = self.counts[a * n + b];
                let met = wins + draws + losses;
                out.push(HeadToHead {
                    entrant: entrants[a].name(),
                    opponent: entrants[b].name(),
                    games,
                    wins,
                    draws,
                    losses,
                    score: if met == 0 {
                        0.0
                    } else {
                        (wins as f64 + draws as f64 / 2.0) / met as f64
                    },
                });
            }
        }
        out
    }
}

/// The figures as a bar chart of win rates with their intervals as whiskers and the chance
/// line 1/P, to `path` (.svg or .png).
pub fn plot(report: &TournamentReport, path: &Path) -> anyhow::Result<()> {
    let bars: Vec<crate::io::plot::Bar> = report
        .rows
        .iter()
        .map(|r| crate::io::plot::Bar {
            name: r.entrant.clone(),
            label: format!("{} ({} games)", r.entrant, r.games),
            value: r.win_rate,
            low: r.win_rate_low,
            high: r.win_rate_high,
        })
        .collect();
    let chance = 1.0 / report.players as f64;
    crate::io::plot::bar_chart(
        path,
        &format!(
            "{} tournament, {} players: each AI's win rate against the others",
            report.game, report.players
        ),
        "share of games won (95% CI over deals)",
        (0.0, 1.0),
        &bars,
        Some((
            chance,
            format!("chance: 1/{} = {chance:.3}", report.players),
        )),
    )
}

impl fmt::Display for TournamentReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let params = match &self.params {
            serde_json::Value::Object(m) if !m.is_empty() => {
                let kv: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!(" ({})", kv.join(", "))
            }
            _ => String::new(),
        };
        writeln!(
            f,
            "{}{params}: {} players, {} deals x {} games = {} games, seed {} ({:.1} s)",
            self.game,
            self.players,
            self.deals,
            self.games_per_deal,
            self.games,
            self.seed,
            self.seconds
        )?;
        let width = self
            .rows
            .iter()
            .map(|r| r.entrant.len())
            .max()
            .unwrap_or(0)
            .max("entrant".len());
        writeln!(
            f,
            "{:<width$}  {:>7}  {:<22}  {:<20}  {:>10}  {:>11}  {:>9}",
            "entrant",
            "games",
            "win rate [95% CI]",
            "mean rank [95% CI]",
            "plies/game",
            "nodes/move",
            "ms/move"
        )?;
        for r in &self.rows {
            let win = format!(
                "{:.3} [{:.3}, {:.3}]",
                r.win_rate, r.win_rate_low, r.win_rate_high
            );
            let rank = format!(
                "{:.2} [{:.2}, {:.2}]",
                r.mean_rank, r.mean_rank_low, r.mean_rank_high
            );
            let nodes = r.nodes_per_move.map_or("-".into(), |n| format!("{n:.1}"));
            let ms = r.ms_per_move.map_or("-".into(), |m| format!("{m:.3}"));
            writeln!(
                f,
                "{:<width$}  {:>7}  {win:<22}  {rank:<20}  {:>10.1}  {nodes:>11}  {ms:>9}",
                r.entrant, r.games, r.plies_per_game
            )?;
        }
        self.write_head_to_head(f)?;
        write!(
            f,
            "win rate: a win shared by k tied players counts 1/k; equal play wins 1/{} = {:.3}. \
Intervals: win rate Wilson's over the games, mean rank mean ± 1.96·s/√n over deals. ms/move \
is wall clock on this machine. Head to head: each pair of seats two entrants held in a game is \
one meeting, won by the larger return; score = (wins + draws/2) / meetings.",
            self.players,
            1.0 / self.players as f64
        )
    }
}

impl TournamentReport {
    /// The head-to-head table: a row per entrant, a column per opponent (by number), each cell
    /// the row's wins-draws-losses against the column's, the games they met in and the score.
    fn write_head_to_head(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.entrants.len();
        let cell = |a: usize, b: usize| -> String {
            if a == b {
                return "-".into();
            }
            self.head_to_head
                .iter()
                .find(|h| h.entrant == self.entrants[a] && h.opponent == self.entrants[b])
                .map_or("?".into(), |h| {
                    format!(
                        "{}-{}-{} of {} ({:.3})",
                        h.wins, h.draws, h.losses, h.games, h.score
                    )
                })
        };
        let cells: Vec<Vec<String>> = (0..n)
            .map(|a| (0..n).map(|b| cell(a, b)).collect())
            .collect();
        let names: Vec<String> = self
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {e}", i + 1))
            .collect();
        let name_width = names.iter().map(String::len).max().unwrap_or(0);
        let widths: Vec<usize> = (0..n)
            .map(|b| {
                cells
                    .iter()
                    .map(|row| row[b].chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(format!("vs {}", b + 1).len())
            })
            .collect();
        writeln!(
            f,
            "head to head: the row's wins-draws-losses against the column, of the games they met \
in (score)"
        )?;
        let mut line = format!("{:<name_width$}", "");
        for (b, w) in widths.iter().enumerate() {
            line.push_str(&format!("  {:<w$}", format!("vs {}", b + 1)));
        }
        writeln!(f, "{}", line.trim_end())?;
        for (name, row) in names.iter().zip(&cells) {
            let mut line = format!("{name:<name_width$}");
            for (c, w) in row.iter().zip(&widths) {
                line.push_str(&format!("  {c:<w$}"));
            }
            writeln!(f, "{}", line.trim_end())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
