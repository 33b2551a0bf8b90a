//! Short partizan games in canonical form, hash-consed in a [`Store`].
//!
//! Every game the store hands out is in canonical form: dominated options removed, reversible
//! options bypassed (Conway, *On Numbers and Games*, ch. 10; Siegel, *Combinatorial Game
//! Theory*, II.2). Canonical forms are unique, so the store keeps each distinct game once and
//! two games are equal exactly when their ids are. Numbers are kept as exact dyadic rationals
//! and their options are made only when a computation asks for them, so `1000000` costs one
//! node, not a million.
//!
//! Comparison uses the definition (G ≤ H unless some G^L ≥ H or some H^R ≤ G), memoised, with
//! the number-avoidance shortcut (for a number x and a game H that is not one: x ≤ H exactly
//! when no H^R ≤ x). Sums are memoised on the pair; a number plus a game that is not one moves
//! only in the game (number translation).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Dyadic;

/// A game in a [`Store`]: equal ids are equal games.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct GameId(u32);

impl GameId {
    /// The id's index in its store (for tables keyed by game).
    pub fn index(self) -> usize {
        (self.0 & !PENDING) as usize
    }
}

/// Ids with this bit are forms under construction (not canonical yet).
const PENDING: u32 = 1 << 31;

/// Why a store gave up: the work or the printed form went past its limit (see
/// [`Store::with_limits`] and [`within_limits`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooBig(pub String);

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TooBig {}

/// What a store may do before it gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Steps of work: comparisons worked out and games put in canonical form (each costs a
    /// memo entry, about 50 to 150 bytes).
    pub work: u64,
    /// Characters of one printed game (a canonical form printed in full can be exponentially
    /// longer than the game has nodes).
    pub printed: usize,
    /// The largest nimber the store builds: *n holds n options a side, and every smaller
    /// nimber with it, so its memory grows with n².
    pub nimber: u64,
}

impl Limits {
    /// No limit: the library's default.
    pub const NONE: Limits = Limits {
        work: u64::MAX,
        printed: usize::MAX,
        nimber: u64::MAX,
    };
    /// The limits of `solvedgym value`: about 1.5 GB and a minute of work at most, a million
    /// characters of value, nimbers up to *4096 (sums of the nimbers an expression names
    /// reach *511).
    pub const COMMAND: Limits = Limits {
        work: 10_000_000,
        printed: 1_000_000,
        nimber: 4096,
    };
}

/// Runs `f`, which works with a [`Store`] made [`Store::with_limits`]: the store's giving up
/// (a limit reached, deep inside its recursion) comes back as the error. A store that gave
/// up is left half-way through a computation: drop it.
pub fn within_limits<T>(f: impl FnOnce() -> T) -> Result<T, TooBig> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Ok(v),
        Err(payload) => match payload.downcast::<TooBig>() {
            Ok(too_big) => Err(*too_big),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Gives up: unwinds to [`within_limits`] without running the panic hook (nothing printed).
/// For work bounded on a store's behalf (Hackenbush's parts); outside [`within_limits`] it
/// ends the thread.
#[cold]
#[inline(never)]
pub fn give_up(why: String) -> ! {
    std::panic::resume_unwind(Box::new(TooBig(why)))
}

/// Who wins a game: Left whoever starts (positive), Right whoever starts (negative), the
/// player to move (fuzzy, confused with zero), or the second player (zero).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// Left wins whoever starts: G > 0.
    L,
    /// Right wins whoever starts: G < 0.
    R,
    /// The player to move wins: G ‖ 0.
    N,
    /// The second player wins: G = 0.
    P,
}

impl Outcome {
    /// "L", "R", "N" or "P".
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::L => "L",
            Outcome::R => "R",
            Outcome::N => "N",
            Outcome::P => "P",
        }
    }
    /// Whether Left wins when Left moves first.
    pub fn left_wins_moving_first(self) -> bool {
        matches!(self, Outcome::L | Outcome::N)
    }
    /// Whether Left wins when Right moves first.
    pub fn left_wins_moving_second(self) -> bool {
        matches!(self, Outcome::L | Outcome::P)
    }
}

/// How two games compare: games are partially ordered.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Comparison {
    Less,
    Equal,
    Greater,
    /// Neither ≤ nor ≥ (G − H is fuzzy).
    Confused,
}

/// Where one side's options of a game lie in its store's list of options (`opts`, or
/// `pending_opts` for a form under construction).
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

impl Span {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.len) as usize
    }
}

#[derive(Clone, Debug)]
struct Node {
    /// Options; for numbers filled on demand (`filled`).
    left: Span,
    right: Span,
    filled: bool,
    number: Option<Dyadic>,
    /// `Some(n)` when the game is the nimber *n (n ≥ 1; 0 is the number 0).
    nimber: Option<u64>,
}

/// An empty map with room for `n` entries.
fn room<K, V>(n: usize) -> FxHashMap<K, V> {
    FxHashMap::with_capacity_and_hasher(n, Default::default())
}

/// Two lists of options as one key: Left's count, then the ids of Left's and Right's options.
fn options_key(left: &[GameId], right: &[GameId]) -> Vec<u32> {
    std::iter::once(left.len() as u32)
        .chain(left.iter().chain(right.iter()).map(|g| g.0))
        .collect()
}

/// The home of canonical games: construction, arithmetic, comparison and their caches.
#[derive(Debug)]
pub struct Store {
    nodes: Vec<Node>,
    /// Every canonical game's options, side by side (a node holds its spans): one allocation
    /// for all, walked by index while the store works on.
    opts: Vec<GameId>,
    /// Canonical forms by their options (keyed as [`options_key`]).
    by_options: FxHashMap<Vec<u32>, GameId>,
    by_number: FxHashMap<Dyadic, GameId>,
    nimbers: Vec<GameId>,
    leq_memo: FxHashMap<(GameId, GameId), bool>,
    sum_memo: FxHashMap<(GameId, GameId), GameId>,
    /// Canonical forms of the option lists [`Store::game`] was given (sorted, deduplicated;
    /// keyed by Left's count, then the ids of both sides).
    game_memo: FxHashMap<Vec<u32>, GameId>,
    neg_memo: FxHashMap<GameId, GameId>,
    stops: FxHashMap<GameId, (Dyadic, Dyadic)>,
    birthdays: FxHashMap<GameId, u64>,
    thermographs: FxHashMap<GameId, super::thermo::Thermograph>,
    /// Printed forms: the text without outer braces and its bar level.
    printed: FxHashMap<GameId, (String, usize)>,
    /// Named infinitesimals made for printing: (kind, n) → game.
    named: FxHashMap<(u8, i64), GameId>,
    /// Forms under construction, and comparisons that involve them (cleared after each).
    pending: Vec<Node>,
    pending_opts: Vec<GameId>,
    pending_memo: FxHashMap<(GameId, GameId), bool>,
    /// [`Store::game`]'s lists and key, kept between calls: one answered from its memo
    /// allocates nothing.
    scratch: (Vec<GameId>, Vec<GameId>, Vec<u32>),
    /// Steps of work done, and the limits (see [`Limits`]).
    work: u64,
    limits: Limits,
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

impl Store {
    /// A store holding only 0.
    pub fn new() -> Store {
        // Room for a typical Hackenbush position's games without rehashing.
        Store::with_room(8192)
    }

    /// A store holding only 0, with room for `comparisons` in the memo of comparisons before
    /// it grows (each growth moves every entry).
    pub fn with_room(comparisons: usize) -> Store {
        let mut s = Store {
            nodes: Vec::with_capacity(1024),
            opts: Vec::with_capacity(4096),
            by_options: room(1024),
            by_number: room(256),
            nimbers: Vec::new(),
            leq_memo: room(comparisons),
            sum_memo: room(1024),
            game_memo: room(1024),
            neg_memo: FxHashMap::default(),
            stops: FxHashMap::default(),
            birthdays: FxHashMap::default(),
            thermographs: FxHashMap::default(),
            printed: FxHashMap::default(),
            named: FxHashMap::default(),
            pending: Vec::new(),
            pending_opts: Vec::new(),
            pending_memo: room(256),
            scratch: Default::default(),
            work: 0,
            limits: Limits::NONE,
        };
        let zero = s.number(&Dyadic::zero());
        s.nimbers.push(zero);
        s
    }

    /// A store that gives up past `limits`, inside [`within_limits`] (which turns the giving
    /// up into an error); outside it, giving up ends the thread.
    pub fn with_limits(limits: Limits) -> Store {
        let mut s = Store::new();
        s.limits = limits;
        s
    }

    /// From now on, works within `limits` (as [`Store::with_limits`]).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The limits this store works within.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Steps of work done so far (comparisons worked out, games put in canonical form).
    pub fn work(&self) -> u64 {
        self.work
    }

    /// One step of work; past the limit, gives up.
    #[inline]
    fn step(&mut self) {
        self.steps(1);
    }

    /// `n` steps of work; past the limit, gives up.
    #[inline]
    fn steps(&mut self, n: u64) {
        self.work += n;
        if self.work > self.limits.work {
            let limit = self.limits.work;
            give_up(format!(
                "the game is too big for the exact method: it needs more than {limit} steps of \
                 work (comparisons of games and options weighed in canonical forms; the limit is \
                 {limit})"
            ));
        }
    }

    /// How many distinct games the store holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    fn node(&self, g: GameId) -> &Node {
        if g.0 & PENDING != 0 {
            &self.pending[(g.0 & !PENDING) as usize]
        } else {
            &self.nodes[g.0 as usize]
        }
    }

    pub(super) fn named_cache(&mut self) -> &mut FxHashMap<(u8, i64), GameId> {
        &mut self.named
    }

    pub(super) fn print_cache(&mut self) -> &mut FxHashMap<GameId, (String, usize)> {
        &mut self.printed
    }

    pub(super) fn thermo_cache(&mut self) -> &mut FxHashMap<GameId, super::thermo::Thermograph> {
        &mut self.thermographs
    }

    /// The game 0 = { | }.
    pub fn zero(&self) -> GameId {
        GameId(0)
    }

    /// The number `x`.
    pub fn number(&mut self, x: &Dyadic) -> GameId {
        if let Some(&g) = self.by_number.get(x) {
            return g;
        }
        let id = GameId(self.nodes.len() as u32);
        self.nodes.push(Node {
            left: Span::default(),
            right: Span::default(),
            filled: x.is_zero(),
            number: Some(x.clone()),
            nimber: None,
        });
        self.by_number.insert(x.clone(), id);
        id
    }

    /// The integer `n`.
    pub fn integer(&mut self, n: i64) -> GameId {
        self.number(&Dyadic::int(n))
    }

    /// The nimber *n (*0 = 0, *1 = *).
    pub fn nimber(&mut self, n: u64) -> GameId {
        if n > self.limits.nimber {
            let limit = self.limits.nimber;
            give_up(format!(
                "the value *{n} is too big for the store: it builds nimbers up to *{limit} (*n \
                 holds every smaller nimber, n² options in all)"
            ));
        }
        while (self.nimbers.len() as u64) <= n {
            let k = self.nimbers.len();
            let opts: Vec<GameId> = self.nimbers[..k].to_vec();
            let g = self.intern(opts.clone(), opts);
            self.nimbers.push(g);
        }
        self.nimbers[n as usize]
    }

    /// The number of `g` if it is one.
    pub fn as_number(&self, g: GameId) -> Option<&Dyadic> {
        self.node(g).number.as_ref()
    }

    /// `Some(n)` if `g` is the nimber *n (0 for zero).
    pub fn as_nimber(&self, g: GameId) -> Option<u64> {
        if g == self.zero() {
            return Some(0);
        }
        self.node(g).nimber
    }

    fn fill(&mut self, g: GameId) {
        if self.node(g).filled {
            return;
        }
        let x = self
            .node(g)
            .number
            .clone()
            .expect("only numbers are filled lazily");
        let (l, r) = x.canonical_options();
        let left: Vec<GameId> = l.iter().map(|v| self.number(v)).collect();
        let right: Vec<GameId> = r.iter().map(|v| self.number(v)).collect();
        let (ls, rs) = (self.push_opts(&left), self.push_opts(&right));
        let n = &mut self.nodes[g.0 as usize];
        n.left = ls;
        n.right = rs;
        n.filled = true;
    }

    /// Appends options to the list of all, and where they lie.
    fn push_opts(&mut self, xs: &[GameId]) -> Span {
        let start = self.opts.len() as u32;
        self.opts.extend_from_slice(xs);
        Span {
            start,
            len: xs.len() as u32,
        }
    }

    /// One side's options of `g` (filled).
    fn options_of(&self, g: GameId, left: bool) -> &[GameId] {
        let n = self.node(g);
        let span = if left { n.left } else { n.right };
        let all = if g.0 & PENDING != 0 {
            &self.pending_opts
        } else {
            &self.opts
        };
        &all[span.range()]
    }

    /// The first of one side's options of `g` for which `f` holds, walked by index (the store
    /// works on, and its list of options may grow, while they are walked).
    #[inline]
    fn find_option(
        &mut self,
        g: GameId,
        left: bool,
        mut f: impl FnMut(&mut Store, GameId) -> bool,
    ) -> Option<GameId> {
        self.fill(g);
        let n = self.node(g);
        let span = if left { n.left } else { n.right };
        for i in span.range() {
            let o = if g.0 & PENDING != 0 {
                self.pending_opts[i]
            } else {
                self.opts[i]
            };
            if f(self, o) {
                return Some(o);
            }
        }
        None
    }

    /// `f` of each of one side's options of `g`, in order.
    fn map_options(
        &mut self,
        g: GameId,
        left: bool,
        mut f: impl FnMut(&mut Store, GameId) -> GameId,
    ) -> Vec<GameId> {
        debug_assert!(g.0 & PENDING == 0, "only canonical games are added");
        self.fill(g);
        let n = self.node(g);
        let span = if left { n.left } else { n.right };
        let mut out = Vec::with_capacity(span.len as usize);
        for i in span.range() {
            let o = self.opts[i];
            out.push(f(self, o));
        }
        out
    }

    /// Left's options of `g` in canonical form.
    pub fn left(&mut self, g: GameId) -> Arc<[GameId]> {
        self.fill(g);
        Arc::from(self.options_of(g, true))
    }

    /// Right's options of `g` in canonical form.
    pub fn right(&mut self, g: GameId) -> Arc<[GameId]> {
        self.fill(g);
        Arc::from(self.options_of(g, false))
    }

    /// Adds a canonical non-number form (options already canonical and reduced).
    fn intern(&mut self, mut left: Vec<GameId>, mut right: Vec<GameId>) -> GameId {
        left.sort_unstable();
        left.dedup();
        right.sort_unstable();
        right.dedup();
        let key = options_key(&left, &right);
        if let Some(&g) = self.by_options.get(key.as_slice()) {
            return g;
        }
        let nimber = self.nimber_of(&left, &right);
        let id = GameId(self.nodes.len() as u32);
        let (ls, rs) = (self.push_opts(&left), self.push_opts(&right));
        self.nodes.push(Node {
            left: ls,
            right: rs,
            filled: true,
            number: None,
            nimber,
        });
        self.by_options.insert(key, id);
        id
    }

    /// *n is {0, *, …, *(n-1) | the same}.
    fn nimber_of(&self, left: &[GameId], right: &[GameId]) -> Option<u64> {
        if left != right || left.is_empty() {
            return None;
        }
        let mut seen: Vec<u64> = Vec::with_capacity(left.len());
        for &o in left {
            seen.push(self.as_nimber(o)?);
        }
        seen.sort_unstable();
        seen.iter()
            .enumerate()
            .all(|(i, &v)| v == i as u64)
            .then_some(left.len() as u64)
    }

    /// `g ≤ h`.
    pub fn leq(&mut self, g: GameId, h: GameId) -> bool {
        if g == h {
            return true;
        }
        let pending = (g.0 | h.0) & PENDING != 0;
        let memo = if pending {
            &self.pending_memo
        } else {
            &self.leq_memo
        };
        if let Some(&v) = memo.get(&(g, h)) {
            return v;
        }
        let pg = g.0 & PENDING != 0;
        let ph = h.0 & PENDING != 0;
        // Distinct nimbers are confused with each other (and 0 is *0).
        if !pg
            && !ph
            && let (Some(_), Some(_)) = (self.as_nimber(g), self.as_nimber(h))
        {
            return false;
        }
        self.step();
        let v = match (&self.node(g).number, &self.node(h).number) {
            (Some(a), Some(b)) => a <= b,
            // Number avoidance: x ≤ H (H not a number) iff no H^R ≤ x.
            (Some(_), None) if !ph => self.find_option(h, false, |s, r| s.leq(r, g)).is_none(),
            // G ≤ x (G not a number) iff no G^L ≥ x.
            (None, Some(_)) if !pg => self.find_option(g, true, |s, l| s.leq(h, l)).is_none(),
            // With `h` under construction, its options' comparisons (in the memo across
            // forms) go first: they settle most comparisons that fail.
            _ if ph => {
                self.find_option(h, false, |s, r| s.leq(r, g)).is_none()
                    && self.find_option(g, true, |s, l| s.leq(h, l)).is_none()
            }
            _ => {
                self.find_option(g, true, |s, l| s.leq(h, l)).is_none()
                    && self.find_option(h, false, |s, r| s.leq(r, g)).is_none()
            }
        };
        if pending {
            self.pending_memo.insert((g, h), v);
        } else {
            self.leq_memo.insert((g, h), v);
        }
        v
    }

    /// How `g` compares with `h`.
    pub fn compare(&mut self, g: GameId, h: GameId) -> Comparison {
        if g == h {
            return Comparison::Equal;
        }
        match (self.leq(g, h), self.leq(h, g)) {
            (true, true) => Comparison::Equal,
            (true, false) => Comparison::Less,
            (false, true) => Comparison::Greater,
            (false, false) => Comparison::Confused,
        }
    }

    /// `g ≥ 0`, `g ≤ 0` → the outcome class.
    pub fn outcome(&mut self, g: GameId) -> Outcome {
        let zero = self.zero();
        match self.compare(g, zero) {
            Comparison::Greater => Outcome::L,
            Comparison::Less => Outcome::R,
            Comparison::Equal => Outcome::P,
            Comparison::Confused => Outcome::N,
        }
    }

    /// The canonical form of the game { left | right } (options in any form the store holds).
    pub fn game(&mut self, left: &[GameId], right: &[GameId]) -> GameId {
        let (mut l, mut r, mut key) = std::mem::take(&mut self.scratch);
        l.clear();
        l.extend_from_slice(left);
        r.clear();
        r.extend_from_slice(right);
        l.sort_unstable();
        l.dedup();
        r.sort_unstable();
        r.dedup();
        // The lists as one key: Left's count, Left's options, Right's options (as
        // `options_key`).
        key.clear();
        key.push(l.len() as u32);
        key.extend(l.iter().chain(r.iter()).map(|g| g.0));
        if let Some(&g) = self.game_memo.get(key.as_slice()) {
            self.scratch = (l, r, key);
            self.step();
            return g;
        }
        // Removing dominated options compares them pairwise (mostly in the memo): count that.
        self.steps(1 + ((l.len() * l.len() + r.len() * r.len()) / 4) as u64);
        if let Some(x) = self.number_between(&l, &r) {
            self.scratch = (l, r, key);
            return x;
        }
        l = self.undominated(l, true);
        r = self.undominated(r, false);
        // Bypass reversible options until none is left.
        loop {
            let me = self.push_pending(&l, &r);
            let mut changed = false;
            let mut nl: Vec<GameId> = Vec::with_capacity(l.len());
            for &a in &l {
                match self.find_option(a, false, |s, x| s.leq(x, me)) {
                    Some(x) => {
                        changed = true;
                        self.fill(x);
                        nl.extend_from_slice(self.options_of(x, true));
                    }
                    None => nl.push(a),
                }
            }
            let mut nr: Vec<GameId> = Vec::with_capacity(r.len());
            for &a in &r {
                match self.find_option(a, true, |s, x| s.leq(me, x)) {
                    Some(x) => {
                        changed = true;
                        self.fill(x);
                        nr.extend_from_slice(self.options_of(x, false));
                    }
                    None => nr.push(a),
                }
            }
            if !changed {
                break;
            }
            nl.sort_unstable();
            nl.dedup();
            nr.sort_unstable();
            nr.dedup();
            l = self.undominated(nl, true);
            r = self.undominated(nr, false);
        }
        self.pending.clear();
        self.pending_opts.clear();
        self.pending_memo.clear();
        let g = match self.number_between(&l, &r) {
            Some(x) => x,
            None => self.intern(l, r),
        };
        self.game_memo.insert(key, g);
        g
    }

    fn push_pending(&mut self, l: &[GameId], r: &[GameId]) -> GameId {
        let id = GameId(self.pending.len() as u32 | PENDING);
        let start = self.pending_opts.len() as u32;
        self.pending_opts.extend_from_slice(l);
        self.pending_opts.extend_from_slice(r);
        let len = l.len() as u32;
        self.pending.push(Node {
            left: Span { start, len },
            right: Span {
                start: start + len,
                len: r.len() as u32,
            },
            filled: true,
            number: None,
            nimber: None,
        });
        id
    }

    /// The simplest number between the options when all are numbers and Left's best is below
    /// Right's best.
    fn number_between(&mut self, l: &[GameId], r: &[GameId]) -> Option<GameId> {
        let mut lo: Option<Dyadic> = None;
        for &g in l {
            let x = self.as_number(g)?;
            if lo.as_ref().is_none_or(|m| x > m) {
                lo = Some(x.clone());
            }
        }
        let mut hi: Option<Dyadic> = None;
        for &g in r {
            let x = self.as_number(g)?;
            if hi.as_ref().is_none_or(|m| x < m) {
                hi = Some(x.clone());
            }
        }
        let x = Dyadic::simplest_between(lo.as_ref(), hi.as_ref())?;
        Some(self.number(&x))
    }

    /// Removes dominated options: for Left those ≤ another, for Right those ≥ another.
    fn undominated(&mut self, mut opts: Vec<GameId>, left: bool) -> Vec<GameId> {
        if opts.len() < 2 {
            return opts;
        }
        // Numbers are totally ordered: of those only the best can survive.
        let mut best: Option<(GameId, Dyadic)> = None;
        let mut numbers = 0;
        for &o in &opts {
            if let Some(x) = self.as_number(o) {
                numbers += 1;
                if best
                    .as_ref()
                    .is_none_or(|(_, b)| if left { x > b } else { x < b })
                {
                    best = Some((o, x.clone()));
                }
            }
        }
        if numbers > 1 {
            let keep = best.map(|b| b.0);
            opts.retain(|&o| self.as_number(o).is_none() || Some(o) == keep);
            if opts.len() < 2 {
                return opts;
            }
        }
        self.drop_dominated(opts, left, Store::leq)
    }

    /// Removes the options another kept option dominates under `leq` (for Left those `leq`
    /// another, for Right those another is `leq` to); of equal ones the last stays.
    pub(super) fn drop_dominated(
        &mut self,
        opts: Vec<GameId>,
        left: bool,
        leq: fn(&mut Store, GameId, GameId) -> bool,
    ) -> Vec<GameId> {
        let mut keep = vec![true; opts.len()];
        for i in 0..opts.len() {
            for j in 0..opts.len() {
                if i == j || !keep[j] {
                    continue;
                }
                let dominated = if left {
                    leq(self, opts[i], opts[j])
                } else {
                    leq(self, opts[j], opts[i])
                };
                if dominated {
                    keep[i] = false;
                    break;
                }
            }
        }
        opts.into_iter()
            .zip(keep)
            .filter_map(|(g, k)| k.then_some(g))
            .collect()
    }

    /// −g.
    pub fn neg(&mut self, g: GameId) -> GameId {
        if let Some(x) = self.as_number(g) {
            let y = -x;
            return self.number(&y);
        }
        if let Some(&n) = self.neg_memo.get(&g) {
            return n;
        }
        let l = self.left(g);
        let r = self.right(g);
        let nl: Vec<GameId> = r.iter().map(|&x| self.neg(x)).collect();
        let nr: Vec<GameId> = l.iter().map(|&x| self.neg(x)).collect();
        // The negative of a canonical form is canonical.
        let n = self.intern(nl, nr);
        self.neg_memo.insert(g, n);
        self.neg_memo.insert(n, g);
        n
    }

    /// g + h.
    pub fn add(&mut self, g: GameId, h: GameId) -> GameId {
        let zero = self.zero();
        if g == zero {
            return h;
        }
        if h == zero {
            return g;
        }
        let (g, h) = if g <= h { (g, h) } else { (h, g) };
        if let Some(&s) = self.sum_memo.get(&(g, h)) {
            return s;
        }
        let s = match (self.as_number(g).cloned(), self.as_number(h).cloned()) {
            (Some(a), Some(b)) => self.number(&(&a + &b)),
            (Some(_), None) => self.translate(h, g),
            (None, Some(_)) => self.translate(g, h),
            (None, None) => {
                if let (Some(a), Some(b)) = (self.as_nimber(g), self.as_nimber(h)) {
                    self.nimber(a ^ b)
                } else {
                    let mut l = self.map_options(g, true, |s, x| s.add(x, h));
                    l.extend(self.map_options(h, true, |s, x| s.add(g, x)));
                    let mut r = self.map_options(g, false, |s, x| s.add(x, h));
                    r.extend(self.map_options(h, false, |s, x| s.add(g, x)));
                    self.game(&l, &r)
                }
            }
        };
        self.sum_memo.insert((g, h), s);
        s
    }

    /// A game that is not a number plus a number: move only in the game.
    ///
    /// The translated options of a canonical form are already canonical, so they are interned
    /// without being weighed again. For G canonical and not a number, and x a number,
    /// {G^L + x | G^R + x} is canonical: no option dominates another (adding x keeps the
    /// order); an option G^L + x with G^L not a number is (by induction) {G^LL + x | G^LR + x},
    /// and G^LR + x ≤ G + x would make G^L reversible in G; and an option y + x with G^L = y a
    /// number is not reversible either: were some number w > y at most G, then
    /// L(G) ≥ R(G) ≥ w, so some other Left option H has R(H) ≥ w > y, hence H > y, and y
    /// would be dominated in G. The same holds for Right's options.
    fn translate(&mut self, g: GameId, x: GameId) -> GameId {
        let l = self.map_options(g, true, |s, o| s.add(o, x));
        let r = self.map_options(g, false, |s, o| s.add(o, x));
        let t = self.intern(l.clone(), r.clone());
        debug_assert_eq!(
            self.game(&l, &r),
            t,
            "a translated canonical form is canonical"
        );
        t
    }

    /// g − h.
    pub fn sub(&mut self, g: GameId, h: GameId) -> GameId {
        let n = self.neg(h);
        self.add(g, n)
    }

    /// The sum of many games.
    pub fn sum(&mut self, games: &[GameId]) -> GameId {
        games.iter().fold(self.zero(), |acc, &g| self.add(acc, g))
    }

    /// Left's and Right's stops: where play ends when both play the hottest move.
    pub fn stops(&mut self, g: GameId) -> (Dyadic, Dyadic) {
        if let Some(x) = self.as_number(g) {
            return (x.clone(), x.clone());
        }
        if let Some(s) = self.stops.get(&g) {
            return s.clone();
        }
        let l = self.left(g);
        let r = self.right(g);
        let ls = l
            .iter()
            .map(|&o| self.stops(o).1)
            .max()
            .expect("a canonical game that is not a number has left options");
        let rs = r
            .iter()
            .map(|&o| self.stops(o).0)
            .min()
            .expect("a canonical game that is not a number has right options");
        self.stops.insert(g, (ls.clone(), rs.clone()));
        (ls, rs)
    }

    /// The day the canonical form is born.
    pub fn birthday(&mut self, g: GameId) -> u64 {
        if let Some(x) = self.as_number(g) {
            return x.birthday();
        }
        if let Some(&b) = self.birthdays.get(&g) {
            return b;
        }
        let l = self.left(g);
        let r = self.right(g);
        let b = l
            .iter()
            .chain(r.iter())
            .map(|&o| self.birthday(o))
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        self.birthdays.insert(g, b);
        b
    }
}

#[cfg(test)]
mod tests;
