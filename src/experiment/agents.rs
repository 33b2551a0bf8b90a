//! The saved agents a game's runs play (`policy = "agent"` opponents, `[evaluation] agent`):
//! each file read once for the game's runs and shared ([`Arc`]) by every run, seat and
//! evaluator that plays it, however many seeds and conditions there are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use super::config::ExperimentConfig;
use super::opponents::OpponentPolicy;
use crate::core::game::{Action, Game};
use crate::core::policy::Policy;
use crate::core::random::SgRng;
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
            OpponentPolicy::Agent(file) => Some(file.as_path()),
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
    pub(super) fn get(&self, file: &Path) -> SharedAgent<G> {
        let agent = self
            .loaded
            .get(file)
            .expect("every agent file the config names is read first");
        SharedAgent(Arc::clone(agent))
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
            OpponentPolicy::Agent(file) => Ok(Box::new(self.get(file))),
            other => other.build(game, oracle),
        }
    }
}

/// A saved agent read once and played by many: its greedy policy, as [`Agent`] plays it.
pub(super) struct SharedAgent<G: Game>(Arc<Agent<G>>);

impl<G: Game> Policy<G> for SharedAgent<G> {
    fn name(&self) -> String {
        Policy::name(&*self.0)
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        self.0.probabilities(game, state, legal, probs)
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut SgRng,
    ) -> Option<Action> {
        self.0.choose(game, state, legal, rng)
    }
}
