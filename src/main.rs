//! The `solvedgym` command line: solve games exactly, run experiments from TOML configs, play
//! against the solver.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};

use solvedgym::core::game::{Game, Solver};
use solvedgym::experiment::StudyOutcome;
use solvedgym::games::{AnyGame, GAMES};
use solvedgym::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions, SolveOutput, SolveReport};
use solvedgym::with_game;

#[derive(Parser)]
#[command(
    name = "solvedgym",
    version,
    about = "Reinforcement learning on small board games that are solved exactly",
    long_about = "Learners play games; an exact solver knows the truth; the toolkit shows how \
close learning gets.\n\nStart with:\n  solvedgym solve hexapawn            \
# every position of Gardner's Hexapawn, solved\n  solvedgym run experiments/her-gardner.toml  \
# Gardner's matchbox learner, many machines\n  solvedgym play tictactoe --as o     # play against perfect play"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game exactly: value of the start, reachable states, possible games.
    #[command(after_help = games_help())]
    Solve {
        #[command(flatten)]
        game: GameArgs,
        /// Print the figures as one JSON object.
        #[arg(long)]
        json: bool,
        /// Refuse to enumerate more states than this (a memory guard of the generic solver and
        /// of the enumerating ones of Hase und Igel and the dice race; default 50,000,000).
        #[arg(long)]
        max_states: Option<usize>,
        /// Use the generic solver even where a game has its own (Fox & Hounds, Hasenspiel).
        #[arg(long)]
        generic: bool,
        /// A game's own solver: skip the exact game counts (saves memory on huge boards).
        #[arg(long)]
        no_counts: bool,
        /// A game's own solver: keep no per-position tables (only the start's value and the
        /// counts).
        #[arg(long)]
        no_tables: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// The seed of a game's random positions (Hackenbush's `--random` data sets).
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Run an experiment described by a TOML file; writes curves, summary and plots. Each
    /// finished run is stored as it ends, so an interrupted run resumes where it stopped.
    #[command(after_help = run_help())]
    Run {
        /// The experiment config (TOML).
        config: PathBuf,
        /// Folder for the results (default: notebooks-data/); a subfolder named after the
        /// experiment is created in it.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print the summary (the same as summary.json) as JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Discard the runs an earlier, interrupted run stored in the output folder (of this
        /// config or another) and start over. Without it, the stored runs of the same config
        /// are read instead of trained again, and those of a changed config are refused.
        #[arg(long)]
        fresh: bool,
        /// Run only share K of N of the runs (1 <= K <= N), balanced by expected cost, and store
        /// them in the output folder without writing outputs; `solvedgym merge` then combines
        /// the N folders. For clusters: one shard per job, e.g. --shard 2/8 --out shards/2.
        #[arg(long, value_name = "K/N")]
        shard: Option<solvedgym::experiment::shard::Shard>,
        /// Play every game by its own rules, move by move, rather than from its enumerated
        /// state graph (where the evaluator enumerates it anyway). The same bytes, slower: for
        /// checking a game, or that the two agree.
        #[arg(long)]
        own_rules: bool,
    },
    /// Combine the folders of `run FILE --shard K/N` (all N of them) into the study's outputs,
    /// the same bytes as one uninterrupted run on one machine.
    #[command(after_help = merge_help())]
    Merge {
        /// Each shard's output folder (what its `run --shard K/N` got as --out).
        #[arg(required = true, value_name = "DIR")]
        shards: Vec<PathBuf>,
        /// Folder for the results (default: notebooks-data/), as for `run`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print nothing on stderr (it solves each game again, for the summaries).
        #[arg(long)]
        quiet: bool,
        /// Print the summary (the same as summary.json) as JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Play a game in the terminal against perfect play (optionally fuzzed): the strongest
    /// player the game's solver supports (the FoxBox AI in Fox & Hounds); where a game is too
    /// large to solve, greedy play on its heuristic (Hase und Igel) or random play.
    #[command(after_help = play_help())]
    Play {
        #[command(flatten)]
        game: GameArgs,
        /// The side you play (a player name such as white, black, x, o, red, or a seat number
        /// from 0).
        #[arg(long = "as", value_name = "PLAYER")]
        seat: Option<String>,
        /// The computer's play: optimal (the exact solver's; the default where the game can be
        /// solved), greedy (one ply on the game's heuristic; the default otherwise, where the
        /// game has one), random, or a search on the game's heuristic given by its settings,
        /// e.g. "depth=4" or "depth=6,cutoffs=0-0-8-8-4,mode=hybrid" (see --help).
        #[arg(long, value_name = "AI")]
        ai: Option<String>,
        /// The computer plays a random move with this probability.
        #[arg(long, default_value_t = 0.0)]
        fuzz: f64,
        /// The seed of the computer's random choices (and of a game's random positions where
        /// it has them).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The legal moves of a position written in the game's notation, each in words (with
    /// --json also the position it leads to); a move onto a Hase und Igel hare cell lists the
    /// cards it may draw with their probabilities. Games with a position notation: hase-und-igel.
    #[command(
        after_help = "The position is JSON (a file, or the text itself). Hase und Igel:\n  \
{\"to_move\": 0, \"round\": 12, \"hares\": [{\"cell\": 45, \"carrots\": 26, \"salads\": 2},\n  \
{\"cell\": 29, \"carrots\": 19, \"salads\": 0, \"skip\": true}]}\nPer hare: cell, carrots, salads; optional \
eat (eats a salad next turn), skip (misses the next turn), place (finishing place, on the goal). \
Optional: to_move (seat or colour), round, phase (move, card, choice, over), paid, extra, and any \
game parameter (board, players, carrots, salads, deck, end, max_rounds): the positions `moves \
--json` writes carry them all.\n\
Example: solvedgym moves hase-und-igel --players 2 --state '{\"hares\": [{\"cell\": 14, \"carrots\": 40, \"salads\": 3}, {\"cell\": 2, \"carrots\": 5, \"salads\": 3}]}'"
    )]
    Moves {
        #[command(flatten)]
        game: GameArgs,
        /// The position: a JSON file, or the JSON itself.
        #[arg(long, value_name = "FILE|JSON")]
        state: String,
        /// Print the moves as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Playout statistics: every seat plays one policy and nature draws from the seed; game
    /// length, legal moves per decision, truncation at a round cap, wins per seat, chance
    /// outcomes drawn (Hase und Igel's hare cards) and rule events (its stuck rule).
    #[command(after_help = games_help())]
    Stats {
        #[command(flatten)]
        game: GameArgs,
        /// Games to play.
        #[arg(long, default_value_t = 10_000)]
        games: u64,
        /// The policy every seat plays: random, or greedy (one ply on the game's heuristic).
        #[arg(long, default_value = "random",
              value_parser = clap::builder::PossibleValuesParser::new(solvedgym::tools::stats::POLICIES))]
        policy: String,
        /// The seed of the chance draws and the players' choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print the statistics as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// A tournament between AI entrants (random, greedy, searches with their settings):
    /// seeded deals with the seats rotated; win rate and mean rank with 95% intervals, game
    /// length, and each search's positions and milliseconds per move.
    #[command(after_help = tournament_help())]
    Tournament {
        #[command(flatten)]
        game: GameArgs,
        /// An entrant (at least two, each once): random, greedy (one ply on the game's
        /// heuristic), or search settings, e.g. "depth=4" or "depth=8,order,cutoffs=0-0-8-8-4"
        /// (see below).
        #[arg(long = "ai", value_name = "AI", required = true)]
        ai: Vec<String>,
        /// Deals to play; each deal is played once per seating (see below).
        #[arg(long, default_value_t = 100)]
        games: u64,
        /// The seed of the deals (the cards and dice, and random players' choices).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: all cores). Results do not depend on it (but ms/move does).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print the results as one JSON object.
        #[arg(long)]
        json: bool,
        /// Draw the win rates with their intervals as a bar chart to this file (.svg or .png).
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
    },
    /// Tune a game's evaluation by tournaments: every point of a grid of evaluation settings
    /// plays a baseline head to head on the same deals (the screen), and the best few play
    /// again on fresh deals (the final).
    #[command(
        after_help = "The config (TOML) names the [game], the [search] settings every \
entrant uses and the baseline's evaluation settings, a [grid] of evaluation keys and their values \
(every combination is a candidate), [screen] deals and the [final]'s finalists and deals. Written \
to the output folder: screen.csv and final.csv (one row per candidate, best first), summary.json, \
best.txt (the tuned evaluation settings) and config.toml.\n\
Example: solvedgym tune configs/hase-und-igel-tuning.toml"
    )]
    Tune {
        /// The tuning config (TOML), e.g. configs/hase-und-igel-tuning.toml.
        config: PathBuf,
        /// Folder for the results (default: notebooks-data/<name>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it (timings do).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print summary.json's content instead of the tables (no progress bar).
        #[arg(long)]
        json: bool,
    },
    /// The fuzz-factor table (gilith/solve's, for Fox & Hounds): how often the side that loses
    /// the start wins against the strongest AI when it adds fuzz p, and the fairest p.
    #[command(
        after_help = "The AI gives each move the weight p + (1 - p) if it is in its set S (the \
FoxBox rule in Fox & Hounds, the moves optimal to the ply in other games), p otherwise. The losing \
side of the start plays optimally (maximising its winning chances, computed exactly by dynamic \
programming) against the AI with fuzz p; the second column does the same from the opposite \
position (the first position in breadth-first order whose winner differs from the start's). The \
fairest p gives the first column exactly 0.5 (bisection to 1e-5). Every position is enumerated, \
so boards up to Fox & Hounds 8x8.\n\
Example: solvedgym fuzz fox-hounds --size 8"
    )]
    Fuzz {
        #[command(flatten)]
        game: GameArgs,
        /// Print the table as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Benchmark the exact solvers (wall time, best of --repeat runs, and peak memory of each
    /// solve, every case in its own process), or with --learn the learners' training speed.
    #[command(
        after_help = "Cases: Hasenspiel and Fox & Hounds 4x4..10x10 with the layered solver, and \
the generic solver on Hasenspiel and Fox & Hounds 8x8 for comparison.\n\
With --learn: self-play episodes per second on tic-tac-toe on one thread (Q-learning, SARSA, \
Monte-Carlo, TD(0), TD(0.8), MENACE), each learner with its default config, through the same \
environment and learner interfaces the experiments use.\n\
With --hase: Hase und Igel random playouts on the 2008 board (20,000 games each for 2, 3 and 6 \
hares, one thread, plies per second with card draws counted) and the exact solve of a small variant \
(states per second).\n\
With --values: Hackenbush values of seeded random positions (seed 1): hotchpotch graphs of 16 \
edges and trees of 20 (the pycgt anchor's sizes), blue-red and green graphs of 16, blue-red \
stalks and trees of 200 and green graphs of 10,000 edges (shortcuts only), milliseconds per \
position.\n\
Examples: solvedgym bench --repeat 3\n          solvedgym bench --learn --episodes 2000000\n          \
solvedgym bench --learn --only q-learning\n          solvedgym bench --values\n          \
solvedgym bench --hase"
    )]
    Bench {
        /// Benchmark the learners instead of the solvers.
        #[arg(long, conflicts_with = "values")]
        learn: bool,
        /// Benchmark Hase und Igel instead: random playouts on the 2008 board (2, 3 and 6 hares,
        /// one thread, plies/s; moves and card draws both count) and the exact solve of a small
        /// variant (states/s).
        #[arg(long, conflicts_with_all = ["learn", "values", "max_size"])]
        hase: bool,
        /// Benchmark the search AI instead: from fixed full-board Hase und Igel positions (the
        /// start and after 8, 16, 24, 32 moves of a seeded greedy game) with 2, 3 and 6 hares, one
        /// search per position on one thread at depths 4..=10; nodes, ms and nodes/s per move.
        #[arg(long, conflicts_with_all = ["learn", "values", "max_size", "hase"])]
        search: bool,
        /// With --search: the settings to time (repeatable; `{depth}` stands for each depth;
        /// default "depth={depth},cutoffs=0-0-8-8-4", the same with chance=worst, and with
        /// chance=sample: one card drawn per draw, the seed's tree, which did not branch on
        /// cards). A family stops deepening after a depth that took over 1.5 s a move.
        #[arg(long, value_name = "SETTINGS", requires = "search")]
        ai: Vec<String>,
        /// With --search: the depths (default 4-10).
        #[arg(long, value_name = "A-B", requires = "search")]
        depths: Option<String>,
        /// With --search: only these player counts (comma-separated; default 2,3,6).
        #[arg(long, value_name = "N,..", requires = "search", value_delimiter = ',')]
        players: Vec<usize>,
        /// Benchmark Hackenbush values instead: seeded random positions per family, palette
        /// and size, by the general method and with the theory's shortcuts.
        #[arg(long)]
        values: bool,
        /// Training episodes per learner and run (with --learn; default 2,000,000).
        #[arg(long, requires = "learn")]
        episodes: Option<u64>,
        /// With --learn: only this learner (q-learning, sarsa, mc, td0, td0.8, menace).
        #[arg(long, value_name = "LEARNER", requires = "learn")]
        only: Option<String>,
        /// Runs per case (the best time is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Largest Fox & Hounds board for the layered solver (default 10; not with --learn).
        #[arg(long, conflicts_with = "learn")]
        max_size: Option<usize>,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Evaluate a combinatorial game typed in CGSuite's notation: its canonical form, who
    /// wins, stops, mean and temperature.
    #[command(
        after_help = "Notation: numbers 3, -1/2, 0.375; nimbers *, *2; ups ^, ^^, ^3, v, \
v3, ^[2] (up-sub-2), ^<2> (up-squared); games {L | R} with comma-separated options, more bars \
nesting ({3||2*|1*} = {3 | {2*|1*}}); sums and differences with + and -; juxtaposition adds \
(1*, 3/4v[3]*); ±x = {x | -x}.\n\
Examples: solvedgym value \"{0|1} + *\"\n          solvedgym value \"{3||2*|1*}\" --json"
    )]
    Value {
        /// The expression, e.g. "{0|1} + *".
        #[arg(allow_hyphen_values = true)]
        expression: String,
        /// Print the analysis as one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Rate search AIs against exact truth: solve the game, let each search setting choose a
    /// move at every position, and measure its moves and its results against perfect play.
    #[command(after_help = "\
The game is enumerated and solved once (small variants only: every reachable position is \
searched once per setting). Each figure is the mean over the seats the AI may take; at its seat \
the AI plays the search's move, every other seat plays perfectly (random among the best moves). \
Everything is computed exactly by dynamic programming over the positions, never by sampling.\n\n  \
opt. rate       the optimal-move rate: the share of the AI's positions (every reachable one \
where its seat moves) at which the searched move keeps the position's value (the win, draw or \
loss; with chance, the mover's best win probability).\n  \
along play      the same share in the games the AI plays against perfect play: each position \
weighted by the probability that such games reach it (expected value-keeping moves over \
expected moves). A high `opt. rate` with a low `along play` means its few mistakes lie where \
games go (the opening); the reverse, where good play does not go.\n  \
win vs opt      the AI's exact win probability against perfect play.\n  \
optimum         the win probability perfect play guarantees the seat; the gap to `win vs opt` \
is what the search gives away. With two players and no draws the seats' optima sum to 1, so \
their mean is 0.5. With more than two players the others play for themselves, not against the \
AI, so it may do better than the optimum.\n  \
return vs opt   the same as expected returns (the game's payoffs; where draws count, as in \
tic-tac-toe, this is the figure to read).\n  \
nodes/decision  positions the search generates per move (mean over every searched position; \
most lie near the end, where trees are small).\n\n\
--depths A-B rates every --ai setting (written without depth=) at each depth from A to B. \
--plot FILE draws the depth figure (.svg or .png): left, the optimal-move rate along play \
against the depth (1 dashed: perfect play); right, the win probability against perfect play \
(the optimum dashed); one line per setting without its depth.\n\n\
Examples: solvedgym rate tictactoe --ai depth=2 --ai depth=9\n          \
solvedgym rate hase-und-igel --board HCSIC2C3I1HCIC --carrots 20 --salads 1 --players 2 \
--max-rounds 5 --ai order --ai no-order --ai order,cutoffs=0-0-8-8-4 --depths 1-8 \
--plot search-quality.svg")]
    Rate {
        #[command(flatten)]
        game: GameArgs,
        /// Search settings to rate (repeatable), e.g. "depth=4" or "order,cutoffs=0-0-8-8-4"
        /// with --depths: depth=N, order, no-order, prune, no-prune, table, no-table,
        /// cutoffs=0-0-8-8-4, mode=paranoid|own|lead|hybrid, chance=expectation|worst.
        #[arg(long = "ai", value_name = "SETTINGS", required = true)]
        ai: Vec<String>,
        /// Rate every --ai setting at each of these depths (A-B, e.g. 1-8).
        #[arg(long, value_name = "A-B")]
        depths: Option<String>,
        /// Print the ratings as one JSON object.
        #[arg(long)]
        json: bool,
        /// Draw the depth figure to this file (.svg or .png).
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it (seconds do).
        #[arg(long)]
        threads: Option<usize>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// List the games and their parameters.
    Games,
}

/// A game and its parameters on the command line: the game's name, then a flag for every
/// parameter any registered game takes (`--rows 4`, `--escape square`), or `--param KEY=VALUE`.
struct GameArgs {
    game: String,
    /// (key, value as typed)
    params: Vec<(String, String)>,
}

/// Game parameters that commands take as their own flags (`--seed` seeds a game's random
/// positions and `play`'s choices alike), so they are not generated again.
const COMMAND_FLAGS: &[&str] = &["seed"];

/// Every parameter name of the registered games, with the games that take it and its help.
fn param_flags() -> Vec<(&'static str, String)> {
    // Per key: each distinct help and the games that give it.
    type Helps = Vec<(&'static str, Vec<&'static str>)>;
    let mut flags: Vec<(&'static str, Helps)> = Vec::new();
    for g in GAMES {
        for &(key, doc) in g.fields {
            if COMMAND_FLAGS.contains(&key) {
                continue;
            }
            let doc = doc.trim();
            let at = match flags.iter().position(|(k, _)| *k == key) {
                Some(i) => i,
                None => {
                    flags.push((key, Vec::new()));
                    flags.len() - 1
                }
            };
            let helps = &mut flags[at].1;
            match helps.iter_mut().find(|(d, _)| *d == doc) {
                Some((_, games)) => games.push(g.name),
                None => helps.push((doc, vec![g.name])),
            }
        }
    }
    flags
        .into_iter()
        .map(|(key, helps)| {
            let text: Vec<String> = helps
                .iter()
                .map(|(doc, games)| format!("{}: {doc}", games.join(", ")))
                .collect();
            (key, text.join("; "))
        })
        .collect()
}

impl clap::FromArgMatches for GameArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut params = Vec::new();
        for (key, _) in param_flags() {
            if let Some(v) = m.get_one::<String>(key) {
                params.push((key.to_string(), v.clone()));
            }
        }
        for kv in m.get_many::<String>("param").into_iter().flatten() {
            let Some((k, v)) = kv.split_once('=') else {
                return Err(clap::Error::raw(
                    clap::error::ErrorKind::ValueValidation,
                    format!("--param {kv}: expected KEY=VALUE\n"),
                ));
            };
            params.push((k.trim().to_string(), v.to_string()));
        }
        Ok(GameArgs {
            game: m.get_one::<String>("game").cloned().unwrap_or_default(),
            params,
        })
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for GameArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let mut cmd = cmd.arg(
            clap::Arg::new("game")
                .required(true)
                .value_name("GAME")
                .help("The game (see `solvedgym games`)"),
        );
        for (key, help) in param_flags() {
            let mut arg = clap::Arg::new(key).value_name("VALUE").help(help);
            arg = if key.contains('_') {
                // `--max-rounds`, as flags are spelt; the config's `max_rounds` works too.
                let dashed: &'static str = Box::leak(key.replace('_', "-").into_boxed_str());
                arg.long(dashed).alias(key)
            } else {
                arg.long(key)
            };
            cmd = cmd.arg(arg);
        }
        cmd.arg(
            clap::Arg::new("param")
                .long("param")
                .value_name("KEY=VALUE")
                .action(clap::ArgAction::Append)
                .help("Any game parameter, as KEY=VALUE (repeatable)"),
        )
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl GameArgs {
    /// Passes a command's own flag (`--seed`) to the game when the game takes it; `required`
    /// makes it an error when it does not.
    fn pass(&mut self, key: &str, value: Option<String>, required: bool) -> Result<()> {
        let Some(value) = value else {
            return Ok(());
        };
        match solvedgym::games::GameInfo::find(&self.game) {
            Some(info) if info.takes(key) => {
                self.params.push((key.to_string(), value));
                Ok(())
            }
            Some(info) if required => bail!(
                "--{key}: {} has no random positions to seed (its parameters: {})",
                info.name,
                info.params_help()
            ),
            _ => Ok(()),
        }
    }

    fn build(&self) -> Result<AnyGame> {
        let text_params = solvedgym::games::GameInfo::find(&self.game)
            .map(|info| info.text_params())
            .unwrap_or_default();
        let mut table = toml::Table::new();
        for (k, v) in &self.params {
            // A TOML value (4, true, "area") or else the text itself (area).
            let mut value = format!("v = {v}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
                .unwrap_or_else(|| toml::Value::String(v.to_string()));
            // A parameter whose default is text takes digits as text (`--board 1234`).
            if text_params.contains(&k.as_str()) && !value.is_str() {
                value = toml::Value::String(v.trim_matches('"').to_string());
            }
            table.insert(k.clone(), value);
        }
        Ok(AnyGame::from_spec(&self.game, table)?)
    }
}

fn run_help() -> String {
    format!(
        "{}Learners (kind):\n{}{}",
        "\
A config names a [game] (or several [[games]]: a study), one or more [[learners]] and, unless the
learners play themselves, [[opponents]]. Every key is checked; a mistake names file, line and key.

",
        solvedgym::learn::LearnerConfig::help(),
        "  alpha and epsilon: a number or { kind = \"linear\" | \"exponential\", ... }
Seats: seat = \"self-play\" (default), a player name, or \"alternate\" (every seat in turn).
Opponents: policy = \"optimal\" | \"random\" | \"greedy\" (one ply on the game's heuristic) |
\"fuzzy\" (p, base) | \"frozen\" (a copy of the learner, refresh = N games; with
seat = \"alternate\").

Output: <out>/<name>/curves.parquet, curves.csv, config.toml (resolved: reruns to the same
bytes), summary.json, summary.md, <metric>.png/.svg. The full format: README.md and the
commented files of experiments/ and configs/.

Long studies: each run (learner x opponent x seed) is stored in <out>/<name>/runs/ the moment it
ends. Run the same command again after an interruption (Ctrl-C, a killed job, a full disk) and it
trains only the runs not stored, then writes the same bytes as an uninterrupted run and removes
runs/. A changed config is refused (both config hashes are named); --fresh starts over.
--shard K/N splits the runs across machines: see `solvedgym merge --help`.

Examples:
  solvedgym run experiments/her-gardner.toml
  solvedgym run experiments/learners-compare.toml     # the study: 6 learners x 6 games
  solvedgym run configs/regimes-tictactoe.toml --out /tmp/runs --json
  solvedgym run experiments/learners-compare.toml --fresh   # discard stored runs, start over
  solvedgym run experiments/learners-compare.toml --shard 1/4 --out shards/1"
    )
}

fn merge_help() -> String {
    "\
Each shard stores its runs in <its --out>/<name>/runs/; merge checks that the folders hold runs of
one config (the same config hash), each run once and none missing, copies them into
<out>/<name>/runs/ and writes the outputs as `run` does, then removes that copy. Shard folders are
left as they are. Gather them first onto one machine (a shared file system, or rsync).

Examples:
  solvedgym run experiments/learners-compare.toml --shard 1/2 --out shards/1
  solvedgym run experiments/learners-compare.toml --shard 2/2 --out shards/2
  solvedgym merge shards/1 shards/2 --out notebooks-data
The full walk-through, with a Slurm job array and GNU parallel: docs/cluster.md"
        .to_string()
}

/// The summaries of a run or a merge: tables, or JSON (one object for an experiment, an
/// array for a study of several games).
fn print_summaries(
    summaries: &[solvedgym::experiment::summary::RunSummary],
    json: bool,
) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        let text = match summaries {
            [one] => serde_json::to_string_pretty(one)?,
            many => serde_json::to_string_pretty(many)?,
        };
        writeln!(stdout, "{text}")?;
    } else {
        for summary in summaries {
            writeln!(stdout, "{summary}")?;
        }
    }
    Ok(())
}

fn play_help() -> String {
    format!(
        "Search settings for --ai (comma-separated; games with a heuristic): depth=N (plies, \
default 4), order / no-order (moves sorted by their static score), prune / no-prune (alpha-beta), \
cutoffs=0-0-8-8-4 (keep the best k moves at each ply; 0 = all), mode=paranoid (the default: the \
others play against you) | own | lead | hybrid (max-n, each hare for itself, read by its own \
score, its lead over the best rival, or both), chance=expectation | worst.\n\
Examples: solvedgym play hase-und-igel --players 3 --as 0\n          \
solvedgym play hase-und-igel --players 2 --ai \"depth=4,mode=hybrid\"\n\n{}",
        games_help()
    )
}

fn tournament_help() -> String {
    format!(
        "A deal is one seed: every game of a deal draws from it, so where play coincides the \
cards and dice coincide and luck is paired across seats. With E entrants and P seats, E <= P seats \
the entrants repeated in turn to P seats (A B A for 2 entrants and 3 seats) and plays the deal P \
times, once per rotation of that list; E > P plays the deal once for every ordered choice of P \
distinct entrants. Every entrant thus holds every seat equally often; --games counts deals.\n\n\
Per entrant: games (seats held), win rate (a win shared by k tied players counts 1/k; equal play \
wins 1/P) and mean rank (1 = first), each with its 95% interval over deals (the entrant's mean per \
deal; mean ± 1.96·s/√n, clipped), player moves per game, and for searches positions and \
milliseconds per move. Everything but the milliseconds and seconds is the same for a seed on any \
machine and thread count; the milliseconds depend on the machine and on what else runs on it.\n\n\
Search settings (comma-separated; games with a heuristic, or any game searched to its end): \
depth=N (plies, default 4), order / no-order, prune / no-prune (alpha-beta), cutoffs=0-0-8-8-4 \
(keep the best k moves at each ply; 0 = all), mode=paranoid | own | lead | hybrid, \
chance=expectation | worst | leaf, table / no-table, stop / play-on, nodes=N or ms=N (iterative \
deepening within a budget). Any other KEY=VALUE sets the game's evaluation for that entrant alone \
(Hase und Igel: eval=FILE, ks=W, kc=W, kp=W), so entrants may differ only in their heuristic. An \
entrant is named by its settings in full.\n\n\
Examples:\n  solvedgym tournament hase-und-igel --players 3 --ai depth=1 --ai depth=2 --ai random --games 100\n  \
solvedgym tournament hase-und-igel --players 2 --ai depth=2 --ai depth=2,kc=0 --games 50\n  \
solvedgym tournament hase-und-igel --players 3 --ai \"depth=4\" --ai \"depth=8,order,cutoffs=0-0-8-8-4\" \
--ai random --games 200 --seed 1 --json --plot notebooks-data/tournament.svg\n  \
solvedgym tournament tictactoe --ai depth=9 --ai random --games 50\n\n{}",
        games_help()
    )
}

fn games_help() -> String {
    let mut s = String::from("Games:\n");
    for g in GAMES {
        s.push_str(&format!(
            "  {:<12} {}\n               parameters: {}\n",
            g.name,
            g.summary,
            g.params_help()
        ));
    }
    s
}

fn main() {
    if let Err(e) = run() {
        // The reader of our output has gone (`solvedgym ... | head`): stop quietly.
        if e.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        {
            std::process::exit(0);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Solve {
            game,
            json,
            max_states,
            generic,
            no_counts,
            no_tables,
            quiet,
            seed,
        } => {
            let mut game = game;
            game.pass("seed", seed.map(|s| s.to_string()), true)?;
            let game = game.build()?;
            let solver = with_game!(&game, g => g.capabilities().solver);
            let own_flags = match solver {
                Solver::Own { flags, .. } if !generic => flags,
                _ => &[],
            };
            for (flag, given) in [("no-counts", no_counts), ("no-tables", no_tables)] {
                if given && !own_flags.contains(&flag) {
                    bail!(
                        "--{flag} applies to a game's own solver that takes it; {} is solved by {}",
                        game.name(),
                        match solver {
                            _ if generic => "the generic solver (--generic)",
                            Solver::Own { name, .. } => name,
                            _ => "enumeration",
                        }
                    );
                }
            }
            if generic && !matches!(solver, Solver::Own { .. }) {
                bail!(
                    "--generic: {} has no solver of its own; the generic solver is the one it uses",
                    game.name()
                );
            }
            if max_states.is_some()
                && matches!(solver, Solver::Own { .. })
                && !generic
                && !own_flags.contains(&"max-states")
            {
                bail!(
                    "--max-states bounds the generic solver; {} uses its own (add --generic to enumerate)",
                    game.name()
                );
            }
            let options = SolveOptions {
                max_states: max_states.unwrap_or(DEFAULT_STATE_LIMIT),
                generic,
                counts: !no_counts,
                tables: !no_tables,
                progress: !quiet && !json,
            };
            let output = with_game!(&game, g => g.solve_output(&options)?);
            match output {
                SolveOutput::Report(report) => print_report(*report, json),
                SolveOutput::Entries(entries) => {
                    let mut stdout = std::io::stdout().lock();
                    for (text, object) in entries {
                        if json {
                            writeln!(stdout, "{}", serde_json::to_string(&object)?)?;
                        } else {
                            writeln!(stdout, "{text}")?;
                        }
                    }
                    Ok(())
                }
            }
        }
        Command::Run {
            config,
            out,
            threads,
            quiet,
            json,
            fresh,
            shard,
            own_rules,
        } => {
            set_threads(threads)?;
            let out = out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
            let options = solvedgym::experiment::RunOptions {
                progress: !quiet && !json,
                fresh,
                shard,
                own_rules,
            };
            match solvedgym::experiment::run_study(&config, &out, &options)? {
                StudyOutcome::Finished(summaries) => print_summaries(&summaries, json),
                StudyOutcome::Shard(report) => print_json_or_text(&report, json),
            }
        }
        Command::Merge {
            shards,
            out,
            quiet,
            json,
        } => {
            let out = out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
            let summaries = solvedgym::experiment::merge(&shards, &out, !quiet && !json)?;
            print_summaries(&summaries, json)
        }
        Command::Play {
            game,
            seat,
            ai,
            fuzz,
            seed,
        } => {
            use solvedgym::tools::play;
            play::check_fuzz(fuzz)?;
            let mut game = game;
            game.pass("seed", Some(seed.to_string()), false)?;
            let game = game.build()?;
            with_game!(&game, g => {
                let human = play::human_seat(g, seat.as_deref())?;
                let oracle = match g.capabilities().solver {
                    Solver::None => None,
                    _ => {
                        eprintln!("solving {} ...", g.name());
                        let options = SolveOptions { progress: true, ..SolveOptions::default() };
                        match g.solve(&options) {
                            Ok(oracle) => Some(oracle),
                            // Unless perfect play was asked for, the computer plays without the truth.
                            Err(e) if ai.as_deref() != Some("optimal") => {
                                eprintln!("no exact solution: {e}");
                                None
                            }
                            Err(e) => return Err(e.into()),
                        }
                    }
                };
                let choice = ai.as_deref().unwrap_or(play::default_ai(g, oracle.is_some()));
                let computer = play::computer_player(g, choice, fuzz, oracle.as_deref())?;
                if choice != "optimal" {
                    eprintln!(
                        "the computer plays {} (--ai optimal, greedy, random or search settings)",
                        computer.name()
                    );
                }
                play::play(
                    g,
                    human,
                    computer.as_ref(),
                    oracle.as_deref(),
                    seed,
                    &mut std::io::stdin().lock(),
                    &mut std::io::stdout().lock(),
                )?;
            });
            Ok(())
        }
        Command::Moves { game, state, json } => {
            let text = match std::fs::read_to_string(&state) {
                Ok(text) => text,
                Err(_) if state.trim_start().starts_with('{') => state.clone(),
                Err(e) => bail!("--state {state}: neither a readable file ({e}) nor JSON"),
            };
            let position: serde_json::Value =
                serde_json::from_str(&text).context("--state: the position is not JSON")?;
            let mut game = game;
            // The game's parameters a position carries, unless a flag gives them.
            if let (Some(info), Some(object)) = (
                solvedgym::games::GameInfo::find(&game.game),
                position.as_object(),
            ) {
                for (key, value) in object {
                    if !info.takes(key) || value.is_null() {
                        continue;
                    }
                    let value = match value {
                        serde_json::Value::String(s) => format!("{s:?}"),
                        other => toml::Value::try_from(other)
                            .map(|v| v.to_string())
                            .unwrap_or_else(|_| other.to_string()),
                    };
                    match game.params.iter().find(|(k, _)| k == key) {
                        None => game.params.push((key.clone(), value)),
                        Some((_, given)) if given.trim_matches('"') != value.trim_matches('"') => {
                            bail!(
                                "--{} {given}: the position says {key} = {value}",
                                key.replace('_', "-")
                            )
                        }
                        Some(_) => {}
                    }
                }
            }
            let game = game.build()?;
            let out = with_game!(&game, g => {
                let state = g
                    .read_position(&text)
                    .map_err(|e| anyhow::anyhow!("--state: {e}"))?;
                let moves = solvedgym::tools::moves::moves(g, &state);
                if json {
                    serde_json::to_string_pretty(&moves)?
                } else {
                    moves.to_string()
                }
            });
            writeln!(std::io::stdout().lock(), "{}", out.trim_end())?;
            Ok(())
        }
        Command::Stats {
            game,
            games,
            policy,
            seed,
            threads,
            quiet,
            json,
        } => {
            set_threads(threads)?;
            if games == 0 {
                bail!("--games 0: play at least one game");
            }
            let mut game = game;
            game.pass("seed", Some(seed.to_string()), false)?;
            let game = game.build()?;
            let text = with_game!(&game, g => {
                if policy == "greedy" && g.heuristic(&g.initial_state(), 0).is_none() {
                    bail!("--policy greedy: {} has no heuristic; use --policy random", g.name());
                }
                let p = solvedgym::tools::stats::policy_named(&policy).expect("clap checked the name");
                let s = solvedgym::tools::stats::playout_stats(g, p.as_ref(), games, seed, !quiet && !json);
                if json { serde_json::to_string_pretty(&s)? } else { s.to_string() }
            });
            writeln!(std::io::stdout().lock(), "{}", text.trim_end())?;
            Ok(())
        }
        Command::Tournament {
            game,
            ai,
            games,
            seed,
            threads,
            quiet,
            json,
            plot,
        } => {
            set_threads(threads)?;
            if let Some(path) = &plot {
                solvedgym::io::plot::is_svg(path).context("--plot")?;
            }
            let entrants = ai
                .iter()
                .map(|spec| {
                    solvedgym::tools::tournament::parse_entrant(spec)
                        .map_err(|e| anyhow::anyhow!("--ai {spec}: {e}"))
                })
                .collect::<Result<Vec<_>>>()?;
            let mut game = game;
            game.pass("seed", Some(seed.to_string()), false)?;
            let game = game.build()?;
            let report = with_game!(&game, g => {
                use solvedgym::tools::tournament;
                tournament::check(g, &entrants, games).context("--ai / --games")?;
                if tournament::blind_search(g, &entrants) {
                    eprintln!(
                        "note: {} has no heuristic: a search values the positions at its depth \
            limit as 0, so only a search to the end of the game plays well",
                        g.name()
                    );
                }
                let per_deal = tournament::games_per_deal(entrants.len(), g.num_players());
                let bar = if quiet || json {
                    indicatif::ProgressBar::hidden()
                } else {
                    let bar = indicatif::ProgressBar::new(games * per_deal as u64);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{msg} [{bar:40.cyan/blue}] {human_pos}/{human_len} games ({eta} left)",
                        )
                        .expect("valid template")
                        .progress_chars("=> "),
                    );
                    bar.set_message(format!(
                        "{} entrants on {} threads",
                        entrants.len(),
                        rayon::current_num_threads()
                    ));
                    bar
                };
                let report = tournament::run(g, &entrants, games, seed, &|n| bar.inc(n))?;
                bar.finish_and_clear();
                report
            });
            if let Some(path) = &plot {
                solvedgym::tools::tournament::plot(&report, path)?;
            }
            let mut stdout = std::io::stdout().lock();
            if json {
                writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                writeln!(stdout, "{report}")?;
                if let Some(path) = &plot {
                    writeln!(stdout, "plot: {}", path.display())?;
                }
            }
            Ok(())
        }
        Command::Tune {
            config,
            out,
            threads,
            quiet,
            json,
        } => {
            set_threads(threads)?;
            let (report, dir) =
                solvedgym::tools::tune::run_file(&config, out.as_deref(), !quiet && !json)?;
            let mut stdout = std::io::stdout().lock();
            if json {
                writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
            } else {
                writeln!(stdout, "{report}")?;
                writeln!(stdout, "results: {}", dir.display())?;
            }
            Ok(())
        }
        Command::Fuzz { game, json } => {
            let game = game.build()?;
            let table = with_game!(&game, g => solvedgym::tools::fuzz::fuzz_table(g, !json)?);
            print_json_or_text(&table, json)
        }
        Command::Bench {
            learn,
            hase,
            search,
            ai,
            depths,
            players,
            values,
            episodes,
            repeat,
            json,
            only,
            max_size,
        } => {
            let mut stdout = std::io::stdout().lock();
            if values && max_size.is_some() {
                bail!(
                    "--max-size sets the largest Fox & Hounds board of the solver benchmark, not of --values"
                );
            }
            let rows = if search {
                let settings = if ai.is_empty() {
                    vec![
                        "depth={depth},cutoffs=0-0-8-8-4".to_string(),
                        "depth={depth},cutoffs=0-0-8-8-4,chance=worst".to_string(),
                        "depth={depth},cutoffs=0-0-8-8-4,chance=sample".to_string(),
                    ]
                } else {
                    ai
                };
                let depths = match depths.as_deref() {
                    None => 4..=10,
                    Some(text) => parse_depths(text)?,
                };
                let players = if players.is_empty() {
                    solvedgym::tools::bench::SEARCH_PLAYERS.to_vec()
                } else {
                    players
                };
                let rows = solvedgym::tools::bench::search(
                    &settings,
                    depths,
                    &players,
                    repeat,
                    &mut |r| {
                        if !json {
                            let _ = writeln!(stdout, "{r}");
                        }
                    },
                )?;
                if !json {
                    for line in solvedgym::tools::bench::search_goals(&rows) {
                        writeln!(stdout, "{line}")?;
                    }
                }
                serde_json::to_string_pretty(&rows)?
            } else if hase {
                let rows = solvedgym::tools::bench::hase_und_igel(repeat, &mut |r| {
                    if !json {
                        let _ = writeln!(stdout, "{r}");
                    }
                })?;
                serde_json::to_string_pretty(&rows)?
            } else if values {
                let rows = solvedgym::tools::bench::values(repeat, &mut |r| {
                    if !json {
                        let _ = writeln!(stdout, "{r}");
                    }
                })?;
                serde_json::to_string_pretty(&rows)?
            } else if learn {
                let episodes = episodes.unwrap_or(2_000_000).max(1);
                let rows = solvedgym::tools::bench::learners(
                    repeat,
                    episodes,
                    only.as_deref(),
                    &mut |r| {
                        if !json {
                            let _ = writeln!(stdout, "{r}");
                        }
                    },
                )?;
                serde_json::to_string_pretty(&rows)?
            } else {
                let exe = std::env::current_exe().context("locating the solvedgym executable")?;
                let max_size = max_size.unwrap_or(10);
                let rows = solvedgym::tools::bench::solvers(&exe, repeat, max_size, &mut |r| {
                    if !json {
                        let _ = writeln!(stdout, "{r}");
                    }
                })?;
                serde_json::to_string_pretty(&rows)?
            };
            if json {
                writeln!(stdout, "{rows}")?;
            }
            Ok(())
        }
        Command::Value { expression, json } => {
            let a = solvedgym::truth::cgt::analyse(&expression)
                .map_err(|e| anyhow::anyhow!("{expression}: {e}"))?;
            let mut stdout = std::io::stdout().lock();
            if json {
                writeln!(stdout, "{}", serde_json::to_string(&a)?)?;
            } else {
                write!(stdout, "{a}")?;
            }
            Ok(())
        }
        Command::Rate {
            game,
            ai,
            depths,
            json,
            plot,
            threads,
            quiet,
        } => {
            use solvedgym::ai::search::SearchOptions;
            use solvedgym::tools::rate as quality;
            set_threads(threads)?;
            if let Some(path) = &plot {
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if !["svg", "png"].contains(&ext.to_ascii_lowercase().as_str()) {
                    bail!(
                        "--plot {}: the file name ends in .svg or .png",
                        path.display()
                    );
                }
            }
            let depths = depths.as_deref().map(parse_depths).transpose()?;
            let mut entrants = Vec::new();
            for spec in &ai {
                let parse = |text: &str| {
                    SearchOptions::parse(text).map_err(|e| anyhow::anyhow!("--ai {spec}: {e}"))
                };
                match &depths {
                    None => entrants.push(parse(spec)?),
                    Some(_) if spec.split(',').any(|p| p.trim().starts_with("depth=")) => bail!(
                        "--ai {spec}: --depths gives the depths; write the settings without depth="
                    ),
                    Some(range) => {
                        for d in range.clone() {
                            entrants.push(parse(&format!("{spec},depth={d}"))?);
                        }
                    }
                }
            }
            let game = game.build()?;
            let (rows, name, params) = with_game!(&game, g => {
                if g.heuristic(&g.initial_state(), 0).is_none() {
                    eprintln!(
                        "note: {} has no heuristic; the search scores unfinished positions 0 and sees only the ends within its depth",
                        g.name()
                    );
                }
                let rows = quality::rate(g, &entrants, !quiet && !json)
                    .with_context(|| format!("rating the search on {}", g.name()))?;
                (rows, g.name(), g.params())
            });
            if let Some(path) = &plot {
                let settings: Vec<String> = params
                    .as_object()
                    .map(|o| o.iter().map(|(k, v)| format!("{k}={v}")).collect())
                    .unwrap_or_default();
                let title = if settings.is_empty() {
                    format!("{name}: the search against perfect play, mean over the seats")
                } else {
                    format!(
                        "{name} ({}): the search against perfect play, mean over the seats",
                        settings.join(", ").replace('"', "")
                    )
                };
                quality::plot(&rows, &title, path)?;
                if !json {
                    eprintln!("wrote {}", path.display());
                }
            }
            let mut stdout = std::io::stdout().lock();
            if json {
                let object = serde_json::json!({ "game": name, "params": params, "rows": rows });
                writeln!(stdout, "{}", serde_json::to_string_pretty(&object)?)?;
            } else {
                if let Some(r) = rows.first() {
                    writeln!(
                        stdout,
                        "{name}: {} positions, {} with a move; means over the seats, the AI at one seat against perfect play",
                        solvedgym::core::text::group(&r.states.to_string()),
                        solvedgym::core::text::group(&r.decisions.to_string()),
                    )?;
                }
                write!(stdout, "{}", quality::table(&rows))?;
            }
            Ok(())
        }
        Command::Games => {
            writeln!(std::io::stdout().lock(), "{}", games_help().trim_end())?;
            Ok(())
        }
    }
}

/// `--threads N`: the worker threads of the parallel work (results do not depend on them).
fn set_threads(threads: Option<usize>) -> Result<()> {
    if let Some(t) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .context("setting the number of threads")?;
    }
    Ok(())
}

fn print_report(mut report: SolveReport, json: bool) -> Result<()> {
    if let Some(mb) = solvedgym::tools::bench::peak_memory_mb() {
        report
            .extra
            .insert("peak_memory_mb".to_string(), serde_json::json!(mb));
    }
    print_json_or_text(&report, json)
}

/// Prints `value` to stdout as pretty JSON (`--json`) or as its text.
fn print_json_or_text<T: serde::Serialize + std::fmt::Display>(
    value: &T,
    json: bool,
) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(value)?)?;
    } else {
        writeln!(stdout, "{value}")?;
    }
    Ok(())
}

/// Depths written `A-B` (or one depth `A`), from 1 to 64.
fn parse_depths(text: &str) -> Result<std::ops::RangeInclusive<u32>> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let bad = || anyhow::anyhow!("--depths {text}: write A-B with 1 <= A <= B <= 64, e.g. 4-10");
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || a > b || b > 64 {
        return Err(bad());
    }
    Ok(a..=b)
}
