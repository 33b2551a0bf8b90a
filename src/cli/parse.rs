//! Value parsers of the flags that need no game to check: a bad value is refused while the
//! command line is read, before any work.

use std::error::Error;
use std::fmt;
use std::ops::RangeInclusive;
use std::path::PathBuf;

/// A value one of these parsers refuses for its meaning (not its spelling). `main` prints it as
/// the commands print the refusals they make once they run (`error: MESSAGE`, exit code 1)
/// rather than as clap's usage error, so a refusal reads the same wherever it is made; the
/// message names the flag.
#[derive(Debug)]
pub struct Refused(pub String);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for Refused {}

/// The refusal behind a command-line error, where one of these parsers made it.
pub fn refusal(error: &clap::Error) -> Option<&Refused> {
    error.source()?.downcast_ref()
}

/// `--depths A-B` (or one depth `A`): depths from 1 to 64.
pub fn depths(text: &str) -> Result<RangeInclusive<u32>, Refused> {
    let (a, b) = text.split_once('-').unwrap_or((text, text));
    let bad = || {
        Refused(format!(
            "--depths {text}: write A-B with 1 <= A <= B <= 64, e.g. 4-10"
        ))
    };
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || a > b || b > 64 {
        return Err(bad());
    }
    Ok(a..=b)
}

/// `--plot FILE`: an image to write, SVG or PNG by its ending
/// ([`solvedgym::io::plot::is_svg`]).
pub fn image(text: &str) -> Result<PathBuf, Refused> {
    let path = PathBuf::from(text);
    solvedgym::io::plot::is_svg(&path).map_err(|e| Refused(format!("--plot: {e:#}")))?;
    Ok(path)
}

/// `rate --plot FILE`: [`image`], refused in `rate`'s words.
pub fn rate_image(text: &str) -> Result<PathBuf, Refused> {
    let path = PathBuf::from(text);
    if solvedgym::io::plot::is_svg(&path).is_err() {
        return Err(Refused(format!(
            "--plot {text}: the file name ends in .svg or .png"
        )));
    }
    image(text)
}

/// Makes an output file's missing folder, and says so on stderr (a typo in a folder name is
/// seen, not made silently into new folders); a folder that cannot be made is an error.
pub fn folder_for(path: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
        && !dir.is_dir()
    {
        std::fs::create_dir_all(dir).with_context(|| {
            format!(
                "{}: its folder {} does not exist and cannot be made",
                path.display(),
                dir.display()
            )
        })?;
        eprintln!(
            "created the folder {} for {}",
            dir.display(),
            path.display()
        );
    }
    Ok(())
}
/// `play --fuzz P`: a probability ([`solvedgym::tools::play::check_fuzz`]). A value that is not
/// a number at all is clap's error, as for any number.
pub fn fuzz(text: &str) -> Result<f64, Box<dyn Error + Send + Sync>> {
    let p: f64 = text.parse()?;
    solvedgym::tools::play::check_fuzz(p).map_err(|e| Refused(format!("{e:#}")))?;
    Ok(p)
}

/// More games than this is a typo, not a measurement (a billion tic-tac-toe games take
/// minutes; a billion searched ones, years).
const MAX_GAMES: u64 = 1_000_000_000;

/// `stats --games N`: at least one game, at most [`MAX_GAMES`].
pub fn games(text: &str) -> Result<u64, Box<dyn Error + Send + Sync>> {
    let n: u64 = text.parse()?;
    if n == 0 {
        return Err(Refused(format!("--games {n}: play at least one game")).into());
    }
    if n > MAX_GAMES {
        return Err(Refused(format!(
            "--games {n}: at most {} games a command (split larger studies into runs)",
            solvedgym::io::text::group(&MAX_GAMES.to_string())
        ))
        .into());
    }
    Ok(n)
}
