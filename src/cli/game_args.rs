//! The game a command takes and its parameters: the game's name, then a flag for every
//! parameter any registered game takes, generated from the registry (so clap's derive cannot
//! declare them, and `GameArgs` implements clap's traits by hand).

use anyhow::{Result, bail};
use solvedgym::games::{AnyGame, GAMES, GameInfo};

/// A game and its parameters on the command line: the game's name, then a flag for every
/// parameter any registered game takes (`--rows 4`, `--escape square`), or `--param KEY=VALUE`.
pub struct GameArgs {
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
            params.push((k.trim().replace('-', "_"), v.to_string()));
        }
        let args = GameArgs {
            game: m.get_one::<String>("game").cloned().unwrap_or_default(),
            params,
        };
        args.refuse_twice().map_err(|e| {
            clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, format!("{e}\n"))
        })?;
        Ok(args)
    }
    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for GameArgs {
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
                .help("Any game parameter, as KEY=VALUE (repeatable; each parameter given once, by its flag or here)"),
        )
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl GameArgs {
    /// Passes a command's own flag (`--seed`) to the game when the game takes it; `required`
    /// makes it an error when it does not.
    pub fn pass(&mut self, key: &str, value: Option<String>, required: bool) -> Result<()> {
        let Some(value) = value else {
            return Ok(());
        };
        match GameInfo::find(&self.game) {
            Some(info) if info.takes(key) => {
                self.params.push((key.to_string(), value));
                self.refuse_twice()
            }
            Some(info) if required => bail!(
                "--{key}: {} has no random positions to seed (its parameters: {})",
                info.name,
                info.params_help()
            ),
            _ => Ok(()),
        }
    }

    /// Takes the game's parameters that a position written in its notation carries (`--state`:
    /// a board's size, the runners, Hackenbush's graph, Hase und Igel's JSON), unless a flag
    /// gives them; a flag that says otherwise is refused.
    pub fn take_from_position(&mut self, text: &str) -> Result<()> {
        let Some(info) = GameInfo::find(&self.game) else {
            return Ok(());
        };
        let object = info.position_params(text);
        for (key, value) in &object {
            if !info.takes(key) || value.is_null() {
                continue;
            }
            let value = match value {
                serde_json::Value::String(s) => format!("{s:?}"),
                other => toml::Value::try_from(other)
                    .map(|v| v.to_string())
                    .unwrap_or_else(|_| other.to_string()),
            };
            match self.params.iter().find(|(k, _)| k == key) {
                None => self.params.push((key.clone(), value)),
                Some((_, given)) if given.trim_matches('"') != value.trim_matches('"') => {
                    bail!(
                        "--{} {given}: the position says {key} = {value}",
                        key.replace('_', "-")
                    )
                }
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// The game and the position `--state` gives (`None`: the start): the parameters the
    /// position carries are taken first ([`GameArgs::take_from_position`]).
    pub fn build_at(&mut self, state: Option<&str>) -> Result<(AnyGame, Option<String>)> {
        let text = state.map(state_text).transpose()?.flatten();
        if let Some(text) = &text {
            self.take_from_position(text)?;
        }
        let game = self.build().map_err(|e| match &text {
            Some(t) => e.context(format!(
                "--state {}: the game it is a position of",
                solvedgym::io::text::abbreviated(t, 60)
            )),
            None => e,
        })?;
        Ok((game, text))
    }

    /// A parameter given two ways (`--rows 4 --param rows=3`, or `--param` twice) is refused:
    /// which one wins would be a guess.
    fn refuse_twice(&self) -> Result<()> {
        for (i, (key, value)) in self.params.iter().enumerate() {
            if let Some((_, other)) = self.params[..i].iter().find(|(k, _)| k == key) {
                bail!(
                    "the game parameter {key} is given twice ({other} and {value}): give it once, \
                     as --{} or as --param {key}=VALUE",
                    key.replace('_', "-")
                );
            }
        }
        Ok(())
    }

    pub fn build(&self) -> Result<AnyGame> {
        let text_params = GameInfo::find(&self.game)
            .map(|info| info.text_params())
            .unwrap_or_default();
        let mut table = toml::Table::new();
        for (k, v) in &self.params {
            // A whole number no parameter could hold is named as such, not as text.
            let digits = v.trim().trim_start_matches(['-', '+']);
            if !text_params.contains(&k.as_str())
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && v.trim().parse::<i64>().is_err()
            {
                bail!(
                    "{k} = {}: too large a number for any game parameter",
                    solvedgym::io::text::abbreviated(v, 40)
                );
            }
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

/// The text of `--state`: `None` for `start` (the game's start), the contents of a file by
/// that name where one can be read, else the text itself (a JSON string, as `moves --json`
/// writes a board, is unquoted).
pub fn state_text(arg: &str) -> Result<Option<String>> {
    if arg.trim().eq_ignore_ascii_case("start") {
        return Ok(None);
    }
    let text = match std::fs::metadata(arg) {
        Ok(m) if m.is_file() => std::fs::read_to_string(arg)
            .map_err(|e| anyhow::anyhow!("--state {arg}: the file cannot be read: {e}"))?,
        _ => arg.to_string(),
    };
    let text = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::String(inner)) => inner,
        _ => text.trim().to_string(),
    };
    if text.is_empty() {
        bail!("--state: an empty position (give the position in the game's notation, or start)");
    }
    Ok(Some(text))
}

/// The position of `text` in `game` (`None`: its start); the error names `--state`.
pub fn read_state<G: solvedgym::core::game::Game>(
    game: &G,
    text: Option<&str>,
) -> Result<G::State> {
    match text {
        None => Ok(game.initial_state()),
        Some(t) => game.read_position(t).map_err(|e| {
            anyhow::anyhow!("--state {}: {e}", solvedgym::io::text::abbreviated(t, 60))
        }),
    }
}
