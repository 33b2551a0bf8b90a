//! Threads that stay between a vector environment's steps and wait for the next one spinning
//! for a moment before they sleep.
//!
//! Why not a thread per step, or a sleeping pool (rayon's): on the virtual machines these
//! steps are measured on, waking a sleeping thread on the other core and hearing back from it
//! took about 160 µs (a futex round trip after an idle gap) against about 4 µs for a thread
//! that spins; a step of 8,192 tic-tac-toe environments takes about 550 µs on one core. With
//! a thread made per step (about 40 µs) or rayon's pool, two threads stepped 8,192
//! environments slower than one. Here the caller steps the first part itself while the crew
//! steps the others, and a member that finished waits [`SPIN`] for the next part before it
//! sleeps, so back-to-back steps never sleep and a learner's pause between steps costs the
//! other core at most [`SPIN`] a step.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a member waits spinning for its next part before it sleeps.
pub const SPIN: Duration = Duration::from_micros(200);

fn spin() -> Duration {
    static SPIN_US: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *SPIN_US.get_or_init(|| {
        std::env::var("SOLVEDGYM_SPIN_US")
            .ok()
            .and_then(|s| s.parse().ok())
            .map_or(SPIN, Duration::from_micros)
    })
}

/// A part of a call, borrowing what the call holds.
pub type Part<'a> = Box<dyn FnOnce() + Send + 'a>;

const WAITING: u8 = 0;
const POSTED: u8 = 1;
const DONE: u8 = 2;
const STOP: u8 = 3;

/// One member's mailbox. `job` is written by the caller only while the member waits (state
/// `WAITING` or `DONE`, before `POSTED` is stored) and taken by the member only after it saw
/// `POSTED`; `panic` is written by the member before it stores `DONE` and read by the caller
/// after it saw `DONE`. The state's release/acquire orders both.
struct Mailbox {
    state: AtomicU8,
    job: UnsafeCell<Option<Part<'static>>>,
    panic: UnsafeCell<Option<Box<dyn Any + Send>>>,
}

// SAFETY: the cells are only touched as the comment on `Mailbox` says, one side at a time.
unsafe impl Sync for Mailbox {}

struct Member {
    mailbox: Arc<Mailbox>,
    thread: Thread,
}

/// `size` threads of this process (see the module's help).
pub struct Crew {
    members: Vec<Member>,
    pid: u32,
}

impl Crew {
    /// A crew of `size` threads, or `None` where the system gives none.
    pub fn new(size: usize) -> Option<Crew> {
        // Members join the crew as they start, so that a failure part-way stops those started
        // (the crew's drop).
        let mut crew = Crew {
            members: Vec::with_capacity(size),
            pid: std::process::id(),
        };
        for k in 0..size {
            let mailbox = Arc::new(Mailbox {
                state: AtomicU8::new(WAITING),
                job: UnsafeCell::new(None),
                panic: UnsafeCell::new(None),
            });
            let theirs = mailbox.clone();
            let handle = std::thread::Builder::new()
                .name(format!("solvedgym-vector-{k}"))
                .spawn(move || serve(&theirs))
                .ok()?;
            crew.members.push(Member {
                mailbox,
                thread: handle.thread().clone(),
            });
        }
        Some(crew)
    }

    pub fn size(&self) -> usize {
        self.members.len()
    }

    /// Made in this process (a forked copy of a process has none of its threads).
    pub fn is_here(&self) -> bool {
        self.pid == std::process::id()
    }

    /// Runs the first of `parts` on the caller's thread and each of the others on a member of
    /// its own, and returns when every one has returned (a panic in any is raised again here,
    /// after all have finished).
    pub fn run<'a>(&mut self, parts: Vec<Part<'a>>) {
        let mut others = parts.into_iter();
        let Some(first) = others.next() else {
            return;
        };
        assert!(
            others.len() <= self.members.len(),
            "more parts than threads"
        );
        assert!(self.is_here(), "a crew of another process");
        /// Waits for the posted members even when the caller's own part panics: their parts
        /// borrow what the caller's frame holds.
        struct Finish<'c>(&'c [Member], usize);
        impl Drop for Finish<'_> {
            fn drop(&mut self) {
                for member in &self.0[..self.1] {
                    let start = Instant::now();
                    while member.mailbox.state.load(Ordering::Acquire) != DONE {
                        if start.elapsed() < SPIN {
                            std::hint::spin_loop();
                        } else {
                            std::thread::yield_now();
                        }
                    }
                }
            }
        }
        let posted = &self.members[..others.len()];
        let mut finish = Finish(posted, 0);
        for (member, job) in posted.iter().zip(others) {
            // SAFETY: the part is run and dropped by the member before it stores `DONE`, and
            // `finish` does not let this call return (or unwind) before every posted member
            // stored `DONE`: nothing the part borrows outlives it. The member waits (its last
            // state `WAITING` or `DONE`: `&mut self` and `finish` see to it), so the cell is
            // the caller's.
            unsafe {
                let job: Part<'static> = std::mem::transmute::<Part<'a>, Part<'static>>(job);
                *member.mailbox.job.get() = Some(job);
                // A panic left by a call that unwound from its own part is not this call's.
                *member.mailbox.panic.get() = None;
            }
            member.mailbox.state.store(POSTED, Ordering::Release);
            finish.1 += 1;
            member.thread.unpark();
        }
        first();
        drop(finish);
        for member in posted {
            // SAFETY: the member stored `DONE` (seen by `finish` with acquire): the cell is
            // the caller's until it posts again.
            if let Some(panic) = unsafe { (*member.mailbox.panic.get()).take() } {
                resume_unwind(panic);
            }
        }
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        // In a forked copy the threads do not exist: nothing to tell.
        if self.is_here() {
            for member in &self.members {
                member.mailbox.state.store(STOP, Ordering::Release);
                member.thread.unpark();
            }
        }
    }
}

/// A member's life: wait for a part (spinning, then asleep), run it, say so.
fn serve(mailbox: &Mailbox) {
    loop {
        let start = Instant::now();
        let state = loop {
            match mailbox.state.load(Ordering::Acquire) {
                POSTED => break POSTED,
                STOP => break STOP,
                _ if start.elapsed() < spin() => std::hint::spin_loop(),
                // Woken by the caller's unpark (a token kept when it comes first).
                _ => std::thread::park(),
            }
        };
        if state == STOP {
            return;
        }
        // SAFETY: `POSTED` seen with acquire: the caller wrote the part and waits for `DONE`.
        let job = unsafe { (*mailbox.job.get()).take() };
        let ran = catch_unwind(AssertUnwindSafe(|| {
            if let Some(job) = job {
                job();
            }
        }));
        if let Err(panic) = ran {
            // SAFETY: the caller reads the cell only after `DONE`, stored below.
            unsafe { *mailbox.panic.get() = Some(panic) };
        }
        mailbox.state.store(DONE, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part runs once, on its own thread, with what the caller's frame lends it; a
    /// panicking part is raised in the caller after the others finished, and the crew goes on.
    #[test]
    fn parts_run_once_each_and_panics_come_back() {
        let mut crew = Crew::new(3).unwrap();
        let caller = std::thread::current().id();
        for round in 0..200u64 {
            let mut sums = [0u64; 4];
            let mut threads = [None; 4];
            {
                let parts: Vec<Part<'_>> = sums
                    .iter_mut()
                    .zip(threads.iter_mut())
                    .enumerate()
                    .map(|(k, (sum, thread))| {
                        Box::new(move || {
                            *sum = (0..1000).map(|x| x * (k as u64 + round)).sum();
                            *thread = Some(std::thread::current().id());
                        }) as Part<'_>
                    })
                    .collect();
                crew.run(parts);
            }
            for (k, sum) in sums.iter().enumerate() {
                assert_eq!(*sum, 499_500 * (k as u64 + round));
            }
            assert_eq!(threads[0], Some(caller));
            let mut seen: Vec<_> = threads.iter().map(|t| t.unwrap()).collect();
            seen.sort_by_key(|t| format!("{t:?}"));
            seen.dedup();
            assert_eq!(seen.len(), 4, "each part on a thread of its own");
            if round % 50 == 0 {
                // Long enough for the members to fall asleep: they wake.
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        let finished = std::sync::atomic::AtomicBool::new(false);
        let raised = catch_unwind(AssertUnwindSafe(|| {
            let parts: Vec<Part<'_>> = vec![
                Box::new(|| {}),
                Box::new(|| panic!("part one")),
                Box::new(|| {
                    std::thread::sleep(Duration::from_millis(20));
                    finished.store(true, Ordering::SeqCst);
                }),
            ];
            crew.run(parts);
        }));
        let message = *raised.unwrap_err().downcast::<&str>().unwrap();
        assert_eq!(message, "part one");
        assert!(finished.load(Ordering::SeqCst), "the others finished first");
        let mut after = 0;
        crew.run(vec![Box::new(|| after += 1)]);
        assert_eq!(after, 1);
    }
}
