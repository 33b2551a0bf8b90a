//! Policies as the dynamic programs read them: a [`Profile`] (every edge of the state graph
//! with its probability under one policy per seat) and a [`FrozenPolicy`] (a policy tabulated
//! over the graph's positions, which plays its table, or a learner's own copy of itself).

use std::sync::OnceLock;

use super::dp::EvalError;
use crate::core::env::Env;
use crate::core::game::{Action, Game, Player, Turn};
use crate::core::graph::{StateGraph, StateId};
use crate::core::policy::{Policy, SharedPolicy, resign_probability};
use crate::core::random::SgRng;
use crate::learn::frozen::FrozenCopy;
use crate::learn::{EpisodeOutcome, Learner, play_vs_opponent};

/// Probabilities of every edge of the graph under one policy per seat (seats without a policy
/// get none), chance edges at their chance probabilities.
pub struct Profile {
    /// Aligned with the graph's edges; meaningless at seats without a policy.
    pub(super) edge: Vec<f64>,
    /// Probability of resigning at each state.
    pub(super) resign: Vec<f64>,
    /// Whether a policy was given for each state's mover (always true at chance states).
    pub(super) known: Vec<bool>,
}

impl Profile {
    pub fn new<G: Game>(
        graph: &StateGraph<G>,
        policies: &[Option<&dyn Policy<G>>],
    ) -> Result<Self, EvalError> {
        Profile::of_states(graph, policies, 0..graph.len() as StateId)
    }

    /// [`Profile::new`] with the positions shared out among the cores in blocks (the same
    /// profile: each position's probabilities are its policy's, whichever core asks).
    pub fn new_parallel<G: Game>(
        graph: &StateGraph<G>,
        policies: &[Option<&dyn Policy<G>>],
    ) -> Result<Self, EvalError> {
        use rayon::prelude::*;
        const BLOCK: usize = 1 << 14;
        let n = graph.len();
        let blocks: Vec<Profile> = (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let ids = (b * BLOCK) as StateId..n.min((b + 1) * BLOCK) as StateId;
                Profile::of_states(graph, policies, ids)
            })
            .collect::<Result<_, _>>()?;
        let mut out = Profile {
            edge: Vec::with_capacity(graph.num_edges()),
            resign: Vec::with_capacity(n),
            known: Vec::with_capacity(n),
        };
        for block in blocks {
            out.edge.extend_from_slice(&block.edge);
            out.resign.extend_from_slice(&block.resign);
            out.known.extend_from_slice(&block.known);
        }
        Ok(out)
    }

    /// The part of [`Profile::new`] of the states `ids` (their edges, resignations and
    /// whether they are known, in order).
    fn of_states<G: Game>(
        graph: &StateGraph<G>,
        policies: &[Option<&dyn Policy<G>>],
        ids: std::ops::Range<StateId>,
    ) -> Result<Self, EvalError> {
        let game = graph.game();
        // Where the states' edges start (the end of the edges past the last state).
        let edge_at = |id: StateId| {
            if id as usize == graph.len() {
                graph.num_edges()
            } else {
                graph.edge_range(id).start
            }
        };
        let mut edge = Vec::with_capacity(edge_at(ids.end) - edge_at(ids.start));
        let mut resign = vec![0.0; ids.len()];
        let mut known = vec![false; ids.len()];
        let mut probs = Vec::new();
        for (k, id) in ids.enumerate() {
            match graph.turn(id) {
                Turn::Player(p) => match policies.get(p).copied().flatten() {
                    Some(policy) => {
                        if !policy.probabilities(
                            game,
                            graph.state(id),
                            graph.actions(id),
                            &mut probs,
                        ) {
                            return Err(EvalError::NoDistribution {
                                policy: policy.name(),
                            });
                        }
                        debug_assert_eq!(
                            probs.len(),
                            graph.actions(id).len(),
                            "one probability per action"
                        );
                        edge.extend_from_slice(&probs);
                        resign[k] = resign_probability(&probs);
                        known[k] = true;
                    }
                    None => edge.extend(std::iter::repeat_n(f64::NAN, graph.actions(id).len())),
                },
                Turn::Chance => {
                    edge.extend_from_slice(graph.probabilities(id));
                    known[k] = true;
                }
                Turn::Terminal => known[k] = true,
            }
        }
        Ok(Profile {
            edge,
            resign,
            known,
        })
    }

    pub(crate) fn probs<'a, G: Game>(&'a self, graph: &StateGraph<G>, id: StateId) -> &'a [f64] {
        &self.edge[graph.edge_range(id)]
    }

    /// A profile in which the states of seat `p` come from `parts[owner(p)]` (chance and
    /// terminal states from the first part): pairs a learner's profile with opponents' profiles
    /// computed once, without asking any policy again.
    pub fn mix<G: Game>(
        graph: &StateGraph<G>,
        parts: &[&Profile],
        owner: impl Fn(Player) -> usize,
    ) -> Profile {
        let mut out = Profile {
            edge: parts[0].edge.clone(),
            resign: parts[0].resign.clone(),
            known: parts[0].known.clone(),
        };
        for id in 0..graph.len() as StateId {
            if let Turn::Player(p) = graph.turn(id) {
                let part = parts[owner(p)];
                let range = graph.edge_range(id);
                out.edge[range.clone()].copy_from_slice(&part.edge[range]);
                out.resign[id as usize] = part.resign[id as usize];
                out.known[id as usize] = part.known[id as usize];
            }
        }
        out
    }
}

/// A policy frozen at one moment, read back by state however the original changes later. A
/// learner's frozen copy, its opponent in training, is one: a copy of the learner of its own
/// kind ([`FrozenCopy`]), brought up to date by copying what the learner changed
/// ([`FrozenPolicy::refresh`]); another policy (or a learner that makes no copy of itself) is
/// tabulated at every reachable state (a [`Profile`]). The exact evaluator reads the profile,
/// tabulated from the copy when it first asks after a refresh.
pub struct FrozenPolicy<'g, G: Game> {
    graph: &'g StateGraph<G>,
    /// The learner's copy; `None`: the policy is tabulated in `profile`.
    copy: Option<FrozenCopy<G>>,
    /// The tabulated probabilities.
    profile: OnceLock<Profile>,
    /// The name of a tabulated policy.
    name: String,
    /// Whether it is a learner's greedy policy.
    greedy: bool,
}

impl<'g, G: Game> FrozenPolicy<'g, G> {
    /// Tabulates `policy` at every seat.
    pub fn new(graph: &'g StateGraph<G>, policy: &dyn Policy<G>) -> Result<Self, EvalError> {
        let everywhere = vec![Some(policy); graph.game().num_players()];
        Ok(FrozenPolicy {
            graph,
            copy: None,
            profile: OnceLock::from(Profile::new(graph, &everywhere)?),
            name: format!("frozen {}", policy.name()),
            greedy: false,
        })
    }

    /// How `learner` plays now (greedily if `greedy`, else with its exploration): a copy of
    /// the learner where it makes one ([`crate::learn::Learner::frozen_copy`]), else its
    /// policy tabulated.
    pub fn of_learner(
        graph: &'g StateGraph<G>,
        learner: &dyn Learner<G>,
        greedy: bool,
    ) -> Result<Self, EvalError> {
        match FrozenCopy::of(learner, greedy) {
            Some(copy) => Ok(FrozenPolicy {
                graph,
                copy: Some(copy),
                profile: OnceLock::new(),
                name: String::new(),
                greedy,
            }),
            None => {
                let policy = match greedy {
                    true => learner.greedy_policy(),
                    false => learner.policy(),
                };
                Ok(FrozenPolicy {
                    greedy,
                    ..FrozenPolicy::new(graph, policy.as_ref())?
                })
            }
        }
    }

    /// Brings a frozen copy of `learner` ([`FrozenPolicy::of_learner`]) up to date: afterwards
    /// it plays as a fresh one would. A copy costs what the learner changed since the last
    /// refresh; a tabulated policy is tabulated again.
    pub fn refresh(&mut self, game: &G, learner: &mut dyn Learner<G>) -> Result<(), EvalError> {
        match &mut self.copy {
            Some(copy) => {
                copy.refresh(game, learner);
                self.profile = OnceLock::new();
            }
            None => {
                *self = FrozenPolicy::of_learner(self.graph, learner, self.greedy)?;
            }
        }
        Ok(())
    }

    /// One episode of `learner` in `env`, whose opponents are `frozen` (shared with it): a
    /// learner's copy plays through [`Learner::play_vs_copy`] (the same episode, faster), a
    /// tabulated policy through the environment.
    pub fn play(
        frozen: &SharedPolicy<Self>,
        env: &mut Env<'_, G>,
        learner: &mut dyn Learner<G>,
        rng: &mut SgRng,
    ) -> EpisodeOutcome {
        {
            let policy = frozen.read();
            if let Some(copy) = &policy.copy {
                return learner.play_vs_copy(env, copy.learner(), copy.greedy(), rng);
            }
        }
        // The environment's opponents read the policy themselves: the lock is let go first.
        play_vs_opponent(env, learner, rng)
    }

    /// The tabulated probabilities, for the evaluator.
    pub fn profile(&self) -> Result<&Profile, EvalError> {
        if let Some(profile) = self.profile.get() {
            return Ok(profile);
        }
        let copy = self
            .copy
            .as_ref()
            .expect("a frozen policy without a copy is tabulated");
        let everywhere: Vec<Option<&dyn Policy<G>>> =
            vec![Some(copy); self.graph.game().num_players()];
        let profile = Profile::new(self.graph, &everywhere)?;
        Ok(self.profile.get_or_init(|| profile))
    }
}

impl<G: Game> Policy<G> for FrozenPolicy<'_, G> {
    fn name(&self) -> String {
        match &self.copy {
            Some(copy) => format!("frozen {}", copy.name()),
            None => self.name.clone(),
        }
    }
    fn probabilities(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        probs: &mut Vec<f64>,
    ) -> bool {
        if let Some(copy) = &self.copy {
            return copy.probabilities(game, state, legal, probs);
        }
        probs.clear();
        // Every state a game can reach is in the graph; the fallback serves states built by hand.
        let Some(id) = self.graph.id(state) else {
            probs.resize(legal.len(), 1.0 / legal.len() as f64);
            return true;
        };
        let profile = self.profile.get().expect("a tabulated policy");
        let actions = self.graph.actions(id);
        let tabulated = profile.probs(self.graph, id);
        if actions == legal {
            probs.extend_from_slice(tabulated);
        } else {
            probs.extend(legal.iter().map(|a| {
                actions
                    .iter()
                    .position(|b| b == a)
                    .map_or(0.0, |k| tabulated[k])
            }));
        }
        true
    }
    fn choose(
        &self,
        game: &G,
        state: &G::State,
        legal: &[Action],
        rng: &mut crate::core::random::SgRng,
    ) -> Option<Action> {
        match &self.copy {
            Some(copy) => copy.choose(game, state, legal, rng),
            None => {
                let mut probs = Vec::with_capacity(legal.len());
                self.probabilities(game, state, legal, &mut probs);
                crate::core::policy::sample(legal, &probs, rng)
            }
        }
    }
}
