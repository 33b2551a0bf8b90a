//! Playout statistics for any [`Game`] (`solvedgym stats`): every seat plays one policy,
//! nature draws from a seeded generator, and the games are summed up: how long they last (in
//! player decisions, in plies with the chance draws, in rounds), how many moves a player has to
//! choose from, how often the game is cut off by a cap in its rules, who wins, which chance
//! outcomes were drawn (Hase und Igel's hare cards, the dice race's rolls) and which rule
//! events the moves triggered (Hase und Igel's stuck rule).
//!
//! Game `i` draws from its own stream `derive_seed(seed, i)`, and every figure is a sum of
//! whole numbers until the means are taken at the end, so the statistics of a seed are the
//! same, to the byte, on any number of threads.

use std::collections::BTreeMap;
use std::fmt;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::ai::GreedyPolicy;
use crate::core::game::{Action, Game, Player, Turn};
use crate::core::policy::{Policy, RandomPolicy};
use crate::core::random::{SgRng, derive_seed, rng};
use crate::io::text::group;

/// A game that has not ended after this many plies (player moves and chance draws) is cut off
/// and counted as truncated, unless the game names its own cap
/// ([`crate::core::game::Capabilities::max_plies`]). Games whose rules end them never come near it.
pub const DEFAULT_MAX_PLIES: u32 = 1_000_000;

/// The policies `solvedgym stats --policy` takes: uniform random play, and one-ply greedy
/// play on the game's heuristic ([`GreedyPolicy`]; uniform where a game has none).
pub const POLICIES: [&str; 2] = ["random", "greedy"];

/// The policy named `name` (one of [`POLICIES`]).
pub fn policy_named<G: Game>(name: &str) -> Option<Box<dyn Policy<G>>> {
    match name {
        "random" => Some(Box::new(RandomPolicy)),
        "greedy" => Some(Box::new(GreedyPolicy)),
        _ => None,
    }
}

/// Games per parallel work item (and per step of the progress bar).
const CHUNK: u64 = 256;

/// What `playout_stats` found. Means are over games (0 when no game was played); shares are
/// fractions of the games.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayoutStats {
    pub game: String,
    pub params: serde_json::Value,
    /// The policy every seat played.
    pub policy: String,
    pub seed: u64,
    pub games: u64,
    /// Player decisions per game (chance draws not counted).
    pub mean_plies: f64,
    /// Plies per game with the chance draws (card draws, dice rolls) counted.
    pub mean_plies_with_chance: f64,
    /// Rounds per game: a round begins with the first decision and again whenever the turn
    /// passes to a lower seat than the last mover's (the turn order wraps round), so a seat
    /// that moves again (an extra move) or a seat skipped (a finished hare) does not blur it;
    /// a round the game ends in counts as a whole one.
    pub mean_rounds: f64,
    /// Legal moves per player decision, over all decisions of all games.
    pub mean_legal_moves: f64,
    /// The fewest and the most player decisions in one game.
    pub shortest_plies: u64,
    pub longest_plies: u64,
    /// Share of games cut off: ended by a cap in the rules ([`Game::is_cut_off`], Hase und
    /// Igel's round cap) or by [`DEFAULT_MAX_PLIES`].
    pub truncated: f64,
    /// Share of games each seat won (the single player with the strictly best return), keyed
    /// by the player's name in seat order.
    #[serde(serialize_with = "ordered_map")]
    pub win_share: Vec<(String, f64)>,
    /// Share of games without a single winner (a draw, a shared win).
    pub no_winner: f64,
    /// Share of games ended by a resignation (only policies that resign; left out when 0).
    #[serde(skip_serializing_if = "is_zero")]
    pub resigned: f64,
    /// How often each chance outcome was drawn, by its name (Hase und Igel: the hare cards,
    /// e.g. `move-again`; the dice race: `roll 1`), in the order of the outcomes' numbers.
    #[serde(serialize_with = "ordered_map")]
    pub chance_outcomes: Vec<(String, u64)>,
    /// How often each rule event named by [`Game::move_event`] happened (Hase und Igel: `stuck
    /// rule`), by name in alphabetical order.
    #[serde(serialize_with = "ordered_map")]
    pub move_events: Vec<(String, u64)>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// A list of pairs as a JSON object that keeps the list's order.
fn ordered_map<V: Serialize, S: Serializer>(
    pairs: &[(String, V)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

impl fmt::Display for PlayoutStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} games, every seat plays {} (seed {})",
            self.game,
            group(&self.games.to_string()),
            self.policy,
            self.seed
        )?;
        let row = |f: &mut fmt::Formatter<'_>, name: &str, value: String| {
            writeln!(f, "  {name:<34} {value:>12}")
        };
        row(
            f,
            "game length, player plies",
            format!("{:.2}", self.mean_plies),
        )?;
        row(
            f,
            "game length, plies with chance",
            format!("{:.2}", self.mean_plies_with_chance),
        )?;
        row(f, "game length, rounds", format!("{:.2}", self.mean_rounds))?;
        row(
            f,
            "shortest / longest game, plies",
            format!("{} / {}", self.shortest_plies, self.longest_plies),
        )?;
        row(
            f,
            "legal moves per decision",
            format!("{:.2}", self.mean_legal_moves),
        )?;
        row(f, "truncated", percent(self.truncated))?;
        writeln!(f, "wins")?;
        for (name, share) in &self.win_share {
            row(f, name, percent(*share))?;
        }
        row(f, "no single winner", percent(self.no_winner))?;
        if self.resigned > 0.0 {
            row(f, "resigned", percent(self.resigned))?;
        }
        // Chance outcomes as shares of the draws; rule events (one kind each) per game only.
        for (title, counts, shares) in [
            ("chance outcomes drawn", &self.chance_outcomes, true),
            ("move events", &self.move_events, false),
        ] {
            if counts.is_empty() {
                continue;
            }
            let total: u64 = counts.iter().map(|(_, n)| n).sum();
            writeln!(f, "{title}")?;
            for (name, n) in counts {
                let share = if shares {
                    percent(*n as f64 / total as f64)
                } else {
                    String::new()
                };
                writeln!(
                    f,
                    "  {name:<34} {:>12}  {share:>6}  {:>8.3} per game",
                    group(&n.to_string()),
                    *n as f64 / self.games.max(1) as f64
                )?;
            }
        }
        Ok(())
    }
}

fn percent(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

/// Whole-number sums over a set of games: merging two is commutative and associative, so
/// the totals do not depend on how the games were split among threads.
#[derive(Clone, Debug, Default)]
struct Totals {
    games: u64,
    decisions: u64,
    draws: u64,
    rounds: u64,
    legal_moves: u64,
    shortest: Option<u64>,
    longest: u64,
    truncated: u64,
    resigned: u64,
    wins: Vec<u64>,
    no_winner: u64,
    /// name -> (count, the smallest outcome number drawn under that name).
    outcomes: BTreeMap<String, (u64, Action)>,
    events: BTreeMap<&'static str, u64>,
}

impl Totals {
    fn add(&mut self, e: &Ending) {
        self.games += 1;
        self.decisions += e.decisions;
        self.draws += e.draws;
        self.rounds += e.rounds;
        self.shortest = Some(self.shortest.map_or(e.decisions, |s| s.min(e.decisions)));
        self.longest = self.longest.max(e.decisions);
        self.truncated += u64::from(e.truncated);
        self.resigned += u64::from(e.resigned);
        match e.winner {
            Some(w) => self.wins[w] += 1,
            None => self.no_winner += 1,
        }
    }

    fn merge(mut self, other: Totals) -> Totals {
        self.games += other.games;
        self.decisions += other.decisions;
        self.draws += other.draws;
        self.rounds += other.rounds;
        self.legal_moves += other.legal_moves;
        self.shortest = match (self.shortest, other.shortest) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.longest = self.longest.max(other.longest);
        self.truncated += other.truncated;
        self.resigned += other.resigned;
        if self.wins.len() < other.wins.len() {
            self.wins.resize(other.wins.len(), 0);
        }
        for (w, o) in self.wins.iter_mut().zip(&other.wins) {
            *w += o;
        }
        self.no_winner += other.no_winner;
        for (name, (n, a)) in other.outcomes {
            let e = self.outcomes.entry(name).or_insert((0, a));
            e.0 += n;
            e.1 = e.1.min(a);
        }
        for (name, n) in other.events {
            *self.events.entry(name).or_insert(0) += n;
        }
        self
    }
}

/// The reusable buffers of one thread's games.
struct Scratch {
    legal: Vec<Action>,
    outcomes: Vec<(Action, f64)>,
}

/// How one game went: its length and its end.
#[derive(Clone, Copy, Debug)]
struct Ending {
    decisions: u64,
    draws: u64,
    rounds: u64,
    winner: Option<Player>,
    truncated: bool,
    resigned: bool,
}

/// Plays one game with `policy` at every seat, adding the counts of its plies (legal moves,
/// chance outcomes, rule events) to `totals`; the final state and how the game went.
fn play_one<G: Game>(
    game: &G,
    policy: &dyn Policy<G>,
    max_plies: u32,
    rng: &mut SgRng,
    scratch: &mut Scratch,
    totals: &mut Totals,
) -> (G::State, Ending) {
    let mut state = game.initial_state();
    let (mut decisions, mut draws, mut rounds) = (0u64, 0u64, 0u64);
    let mut last_mover: Option<Player> = None;
    let mut ending = None;
    for _ in 0..max_plies {
        let action = match game.turn(&state) {
            Turn::Terminal => {
                ending = Some((
                    game.returns(&state).winner(),
                    game.is_cut_off(&state),
                    false,
                ));
                break;
            }
            Turn::Chance => {
                game.chance_outcomes(&state, &mut scratch.outcomes);
                let a = crate::core::policy::draw_outcome(&scratch.outcomes, rng);
                let name = game.action_to_string(&state, a);
                let e = totals.outcomes.entry(name).or_insert((0, a));
                e.0 += 1;
                e.1 = e.1.min(a);
                draws += 1;
                a
            }
            Turn::Player(p) => {
                game.legal_actions(&state, &mut scratch.legal);
                if last_mover.is_none_or(|q| p < q) {
                    rounds += 1;
                }
                last_mover = Some(p);
                decisions += 1;
                totals.legal_moves += scratch.legal.len() as u64;
                let Some(a) = policy.choose(game, &state, &scratch.legal, rng) else {
                    let winner = game.resignation_returns(&state, p).winner();
                    ending = Some((winner, false, true));
                    break;
                };
                if let Some(event) = game.move_event(&state, a) {
                    *totals.events.entry(event).or_insert(0) += 1;
                }
                a
            }
        };
        state = game.apply(&state, action);
    }
    let (winner, truncated, resigned) = ending.unwrap_or_else(|| {
        // The ply guard: the state may have just become terminal.
        if game.turn(&state).is_terminal() {
            (
                game.returns(&state).winner(),
                game.is_cut_off(&state),
                false,
            )
        } else {
            (None, true, false)
        }
    });
    let ending = Ending {
        decisions,
        draws,
        rounds,
        winner,
        truncated,
        resigned,
    };
    (state, ending)
}

/// The totals of games `range` (game `i` seeded `derive_seed(seed, i)`).
fn play_range<G: Game>(
    game: &G,
    policy: &dyn Policy<G>,
    seed: u64,
    range: std::ops::Range<u64>,
) -> Totals {
    let max_plies = game.capabilities().max_plies.unwrap_or(DEFAULT_MAX_PLIES);
    let mut totals = Totals {
        wins: vec![0; game.num_players()],
        ..Totals::default()
    };
    let mut scratch = Scratch {
        legal: Vec::new(),
        outcomes: Vec::new(),
    };
    for i in range {
        let mut r = rng(derive_seed(seed, i));
        let (_, ending) = play_one(game, policy, max_plies, &mut r, &mut scratch, &mut totals);
        totals.add(&ending);
    }
    totals
}

/// Plays `games` games of `game` with `policy` at every seat, chance drawn from `seed` (game
/// `i` from its own stream `derive_seed(seed, i)`), in parallel on rayon's threads with the
/// same result on any number of them; a progress bar on the terminal when `progress`.
pub fn playout_stats<G: Game>(
    game: &G,
    policy: &dyn Policy<G>,
    games: u64,
    seed: u64,
    progress: bool,
) -> PlayoutStats {
    let bar = if progress {
        let bar = ProgressBar::new(games);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:40.cyan/blue}] {human_pos}/{human_len} games ({eta} left)",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_message(format!(
            "{} playouts on {} threads",
            policy.name(),
            rayon::current_num_threads()
        ));
        bar
    } else {
        ProgressBar::hidden()
    };
    let chunks = games.div_ceil(CHUNK);
    let totals = (0..chunks)
        .into_par_iter()
        .map(|c| {
            let range = c * CHUNK..((c + 1) * CHUNK).min(games);
            let n = range.end - range.start;
            let t = play_range(game, policy, seed, range);
            bar.inc(n);
            t
        })
        .reduce(
            || Totals {
                wins: vec![0; game.num_players()],
                ..Totals::default()
            },
            Totals::merge,
        );
    bar.finish_and_clear();
    summarise(game, policy, seed, totals)
}

fn summarise<G: Game>(game: &G, policy: &dyn Policy<G>, seed: u64, t: Totals) -> PlayoutStats {
    let per = |x: u64, n: u64| if n == 0 { 0.0 } else { x as f64 / n as f64 };
    let mut outcomes: Vec<_> = t.outcomes.into_iter().collect();
    outcomes.sort_by(|(a, (_, x)), (b, (_, y))| x.cmp(y).then_with(|| a.cmp(b)));
    PlayoutStats {
        game: game.name().to_string(),
        params: game.params(),
        policy: policy.name(),
        seed,
        games: t.games,
        mean_plies: per(t.decisions, t.games),
        mean_plies_with_chance: per(t.decisions + t.draws, t.games),
        mean_rounds: per(t.rounds, t.games),
        mean_legal_moves: per(t.legal_moves, t.decisions),
        shortest_plies: t.shortest.unwrap_or(0),
        longest_plies: t.longest,
        truncated: per(t.truncated, t.games),
        win_share: (0..game.num_players())
            .map(|p| (game.player_name(p).to_string(), per(t.wins[p], t.games)))
            .collect(),
        no_winner: per(t.no_winner, t.games),
        resigned: per(t.resigned, t.games),
        chance_outcomes: outcomes
            .into_iter()
            .map(|(name, (n, _))| (name, n))
            .collect(),
        move_events: t
            .events
            .into_iter()
            .map(|(name, n)| (name.to_string(), n))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{DiceRace, DiceRaceParams, HaseUndIgel, HaseUndIgelParams, TicTacToe};

    fn json(s: &PlayoutStats) -> String {
        serde_json::to_string(s).unwrap()
    }

    fn on_threads<T: Send>(n: usize, f: impl FnOnce() -> T + Send) -> T {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
            .install(f)
    }

    #[test]
    fn same_seed_same_stats_and_other_seeds_differ() {
        let game = DiceRace::new(DiceRaceParams::default()).unwrap();
        let a = playout_stats(&game, &RandomPolicy, 1_000, 5, false);
        let b = playout_stats(&game, &RandomPolicy, 1_000, 5, false);
        assert_eq!(json(&a), json(&b));
        let c = playout_stats(&game, &RandomPolicy, 1_000, 6, false);
        assert_ne!(json(&a), json(&c));
    }

    #[test]
    fn the_thread_count_does_not_change_the_stats() {
        let game = HaseUndIgel::new(HaseUndIgelParams::default()).unwrap();
        // 1,000 games: several chunks, so threads really split them.
        let runs: Vec<String> = [1, 2, 3]
            .into_iter()
            .map(|n| {
                on_threads(n, || {
                    json(&playout_stats(&game, &RandomPolicy, 1_000, 9, false))
                })
            })
            .collect();
        assert_eq!(runs[0], runs[1]);
        assert_eq!(runs[0], runs[2]);
    }

    #[test]
    fn random_tictactoe_matches_the_known_shares() {
        let s = playout_stats(&TicTacToe, &RandomPolicy, 20_000, 1, false);
        assert_eq!(s.games, 20_000);
        assert!((7.0..9.0).contains(&s.mean_plies), "{s}");
        assert_eq!(s.mean_plies, s.mean_plies_with_chance);
        assert!((5..=9).contains(&s.shortest_plies) && s.longest_plies == 9);
        // Rounds: x opens each, so a game of k plies has ceil(k / 2).
        assert!((3.5..5.0).contains(&s.mean_rounds), "{s}");
        // Exact values: x 0.5849, o 0.2881, draw 0.1270.
        let share = |n: &str| s.win_share.iter().find(|(p, _)| p == n).unwrap().1;
        assert!((share("x") - 0.585).abs() < 0.015, "{s}");
        assert!((share("o") - 0.288).abs() < 0.015, "{s}");
        assert!((s.no_winner - 0.127).abs() < 0.015, "{s}");
        // 9 moves at the start, 1 at the last; the mean over decisions lies between.
        assert!((4.0..6.0).contains(&s.mean_legal_moves), "{s}");
        assert_eq!(s.truncated, 0.0);
        assert!(s.chance_outcomes.is_empty() && s.move_events.is_empty());
    }

    #[test]
    fn dice_race_rolls_follow_the_die() {
        let game = DiceRace::new(DiceRaceParams {
            players: 2,
            goal: 5,
        })
        .unwrap();
        let s = playout_stats(&game, &RandomPolicy, 20_000, 3, false);
        let names: Vec<&str> = s.chance_outcomes.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["roll 1", "roll 2", "roll 3"]);
        let total: u64 = s.chance_outcomes.iter().map(|(_, n)| n).sum();
        for ((_, n), p) in s.chance_outcomes.iter().zip([0.5, 1.0 / 3.0, 1.0 / 6.0]) {
            assert!((*n as f64 / total as f64 - p).abs() < 0.01, "{s}");
        }
        // One roll per decision, two choices at each.
        assert_eq!(s.mean_plies_with_chance, 2.0 * s.mean_plies);
        assert_eq!(s.mean_legal_moves, 2.0);
        let wins: f64 = s.win_share.iter().map(|(_, w)| w).sum();
        assert!((wins + s.no_winner - 1.0).abs() < 1e-12);
        assert!(
            s.win_share[0].1 > s.win_share[1].1,
            "the first runner leads: {s}"
        );
        let text = serde_json::to_value(&s).unwrap();
        assert_eq!(text["chance_outcomes"]["roll 1"], total_of(&s, "roll 1"));
        assert!(text.get("resigned").is_none());
    }

    fn total_of(s: &PlayoutStats, name: &str) -> u64 {
        s.chance_outcomes.iter().find(|(n, _)| n == name).unwrap().1
    }

    /// The round count agrees with Hase und Igel's own round counter, and the stuck rule and
    /// the hare cards show up.
    #[test]
    fn hase_und_igel_rounds_cards_and_stuck_rule() {
        let game = HaseUndIgel::new(HaseUndIgelParams {
            players: 4,
            max_rounds: 40,
            ..HaseUndIgelParams::default()
        })
        .unwrap();
        let mut totals = Totals {
            wins: vec![0; 4],
            ..Totals::default()
        };
        let mut scratch = Scratch {
            legal: Vec::new(),
            outcomes: Vec::new(),
        };
        for i in 0..300 {
            let (state, end) = play_one(
                &game,
                &RandomPolicy,
                DEFAULT_MAX_PLIES,
                &mut rng(i),
                &mut scratch,
                &mut totals,
            );
            assert!(!end.resigned);
            assert_eq!(end.truncated, game.capped(&state));
            let rounds = u64::from(state.round.min(game.max_rounds()));
            assert_eq!(end.rounds, rounds, "game {i}");
            if !end.truncated {
                assert!(end.winner.is_some());
            }
        }
        let s = playout_stats(&game, &RandomPolicy, 300, 0, false);
        let keys: Vec<&str> = s.chance_outcomes.iter().map(|(k, _)| k.as_str()).collect();
        assert!(keys.len() > 5, "{s}");
        assert!(s.move_events.iter().all(|(k, _)| k == "stuck rule"), "{s}");
        assert!(
            s.mean_rounds <= 40.0 && s.mean_plies >= 4.0 * (s.mean_rounds - 1.0),
            "{s}"
        );
        let json = serde_json::to_value(&s).unwrap();
        let seats: Vec<&String> = json["win_share"].as_object().unwrap().keys().collect();
        assert_eq!(seats.len(), 4);
    }

    #[test]
    fn greedy_play_runs_and_shows_its_name() {
        let game = HaseUndIgel::new(HaseUndIgelParams {
            players: 2,
            ..HaseUndIgelParams::default()
        })
        .unwrap();
        let policy = policy_named::<HaseUndIgel>("greedy").unwrap();
        let greedy = playout_stats(&game, policy.as_ref(), 40, 2, false);
        assert!(policy_named::<HaseUndIgel>("optimal").is_none());
        assert_eq!(greedy.policy, "greedy");
        assert_eq!(greedy.games, 40);
        let shown = greedy.to_string();
        assert!(shown.contains("greedy") && shown.contains("red"), "{shown}");
    }
}
