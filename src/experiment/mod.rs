//! Experiments (work in progress in this commit).
