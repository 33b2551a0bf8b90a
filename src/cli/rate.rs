//! `solvedgym rate`: search settings rated against exact truth.

use std::io::Write;
use std::ops::RangeInclusive;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use solvedgym::ai::players::PlayerSpec;
use solvedgym::ai::search::SearchOptions;
use solvedgym::core::game::Game;
use solvedgym::tools::rate;
use solvedgym::with_game;

use super::game_args::GameArgs;
use super::output::{LATE, Output, Threads};

/// Rate search AIs against exact truth: solve the game, let each search setting choose a
/// move at every position, and measure its moves and its results against perfect play.
#[derive(clap::Args)]
#[command(
    after_help = help(),
    mut_arg("json", |a| a.help("Print the ratings as one JSON object")),
    mut_arg("threads", |a| a.help(
        "Worker threads (default: all cores). Results do not depend on it (seconds do)"
    )),
    // --quiet closes the list, --json leads the output flags.
    mut_arg("quiet", |a| a.display_order(LATE)),
)]
pub struct Args {
    #[command(flatten)]
    game: GameArgs,
    /// Search settings to rate (repeatable), e.g. "depth=4" or "order,cutoffs=0-0-8-8-4"
    /// with --depths (the settings are listed below).
    #[arg(long = "ai", value_name = "SETTINGS", required = true)]
    ai: Vec<String>,
    /// Rate every --ai setting at each of these depths (A-B, e.g. 1-8).
    #[arg(long, value_name = "A-B", value_parser = super::parse::depths)]
    depths: Option<RangeInclusive<u32>>,
    #[command(flatten)]
    output: Output,
    /// Draw the depth figure to this file (.svg or .png).
    #[arg(long, value_name = "FILE", value_parser = super::parse::rate_image)]
    plot: Option<PathBuf>,
    #[command(flatten)]
    threads: Threads,
}

pub fn exec(args: Args) -> Result<()> {
    let Args {
        game,
        ai,
        depths,
        output,
        plot,
        threads,
    } = args;
    // The picture's folder before the work: a folder that cannot be made loses none.
    if let Some(path) = &plot {
        super::parse::folder_for(path)?;
    }
    threads.set()?;
    let entrants = entrants(&ai, depths)?;
    let game = game.build()?;
    let (rows, name, params) = with_game!(&game, g => {
        if g.heuristic(&g.initial_state(), 0).is_none() {
            eprintln!(
                "note: {} has no heuristic; the search scores unfinished positions 0 and sees only the ends within its depth",
                g.name()
            );
        }
        let rows = rate::rate(g, &entrants, output.progress())
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
        rate::plot(&rows, &title, path)?;
        if !output.json() {
            eprintln!("wrote {}", path.display());
        }
    }
    let mut stdout = std::io::stdout().lock();
    if output.json() {
        let object = serde_json::json!({ "game": name, "params": params, "rows": rows });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&object)?)?;
    } else {
        if let Some(r) = rows.first() {
            writeln!(
                stdout,
                "{name}: {} positions, {} with a move; means over the seats, the AI at one seat against perfect play",
                solvedgym::io::text::group(&r.states.to_string()),
                solvedgym::io::text::group(&r.decisions.to_string()),
            )?;
        }
        write!(stdout, "{}", rate::table(&rows))?;
    }
    Ok(())
}

/// The search settings to rate: each `--ai` as written, or with `--depths` at each depth.
fn entrants(ai: &[String], depths: Option<RangeInclusive<u32>>) -> Result<Vec<SearchOptions>> {
    let mut entrants = Vec::new();
    for spec in ai {
        // The players `--ai` names elsewhere but a search are measured by their own commands.
        let parse = |text: &str| match PlayerSpec::parse(text) {
            Ok(PlayerSpec::Search(options)) => Ok(options),
            Ok(PlayerSpec::Agent(path)) => {
                let path = path.display();
                bail!(
                    "--ai {spec}: `rate` rates search settings; a saved agent is measured against the exact solution by `solvedgym evaluate {path}`, and its values guide a search here with --ai depth=N,eval=agent:{path}"
                )
            }
            Ok(PlayerSpec::Mcts(_)) => bail!(
                "--ai {spec}: `rate` rates search settings; MCTS is rated against the exact solution by `solvedgym bench mcts` (docs/mcts.md)"
            ),
            Ok(other) => bail!(
                "--ai {spec}: `rate` rates search settings; {} play is measured by `solvedgym tournament`",
                other.name()
            ),
            Err(e) => Err(anyhow::anyhow!("--ai {spec}: {e}")),
        };
        match &depths {
            None => entrants.push(parse(spec)?),
            Some(_) if spec.split(',').any(|p| p.trim().starts_with("depth=")) => {
                bail!("--ai {spec}: --depths gives the depths; write the settings without depth=")
            }
            Some(range) => {
                parse(spec)?;
                for d in range.clone() {
                    entrants.push(parse(&format!("{spec},depth={d}"))?);
                }
            }
        }
    }
    Ok(entrants)
}

/// The figures explained, and the depth figure.
/// The help's end: the metrics, then the search settings from the search's own table.
fn help() -> String {
    format!(
        "{HELP}\n\nSearch settings (comma-separated):\n{}",
        solvedgym::ai::search::settings_help()
    )
}

const HELP: &str = "\
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
--plot search-quality.svg   # long: 2,122,427 positions, depths 1 to 8";
