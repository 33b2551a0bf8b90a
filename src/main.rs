//! The `solvedgym` command line: solve games exactly, run experiments from TOML configs, play
//! against the solver.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};

use solvedgym::game::{Game, Solver};
use solvedgym::games::{AnyGame, GAMES};
use solvedgym::policy::{Policy, RandomPolicy};
use solvedgym::solve::{DEFAULT_STATE_LIMIT, SolveOptions, SolveOutput, SolveReport};
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
    /// Run an experiment described by a TOML file; writes curves, summary and plots.
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
              value_parser = clap::builder::PossibleValuesParser::new(solvedgym::stats::POLICIES))]
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

Examples:
  solvedgym run experiments/her-gardner.toml
  solvedgym run experiments/learners-compare.toml     # the study: 6 learners x 6 games
  solvedgym run configs/regimes-tictactoe.toml --out /tmp/runs --json"
    )
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
        } => {
            set_threads(threads)?;
            let out = out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
            let summaries = solvedgym::experiment::run_file(&config, &out, !quiet && !json)?;
            let mut stdout = std::io::stdout().lock();
            if json {
                // One object for an experiment, an array for a study of several games.
                let text = match summaries.as_slice() {
                    [one] => serde_json::to_string_pretty(one)?,
                    many => serde_json::to_string_pretty(many)?,
                };
                writeln!(stdout, "{text}")?;
            } else {
                for summary in &summaries {
                    writeln!(stdout, "{summary}")?;
                }
            }
            Ok(())
        }
        Command::Play {
            game,
            seat,
            ai,
            fuzz,
            seed,
        } => {
            if !(0.0..=1.0).contains(&fuzz) {
                bail!("--fuzz {fuzz}: a probability between 0 and 1");
            }
            let mut game = game;
            game.pass("seed", Some(seed.to_string()), false)?;
            let game = game.build()?;
            with_game!(&game, g => {
                let names: Vec<_> = (0..g.num_players()).map(|p| g.player_name(p)).collect();
                let human = match seat.as_deref() {
                    None => 0,
                    Some(name) => match name.parse::<usize>() {
                        Ok(i) if i < names.len() => i,
                        _ => g.player_by_name(name).with_context(|| {
                            format!(
                                "--as {name}: the players of {} are {} (or seats 0 to {})",
                                g.name(),
                                names.join(", "),
                                names.len() - 1
                            )
                        })?,
                    },
                };
                let heuristic = g.heuristic(&g.initial_state(), 0).is_some();
                let oracle = match g.capabilities().solver {
                    Solver::None => None,
                    _ => {
                        eprintln!("solving {} ...", g.name());
                        let options = SolveOptions { progress: true, ..SolveOptions::default() };
                        match g.solve(&options) {
                            Ok(oracle) => Some(oracle),
                            Err(e) if ai.as_deref() != Some("optimal") => {
                                eprintln!("no exact solution: {e}");
                                None
                            }
                            Err(e) => return Err(e.into()),
                        }
                    }
                };
                let choice = ai.as_deref().unwrap_or(match (&oracle, heuristic) {
                    (Some(_), _) => "optimal",
                    (None, true) => "greedy",
                    (None, false) => "random",
                });
                let search = match choice {
                    "optimal" | "greedy" | "random" => None,
                    spec => Some(solvedgym::search::SearchOptions::parse(spec).map_err(|e| {
                        anyhow::anyhow!(
                            "--ai {spec}: optimal, greedy, random, or search settings: {e}"
                        )
                    })?),
                };
                if search.is_some() && !heuristic {
                    bail!("--ai {choice}: {} has no heuristic to search with", g.name());
                }
                let base: Box<dyn Policy<_>> = match (choice, &oracle) {
                    (_, _) if search.is_some() => {
                        let options = search.clone().expect("checked");
                        let policy = solvedgym::search::SearchPolicy { options };
                        if fuzz > 0.0 {
                            Box::new(solvedgym::policy::FuzzyPolicy { base: policy, p: fuzz })
                        } else {
                            Box::new(policy)
                        }
                    }
                    ("optimal", Some(oracle)) => oracle.strong_policy(fuzz),
                    ("optimal", None) => bail!(
                        "--ai optimal: {} has no exact solver; use --ai greedy or random",
                        g.name()
                    ),
                    ("greedy", _) if !heuristic => bail!(
                        "--ai greedy: {} has no heuristic; use --ai random",
                        g.name()
                    ),
                    ("greedy", _) if fuzz > 0.0 => Box::new(solvedgym::policy::FuzzyPolicy {
                        base: solvedgym::policy::GreedyPolicy,
                        p: fuzz,
                    }),
                    ("greedy", _) => Box::new(solvedgym::policy::GreedyPolicy),
                    _ => Box::new(RandomPolicy),
                };
                if choice != "optimal" {
                    eprintln!(
                        "the computer plays {} (--ai optimal, greedy, random or search settings)",
                        base.name()
                    );
                }
                let ai = base;
                let stdin = std::io::stdin();
                solvedgym::play::play(
                    g,
                    human,
                    ai.as_ref(),
                    oracle.as_deref(),
                    seed,
                    &mut stdin.lock(),
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
                let moves = solvedgym::moves::moves(g, &state);
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
                let p = solvedgym::stats::policy_named(&policy).expect("clap checked the name");
                let s = solvedgym::stats::playout_stats(g, p.as_ref(), games, seed, !quiet && !json);
                if json { serde_json::to_string_pretty(&s)? } else { s.to_string() }
            });
            writeln!(std::io::stdout().lock(), "{}", text.trim_end())?;
            Ok(())
        }
        Command::Fuzz { game, json } => {
            let game = game.build()?;
            let table = with_game!(&game, g => solvedgym::fuzz::fuzz_table(g, !json)?);
            let mut stdout = std::io::stdout().lock();
            if json {
                writeln!(stdout, "{}", serde_json::to_string_pretty(&table)?)?;
            } else {
                writeln!(stdout, "{table}")?;
            }
            Ok(())
        }
        Command::Bench {
            learn,
            hase,
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
            let rows = if hase {
                let rows = solvedgym::bench::hase_und_igel(repeat, &mut |r| {
                    if !json {
                        let _ = writeln!(stdout, "{r}");
                    }
                })?;
                serde_json::to_string_pretty(&rows)?
            } else if values {
                let rows = solvedgym::bench::values(repeat, &mut |r| {
                    if !json {
                        let _ = writeln!(stdout, "{r}");
                    }
                })?;
                serde_json::to_string_pretty(&rows)?
            } else if learn {
                let episodes = episodes.unwrap_or(2_000_000).max(1);
                let rows =
                    solvedgym::bench::learners(repeat, episodes, only.as_deref(), &mut |r| {
                        if !json {
                            let _ = writeln!(stdout, "{r}");
                        }
                    })?;
                serde_json::to_string_pretty(&rows)?
            } else {
                let exe = std::env::current_exe().context("locating the solvedgym executable")?;
                let max_size = max_size.unwrap_or(10);
                let rows = solvedgym::bench::solvers(&exe, repeat, max_size, &mut |r| {
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
            let a = solvedgym::cgt::analyse(&expression)
                .map_err(|e| anyhow::anyhow!("{expression}: {e}"))?;
            let mut stdout = std::io::stdout().lock();
            if json {
                writeln!(stdout, "{}", serde_json::to_string(&a)?)?;
            } else {
                write!(stdout, "{a}")?;
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
    if let Some(mb) = solvedgym::bench::peak_memory_mb() {
        report
            .extra
            .insert("peak_memory_mb".to_string(), serde_json::json!(mb));
    }
    let mut stdout = std::io::stdout().lock();
    if json {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(stdout, "{report}")?;
    }
    Ok(())
}
