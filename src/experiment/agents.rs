//! The saved agents a game's runs play (`policy = "agent"` opponents, `[evaluation] agent`):
//! each file read once for the game's runs and shared ([`Arc`]) by every run, seat and
//! evaluator that plays it, however many seeds and conditions there are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use super::config::ExperimentConfig;
use super::opponents::OpponentPolicy;
use crate::ai::players::PlayerSpec;
use crate::core::game::Game;
use crate::core::policy::Policy;
use crate::learn::saved::{Agent, load_agent};
use crate::truth::oracle::Oracle;

/// The agents a config names, each read from its file once.
pub(super) struct Agents<G: Game> {
    loaded: BTreeMap<PathBuf, Arc<Agent<G>>>,
}

impl<G: Game> Agents<G> {
    /// Reads every agent file `config` names for `game` (its agent opponents and its reference
    /// agent), each once however often it is named.
    pub(super) fn load(game: &G, config: &ExperimentConfig) -> Result<Agents<G>> {
        let opponents = config.opponents().iter().filter_map(|o| match &o.policy {
            OpponentPolicy::Player(PlayerSpec::Agent(file)) => Some(file.as_path()),
            _ => None,
        });
        let mut loaded = BTreeMap::new();
        for file in opponents.chain(config.reference_agent()) {
            if !loaded.contains_key(file) {
                loaded.insert(file.to_path_buf(), Arc::new(load_agent(game, file)?));
            }
        }
        Ok(Agents { loaded })
    }

    /// The agent read from `file`, which the config names.
    pub(super) fn get(&self, file: &Path) -> Arc<Agent<G>> {
        let agent = self
            .loaded
            .get(file)
            .expect("every agent file the config names is read first");
        Arc::clone(agent)
    }

    /// The policy an opponent plays: a saved agent shared, any other built for `game`, with
    /// perfect play read from `oracle` ([`OpponentPolicy::build`]).
    pub(super) fn opponent<'o>(
        &self,
        policy: &OpponentPolicy,
        game: &G,
        oracle: Option<&'o dyn Oracle<G>>,
    ) -> Result<Box<dyn Policy<G> + 'o>> {
        match policy {
            OpponentPolicy::Player(PlayerSpec::Agent(file)) => Ok(Box::new(self.get(file))),
            other => other.build(game, oracle),
        }
    }
}
