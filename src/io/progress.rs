//! Progress shown on the terminal.

/// A progress bar for solvers that work in phases of numbered steps (layers).
pub struct PhaseProgress(Option<indicatif::ProgressBar>);

impl PhaseProgress {
    /// A bar on the terminal when `show`, nothing otherwise.
    pub fn new(show: bool) -> Self {
        PhaseProgress(show.then(|| {
            let bar = indicatif::ProgressBar::new(0);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{msg:12} [{bar:40}] {pos}/{len} layers {elapsed}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar
        }))
    }
    /// `done` of `all` steps of `phase` are finished.
    pub fn report(&self, phase: &str, done: usize, all: usize) {
        if let Some(bar) = &self.0 {
            bar.set_length(all as u64);
            bar.set_message(phase.to_string());
            bar.set_position(done as u64);
        }
    }
}

impl Drop for PhaseProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// A counter on the terminal for work of unknown length ("valuing: 1,234,567 parts, 12 s").
pub struct CountProgress(Option<indicatif::ProgressBar>);

impl CountProgress {
    /// A counter on the terminal (stderr, when it is one) when `show`, nothing otherwise.
    pub fn new(show: bool, what: &str) -> Self {
        CountProgress(show.then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template(&format!(
                    "{{spinner}} {what}: {{human_pos}} {{msg}} {{elapsed}}"
                ))
                .expect("a valid template"),
            );
            bar
        }))
    }
    /// `done` units so far, and what they are.
    pub fn report(&self, done: usize, unit: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(unit.to_string());
            bar.set_position(done as u64);
        }
    }
}

impl Drop for CountProgress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
