//! The `solvedgym` command line: solve games exactly, run experiments from TOML configs, play
//! against the solver.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};

use solvedgym::game::{Game, Turn};
use solvedgym::games::Chase;
use solvedgym::games::chase::ai::{FuzzModel, SeedAi};
use solvedgym::games::chase::fast::{FastOptions, FastSolution};
use solvedgym::games::{AnyGame, GAMES};
use solvedgym::policy::{FuzzyPolicy, OptimalPolicy, Policy};
use solvedgym::solve::{DEFAULT_STATE_LIMIT, Solution, SolveReport, Value};
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
        /// Refuse to enumerate more states than this (a memory guard; generic solver).
        #[arg(long, default_value_t = DEFAULT_STATE_LIMIT)]
        max_states: usize,
        /// Use the generic solver even where a game has a fast one (Fox & Hounds, Hasenspiel).
        #[arg(long)]
        generic: bool,
        /// Fast solver: skip the exact game counts (saves memory on huge boards).
        #[arg(long)]
        no_counts: bool,
        /// Fast solver: keep no per-position tables (only the start's value and the counts).
        #[arg(long)]
        no_tables: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Run an experiment described by a TOML file; writes curves, summary and plots.
    #[command(after_help = "\
A config names a [game] (or several [[games]]: a study), one or more [[learners]] and, unless the
learners play themselves, [[opponents]]. Every key is checked; a mistake names file, line and key.

Learners (kind):
  matchbox      scheme = \"her\" (Gardner) | \"menace\" (Michie)
  monte-carlo   visits = \"first\" | \"every\"; alpha = a step size or \"average\"
  td            lambda = 0..1; traces = \"accumulating\" | \"replacing\" (afterstate values)
  q-learning    algorithm = \"q-learning\" | \"sarsa\" | \"expected-sarsa\"; double = true|false
  alpha and epsilon: a number or { kind = \"linear\" | \"exponential\", ... }
Seats: seat = \"self-play\" (default), a player name, or \"alternate\" (every seat in turn).
Opponents: policy = \"optimal\" | \"random\" | \"fuzzy\" (p, base) | \"frozen\" (a copy of the
learner, refresh = N games; with seat = \"alternate\").

Output: <out>/<name>/curves.parquet, curves.csv, config.toml (resolved: reruns to the same
bytes), summary.json, summary.md, <metric>.png/.svg. The full format: README.md and the
commented files of experiments/ and configs/.

Examples:
  solvedgym run experiments/her-gardner.toml
  solvedgym run experiments/learners-compare.toml     # the study: 6 learners x 6 games
  solvedgym run configs/regimes-tictactoe.toml --out /tmp/runs --json")]
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
    /// Play a game in the terminal against perfect play (optionally fuzzed).
    #[command(after_help = games_help())]
    Play {
        #[command(flatten)]
        game: GameArgs,
        /// The side you play (a player name such as white, black, x, o).
        #[arg(long = "as", value_name = "PLAYER")]
        seat: Option<String>,
        /// The computer plays a random move with this probability.
        #[arg(long, default_value_t = 0.0)]
        fuzz: f64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The seed's fuzz-factor table for Fox & Hounds: how often the losing side wins against
    /// the seed's AI playing a random move with probability p, and the fairest p.
    #[command(
        after_help = "The losing side of the start plays optimally (maximising its winning \
chances, computed exactly by dynamic programming) against the AI with fuzz p; the second column \
does the same from the opposite position (the first position in breadth-first order whose winner \
differs from the start's). The fairest p gives the first column exactly 0.5 (bisection to 1e-5).\n\
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
Examples: solvedgym bench --repeat 3\n          solvedgym bench --learn --episodes 2000000\n          \
solvedgym bench --learn --only q-learning"
    )]
    Bench {
        /// Benchmark the learners instead of the solvers.
        #[arg(long)]
        learn: bool,
        /// Training episodes per learner and run (with --learn).
        #[arg(long, default_value_t = 2_000_000)]
        episodes: u64,
        /// With --learn: only this learner (q-learning, sarsa, mc, td0, td0.8, menace).
        #[arg(long, value_name = "LEARNER")]
        only: Option<String>,
        /// Runs per case (the best time is reported).
        #[arg(long, default_value_t = 3)]
        repeat: usize,
        /// Largest Fox & Hounds board for the layered solver.
        #[arg(long, default_value_t = 10)]
        max_size: usize,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List the games and their parameters.
    Games,
}

/// A game and its parameters on the command line.
#[derive(Args)]
struct GameArgs {
    /// The game (see `solvedgym games`).
    game: String,
    /// Board rows (Hexapawn).
    #[arg(long)]
    rows: Option<i64>,
    /// Board columns (Hexapawn).
    #[arg(long)]
    cols: Option<i64>,
    /// Board side (Fox & Hounds: even, 2..16).
    #[arg(long)]
    size: Option<i64>,
    /// Escape rule (Fox & Hounds: area, square, none; Hasenspiel: rear-pawn, first-row, none).
    #[arg(long)]
    escape: Option<String>,
    /// Any other game parameter, as KEY=VALUE (repeatable).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
}

impl GameArgs {
    fn build(&self) -> Result<AnyGame> {
        let mut table = toml::Table::new();
        if let Some(r) = self.rows {
            table.insert("rows".into(), r.into());
        }
        if let Some(c) = self.cols {
            table.insert("cols".into(), c.into());
        }
        if let Some(n) = self.size {
            table.insert("size".into(), n.into());
        }
        if let Some(e) = &self.escape {
            table.insert("escape".into(), e.clone().into());
        }
        for kv in &self.params {
            let (k, v) = kv
                .split_once('=')
                .with_context(|| format!("--param {kv}: expected KEY=VALUE"))?;
            let value = v
                .parse::<toml::Value>()
                .or_else(|_| {
                    format!("v = {v}")
                        .parse::<toml::Table>()
                        .map(|t| t["v"].clone())
                })
                .unwrap_or_else(|_| toml::Value::String(v.to_string()));
            table.insert(k.trim().to_string(), value);
        }
        Ok(AnyGame::from_spec(&self.game, table)?)
    }
}

/// `println!` that ends the program quietly when the reader has gone (`solvedgym ... | head`).
macro_rules! outln {
    ($($arg:tt)*) => {{
        let mut out = std::io::stdout().lock();
        if let Err(e) = writeln!(out, $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            return Err(e.into());
        }
    }};
}

fn games_help() -> String {
    let mut s = String::from("Games:\n");
    for g in GAMES {
        s.push_str(&format!(
            "  {:<12} {} (parameters: {})\n",
            g.name, g.summary, g.params
        ));
    }
    s
}

fn main() {
    if let Err(e) = run() {
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
        } => {
            let game = game.build()?;
            match &game {
                AnyGame::Chase(chase) if !generic => {
                    let options = FastOptions {
                        foxbox: chase.has_foxbox() && !no_tables,
                        no_counts,
                        no_tables,
                    };
                    let report = solve_fast(chase, options, !quiet && !json)?.report();
                    print_report(&report, json)
                }
                _ => with_game!(&game, g => solve(g, json, max_states)),
            }
        }
        Command::Run {
            config,
            out,
            threads,
            quiet,
            json,
        } => {
            if let Some(t) = threads {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build_global()
                    .context("setting the number of threads")?;
            }
            let out = out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
            let summaries = solvedgym::experiment::run_file(&config, &out, !quiet && !json)?;
            if json {
                // One object for an experiment, an array for a study of several games.
                let text = match summaries.as_slice() {
                    [one] => serde_json::to_string_pretty(one)?,
                    many => serde_json::to_string_pretty(many)?,
                };
                outln!("{text}");
            } else {
                for summary in &summaries {
                    outln!("{summary}");
                }
            }
            Ok(())
        }
        Command::Play {
            game,
            seat,
            fuzz,
            seed,
        } => {
            if !(0.0..=1.0).contains(&fuzz) {
                bail!("--fuzz {fuzz}: a probability between 0 and 1");
            }
            let game = game.build()?;
            match &game {
                AnyGame::Chase(chase) => {
                    eprintln!("solving {} ...", chase.name());
                    let fast = solve_fast(
                        chase,
                        FastOptions {
                            foxbox: chase.has_foxbox(),
                            ..FastOptions::default()
                        },
                        true,
                    )?;
                    let ai = SeedAi {
                        solution: &fast,
                        fuzz,
                    };
                    play(chase, seat.as_deref(), &ai, &|s| fast.value(s), seed)
                }
                _ => with_game!(&game, g => {
                    eprintln!("solving {} ...", g.name());
                    let solution = Solution::solve(g, DEFAULT_STATE_LIMIT)?;
                    let ai = FuzzyPolicy {
                        base: OptimalPolicy::new(&solution),
                        p: fuzz,
                    };
                    play(g, seat.as_deref(), &ai, &|s| solution.value(s), seed)
                }),
            }
        }
        Command::Fuzz { game, json } => {
            let AnyGame::Chase(chase) = game.build()? else {
                bail!("fuzz: the fuzz table is defined for fox-hounds (the seed's FoxBox AI)");
            };
            if !chase.has_foxbox() {
                bail!("fuzz: the fuzz table is defined for fox-hounds (the seed's FoxBox AI)");
            }
            let fast = solve_fast(
                &chase,
                FastOptions {
                    foxbox: true,
                    ..FastOptions::default()
                },
                !json,
            )?;
            let generic = Solution::solve(&chase, DEFAULT_STATE_LIMIT).with_context(|| {
                "the fuzz table needs the full state graph (boards up to 8x8)".to_string()
            })?;
            let table = FuzzModel::new(&generic, &fast).table();
            if json {
                outln!("{}", serde_json::to_string_pretty(&table)?);
            } else {
                outln!("{table}");
            }
            Ok(())
        }
        Command::Bench {
            learn: true,
            episodes,
            repeat,
            json,
            only,
            ..
        } => learn_bench(repeat.max(1), episodes.max(1), only.as_deref(), json),
        Command::Bench {
            repeat,
            max_size,
            json,
            ..
        } => bench(repeat.max(1), max_size, json),
        Command::Games => {
            outln!("{}", games_help().trim_end());
            Ok(())
        }
    }
}

fn solve<G: Game>(game: &G, json: bool, max_states: usize) -> Result<()> {
    let solution = Solution::solve(game, max_states)?;
    print_report(&solution.report(), json)
}

/// The layered solver of the chase games, with a progress bar on request.
fn solve_fast(chase: &Chase, options: FastOptions, bar: bool) -> Result<FastSolution> {
    let progress = bar.then(|| {
        let pb = indicatif::ProgressBar::new(0);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:12} [{bar:40}] {pos}/{len} layers {elapsed}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        pb
    });
    let report = |phase: &str, done: usize, all: usize| {
        if let Some(pb) = &progress {
            pb.set_length(all as u64);
            pb.set_message(phase.to_string());
            pb.set_position(done as u64);
        }
    };
    let solution = FastSolution::solve(chase, options, Some(&report));
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    Ok(solution?)
}

fn print_report(report: &SolveReport, json: bool) -> Result<()> {
    let mut report = report.clone();
    if let Some(mb) = peak_memory_mb() {
        report
            .extra
            .insert("peak_memory_mb".to_string(), serde_json::json!(mb));
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        outln!("{report}");
    }
    Ok(())
}

/// A person plays `seat` against `ai`; `verdict` gives the solver's value of a position.
fn play<G: Game>(
    game: &G,
    seat: Option<&str>,
    ai: &dyn Policy<G>,
    verdict: &dyn Fn(&G::State) -> Option<Value>,
    seed: u64,
) -> Result<()> {
    let names: Vec<_> = (0..game.num_players())
        .map(|p| game.player_name(p))
        .collect();
    let human = match seat {
        None => 0,
        Some(name) => game.player_by_name(name).with_context(|| {
            format!(
                "--as {name}: the players of {} are {}",
                game.name(),
                names.join(", ")
            )
        })?,
    };
    let mut rng = solvedgym::rng(seed);
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    outln!(
        "You play {}. Type a move, `?` for the solver's verdict, `moves` for the legal moves, `quit` to stop.",
        game.player_name(human)
    );
    loop {
        outln!("\n{}", game.render(&state));
        match game.turn(&state) {
            Turn::Terminal => {
                let r = game.returns(&state);
                match r.winner() {
                    Some(w) if w == human => outln!("You win."),
                    Some(w) => outln!("{}.", game.player_wins(w)),
                    None => outln!("Draw."),
                }
                return Ok(());
            }
            Turn::Chance => bail!(
                "{} has chance events; play supports deterministic games",
                game.name()
            ),
            Turn::Player(p) if p == human => {
                game.legal_actions(&state, &mut legal);
                let shown: Vec<_> = legal
                    .iter()
                    .map(|&a| game.action_to_string(&state, a))
                    .collect();
                {
                    let mut out = std::io::stdout().lock();
                    if write!(out, "your move [{}]: ", shown.join(" "))
                        .and_then(|_| out.flush())
                        .is_err()
                    {
                        return Ok(());
                    }
                }
                buf.clear();
                if input.read_until(b'\n', &mut buf)? == 0 {
                    return Ok(());
                }
                // Whatever was typed, even bytes that are not UTF-8, is only a move to look up.
                let line = String::from_utf8_lossy(&buf);
                match line.trim() {
                    "quit" | "exit" => return Ok(()),
                    "?" => {
                        let describe = |v: Option<Value>| {
                            v.map_or("unknown".to_string(), |v| v.describe(game))
                        };
                        outln!("solver: {}", describe(verdict(&state)));
                        for &a in &legal {
                            let after = verdict(&game.apply(&state, a)).map(Value::one_ply_earlier);
                            outln!(
                                "  {:<8} -> {}",
                                game.action_to_string(&state, a),
                                describe(after)
                            );
                        }
                    }
                    "moves" | "" => outln!("legal moves: {}", shown.join(", ")),
                    text => match game.parse_action(&state, text) {
                        Ok(a) => state = game.apply(&state, a),
                        Err(e) => outln!("{e}"),
                    },
                }
            }
            Turn::Player(_) => {
                game.legal_actions(&state, &mut legal);
                let a = ai
                    .choose(game, &state, &legal, &mut rng)
                    .expect("the solver never resigns");
                outln!(
                    "{} plays {}",
                    game.player_name(game.turn(&state).player().unwrap_or(0)),
                    game.action_to_string(&state, a)
                );
                state = game.apply(&state, a);
            }
        }
    }
}

/// Peak resident memory of this process (Linux), in MiB.
fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// One benchmark result.
#[derive(serde::Serialize)]
struct BenchRow {
    case: String,
    solver: &'static str,
    states: u64,
    start: String,
    best_seconds: f64,
    peak_memory_mb: f64,
}

/// One learner's training speed.
#[derive(serde::Serialize)]
struct LearnBenchRow {
    learner: String,
    game: &'static str,
    episodes: u64,
    best_seconds: f64,
    episodes_per_second: f64,
}

fn learn_bench(repeat: usize, episodes: u64, only: Option<&str>, json: bool) -> Result<()> {
    use solvedgym::env::AecEnv;
    use solvedgym::games::TicTacToe;
    use solvedgym::learn::menace::{Matchbox, MatchboxConfig};
    use solvedgym::learn::monte_carlo::{McConfig, MonteCarlo};
    use solvedgym::learn::q_learning::{Algorithm, QConfig, QLearner};
    use solvedgym::learn::td::{Td, TdConfig};
    use solvedgym::learn::{Learner, play_self};
    type Make = fn(&TicTacToe) -> Box<dyn Learner<TicTacToe>>;
    let game = TicTacToe;
    let makers: Vec<(&str, Make)> = vec![
        ("Q-learning", |g| {
            Box::new(QLearner::new(g, "q", QConfig::new(Algorithm::QLearning)))
        }),
        ("SARSA", |g| {
            Box::new(QLearner::new(g, "sarsa", QConfig::new(Algorithm::Sarsa)))
        }),
        ("MC", |g| {
            Box::new(MonteCarlo::new(g, "mc", McConfig::default()))
        }),
        ("TD(0)", |g| Box::new(Td::new(g, "td", TdConfig::new(0.0)))),
        ("TD(0.8)", |g| {
            Box::new(Td::new(g, "td", TdConfig::new(0.8)))
        }),
        ("MENACE", |_| {
            Box::new(Matchbox::<TicTacToe>::new(
                "menace",
                MatchboxConfig::menace(),
            ))
        }),
    ];
    // "TD(0.8)" is asked for as td0.8, "Q-learning" as q-learning.
    let key = |name: &str| {
        name.to_lowercase()
            .chars()
            .filter(|c| !"()".contains(*c))
            .collect::<String>()
    };
    let makers: Vec<(&str, Make)> = match only {
        None => makers,
        Some(only) => {
            let chosen: Vec<_> = makers
                .iter()
                .copied()
                .filter(|(name, _)| key(name) == key(only))
                .collect();
            if chosen.is_empty() {
                let names: Vec<String> = makers.iter().map(|(n, _)| key(n)).collect();
                anyhow::bail!(
                    "--only {only}: no such learner; use one of {}",
                    names.join(", ")
                );
            }
            chosen
        }
    };
    let mut rows = Vec::new();
    for (name, make) in makers {
        let mut best = f64::INFINITY;
        for run in 0..repeat {
            let mut learner = make(&game);
            let mut env = AecEnv::new(game.clone(), run as u64);
            let mut rng = solvedgym::rng(run as u64);
            let started = std::time::Instant::now();
            for _ in 0..episodes {
                play_self(&mut env, learner.as_mut(), &mut rng);
            }
            best = best.min(started.elapsed().as_secs_f64());
        }
        let row = LearnBenchRow {
            learner: name.to_string(),
            game: "tictactoe",
            episodes,
            best_seconds: best,
            episodes_per_second: episodes as f64 / best,
        };
        if !json {
            outln!(
                "{:<12} tic-tac-toe self-play  {:>10} episodes  {:>8.3} s  {:>12} episodes/s",
                row.learner,
                row.episodes,
                row.best_seconds,
                solvedgym::solve::group(&format!("{:.0}", row.episodes_per_second))
            );
        }
        rows.push(row);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}

fn bench(repeat: usize, max_size: usize, json: bool) -> Result<()> {
    let exe = std::env::current_exe().context("locating the solvedgym executable")?;
    let mut cases: Vec<(String, Vec<String>, &'static str)> =
        vec![("hasenspiel".into(), vec!["hasenspiel".into()], "layered")];
    for size in (4..=max_size).step_by(2) {
        cases.push((
            format!("fox-hounds {size}x{size}"),
            vec!["fox-hounds".into(), "--size".into(), size.to_string()],
            "layered",
        ));
    }
    cases.push((
        "hasenspiel".into(),
        vec!["hasenspiel".into(), "--generic".into()],
        "generic",
    ));
    cases.push((
        "fox-hounds 8x8".into(),
        vec![
            "fox-hounds".into(),
            "--size".into(),
            "8".into(),
            "--generic".into(),
        ],
        "generic",
    ));
    let mut rows = Vec::new();
    for (case, args, solver) in cases {
        let mut best = f64::INFINITY;
        let mut peak: f64 = 0.0;
        let mut last = serde_json::Value::Null;
        for _ in 0..repeat {
            let out = std::process::Command::new(&exe)
                .arg("solve")
                .args(&args)
                .args(["--json", "--quiet"])
                .output()
                .with_context(|| format!("running solve {}", args.join(" ")))?;
            if !out.status.success() {
                bail!(
                    "solve {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            let v: serde_json::Value = serde_json::from_slice(&out.stdout)?;
            best = best.min(v["seconds"].as_f64().unwrap_or(f64::NAN));
            peak = peak.max(v["peak_memory_mb"].as_f64().unwrap_or(0.0));
            last = v;
        }
        let row = BenchRow {
            case,
            solver,
            states: last["states"].as_u64().unwrap_or(0),
            start: last["start"].as_str().unwrap_or("").to_string(),
            best_seconds: best,
            peak_memory_mb: peak,
        };
        if !json {
            outln!(
                "{:<20} {:<8} {:>12} states  {:>9.3} s  {:>8.1} MiB  {}",
                row.case,
                row.solver,
                solvedgym::solve::group(&row.states.to_string()),
                row.best_seconds,
                row.peak_memory_mb,
                row.start
            );
        }
        rows.push(row);
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(())
}
