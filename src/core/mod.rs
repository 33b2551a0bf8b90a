//! The rules and what plays them: the [`Game`](game::Game) trait, the reachable state
//! [`graph`], the Gymnasium- and PettingZoo-style environments ([`env`]), games played from
//! their state graph ([`tabulated`]), the [`Policy`](policy::Policy) trait with its simplest
//! players, the environment [`check`]er every game passes, board strings ([`notation`]) and the
//! status line and default picture every game's [`picture`] shares.
//! Nothing here knows that solvers, learners or experiments exist.

pub mod check;
pub mod env;
pub mod game;
pub mod graph;
pub mod notation;
pub mod picture;
pub mod policy;
pub mod random;
pub mod tabulated;
