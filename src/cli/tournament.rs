//! `solvedgym tournament`: AI entrants on seeded deals with the seats rotated.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use solvedgym::ai::players::PlayerSpec;
use solvedgym::core::game::{Game, Solver};
use solvedgym::tools::tournament;
use solvedgym::truth::{DEFAULT_STATE_LIMIT, Solve, SolveOptions};
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::games;
use super::output::{Output, Threads};

/// A tournament between AI entrants (perfect play, greedy, random, searches with their settings):
/// seeded deals with the seats rotated; win rate and mean rank with 95% intervals, game
/// length, and each search's positions and milliseconds per move.
#[derive(clap::Args)]
#[command(
    after_help = help(),
    mut_arg("threads", |a| a.help(
        "Worker threads (default: all cores). Results do not depend on it (but ms/move does)"
    )),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// An entrant (at least two, each once): optimal (the exact solver's perfect play, for
    /// games small enough to solve), greedy (one ply on the game's heuristic), random, MCTS
    /// ("mcts" or "mcts,sims=2000,c=1.4"), a saved agent ("agent=PATH"), or search settings,
    /// e.g. "depth=4", "depth=8,order,cutoffs=0-0-8-8-4" or "depth=3,eval=agent:PATH" (a saved
    /// agent's values at the leaves; see below).
    #[arg(long = "ai", value_name = "AI", required = true)]
    ai: Vec<String>,
    /// Deals to play; each deal is played once per seating (see below).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// The seed of the deals (the cards and dice, and random players' choices).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    output: Output,
    /// Draw the win rates with their intervals as a bar chart to this file (.svg or .png).
    #[arg(long, value_name = "FILE", value_parser = super::parse::image)]
    plot: Option<PathBuf>,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        mut game,
        ai,
        games,
        seed,
        threads,
        output,
        plot,
    } = args;
    // The picture's folder before the games: a folder that cannot be made loses no work.
    if let Some(path) = &plot {
        super::parse::folder_for(path)?;
    }
    threads.set()?;
    let entrants = ai
        .iter()
        .map(|spec| PlayerSpec::parse(spec).map_err(|e| anyhow::anyhow!("--ai {spec}: {e}")))
        .collect::<Result<Vec<_>>>()?;
    game.pass("seed", Some(seed.to_string()), false)?;
    let game = game.build()?;
    let report = with_game!(&game, g => {
        tournament::check(g, &entrants, games).context("--ai / --games")?;
        if tournament::blind_search(g, &entrants) {
            eprintln!(
                "note: {} has no heuristic: a search values the positions at its depth \
    limit as 0, so only a search to the end of the game plays well",
                g.name()
            );
        }
        // Perfect play needs the game solved first; a game too large to solve is refused with
        // its size.
        let oracle = if tournament::needs_solution(&entrants) {
            if let Solver::None = g.capabilities().solver {
                bail!(
                    "--ai optimal: {} has no exact solver ({}); use greedy, random or search \
                     settings",
                    g.name(),
                    g.capabilities()
                        .enumeration_refusal(DEFAULT_STATE_LIMIT)
                        .unwrap_or_else(|| "no solver".into())
                );
            }
            if output.progress() {
                eprintln!("solving {} for the optimal entrant ...", g.name());
            }
            let options = SolveOptions {
                progress: output.progress(),
                ..SolveOptions::default()
            };
            Some(g.solve(&options).map_err(|e| {
                anyhow::anyhow!("--ai optimal: {e}")
            })?)
        } else {
            None
        };
        let per_deal = tournament::games_per_deal(entrants.len(), g.num_players());
        let bar = if output.progress() {
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
        } else {
            indicatif::ProgressBar::hidden()
        };
        let report = tournament::run_solved(
            g,
            &entrants,
            games,
            seed,
            oracle.as_deref(),
            &|n| bar.inc(n),
        )?;
        bar.finish_and_clear();
        report
    });
    if let Some(path) = &plot {
        tournament::plot(&report, path)?;
    }
    let mut stdout = std::io::stdout().lock();
    if output.json() {
        writeln!(stdout, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        writeln!(stdout, "{report}")?;
        if let Some(path) = &plot {
            writeln!(stdout, "plot: {}", path.display())?;
        }
    }
    Ok(())
}

fn help() -> String {
    format!(
        "A deal is one seed: every game of a deal draws from it, so where play coincides the \
cards and dice coincide and luck is paired across seats. With E entrants and P seats, E <= P seats \
the entrants repeated in turn to P seats (A B A for 2 entrants and 3 seats) and plays the deal P \
times, once per rotation of that list; E > P plays the deal once for every ordered choice of P \
distinct entrants. Every entrant thus holds every seat equally often; --games counts deals.\n\n\
Per entrant: games (seats held), win rate (a win shared by k tied players counts 1/k; equal play \
wins 1/P) with its Wilson 95% interval over the games, and mean rank (1 = first) with its 95% \
interval over deals (the entrant's mean per deal; mean ± 1.96·s/√n, clipped), player moves per \
game, and for searches positions (MCTS: simulations) and milliseconds per move. Everything but the milliseconds and seconds is the same for a seed on any \
machine and thread count; the milliseconds depend on the machine and on what else runs on it.\n\n\
Head to head (the table under it; `head_to_head` in --json): for every pair of entrants, the row \
entrant's wins-draws-losses against the column's, the games both played in, and its score (wins \
and half the draws per meeting). Each pair of seats the two held in a game is one meeting, won by \
the larger return; with one seat each per game the meetings are the games.\n\n\
Search settings (comma-separated; games with a heuristic, or any game searched to its end):\n{}\n\
Any other KEY=VALUE sets the game's evaluation for that entrant alone (Hase und Igel: eval=FILE, \
ks=W, kc=W, kp=W), so entrants may differ only in their heuristic. An entrant is named by its \
settings in full.\n\n\
MCTS settings (after `mcts,`, comma-separated; any game):\n{}\n\n\
Examples:\n  solvedgym tournament hase-und-igel --players 3 --ai depth=1 --ai depth=2 --ai random --games 100\n  \
solvedgym tournament hase-und-igel --players 2 --ai depth=2 --ai depth=2,kc=0 --games 50\n  \
solvedgym tournament hase-und-igel --players 3 --ai \"depth=4\" --ai \"depth=8,order,cutoffs=0-0-8-8-4\" \
--ai random --games 200 --seed 1 --json --plot notebooks-data/tournament.svg   # long: depth 8\n  \
solvedgym tournament tictactoe --ai depth=9 --ai random --games 50\n  \
solvedgym tournament hexapawn --ai optimal --ai depth=2 --games 20\n  \
solvedgym tournament tictactoe --ai mcts,sims=1000 --ai depth=9 --games 50\n\n{}",
        solvedgym::ai::search::settings_help(),
        solvedgym::ai::mcts::settings_help(),
        games::help()
    )
}
