use rand::RngExt;
use solvedgym::env::AecEnv;
use solvedgym::game::{Game, Turn};
use solvedgym::games::TicTacToe;
use solvedgym::learn::{LearnerConfig, play_self};
use solvedgym::tabulated::Tabulated;

fn main() {
    let episodes: u64 = std::env::args()
        .nth(1)
        .map_or(2_000_000, |s| s.parse().unwrap());
    let game = Tabulated::new(&TicTacToe, 1 << 20).unwrap();
    let n = game.action_index_len().unwrap();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let runs = |m: &str| if mode.is_empty() || mode == m { 3 } else { 0 };
    for _ in 0..runs("fast") {
        let mut q = vec![0.0f64; n];
        let mut rng = solvedgym::rng(0);
        let t = std::time::Instant::now();
        let mut eps = 1.0f64;
        for e in 0..episodes {
            let mut s = game.initial_state();
            let mut ply = 0u32;
            let mut pend: [Option<(usize, u32)>; 2] = [None, None];
            let mut last: Option<usize> = None;
            loop {
                let seat = match game.turn(&s) {
                    Turn::Player(p) => p,
                    _ => break,
                };
                let legal = game.legal_actions_in_place(&s).unwrap();
                let row = game.action_index(&s);
                let vals = &q[row.clone()];
                let mut local = rng.clone();
                let (choice, greedy) = if eps > 0.0 && local.random::<f64>() < eps {
                    rng = local;
                    (rng.random_range(0..vals.len()), None)
                } else {
                    let mut best = 0;
                    let mut bv = vals[0];
                    let mut ties = 1u32;
                    for i in 1..vals.len() {
                        let v = vals[i];
                        if v > bv {
                            best = i;
                            bv = v;
                            ties = 1;
                        } else if v == bv {
                            ties += 1;
                            if local.random_range(0..ties) == 0 {
                                best = i;
                            }
                        }
                    }
                    rng = local;
                    (best, Some(bv))
                };
                // backup
                let b = if let Some(o) = last
                    && o != seat
                    && let Some((slot, _)) = pend[o].take()
                {
                    Some((slot, -1.0))
                } else {
                    pend[seat].take().map(|(slot, _)| (slot, 1.0))
                };
                if let Some((slot, sign)) = b {
                    let next = greedy.unwrap_or_else(|| {
                        q[row.clone()]
                            .iter()
                            .copied()
                            .fold(f64::NEG_INFINITY, f64::max)
                    });
                    let target = sign * next;
                    q[slot] += 0.5 * (target - q[slot]);
                }
                pend[seat] = Some((row.start + choice, ply));
                last = Some(seat);
                let a = legal[choice];
                s = game.apply_legal(&s, choice, a);
                ply += 1;
            }
            let r = game.returns(&s);
            for seat in 0..2 {
                if let Some((slot, _)) = pend[seat].take() {
                    let target = r[seat];
                    q[slot] += 0.5 * (target - q[slot]);
                }
            }
            eps = (-((e + 1) as f64) / 100_000.0).exp2();
        }
        let secs = t.elapsed().as_secs_f64();
        let mut sum = 0.0;
        for i in 0..game.state_index_len().unwrap() {
            let s = game.state_from_index(i).unwrap();
            if matches!(game.turn(&s), Turn::Player(_)) {
                sum += q[game.action_index(&s)]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
            }
        }
        println!(
            "fast: {:.0} episodes/s  checksum {sum}",
            episodes as f64 / secs
        );
    }
    for _ in 0..runs("call") {
        let mut q = vec![0.0f64; n];
        let mut rng = solvedgym::rng(0);
        let t = std::time::Instant::now();
        let mut eps = 1.0f64;
        for e in 0..episodes {
            let mut s = game.initial_state();
            let mut ply = 0u32;
            let mut pend: [Option<(usize, u32)>; 2] = [None, None];
            let mut last: Option<usize> = None;
            loop {
                let seat = match game.turn(&s) {
                    Turn::Player(p) => p,
                    _ => break,
                };
                let legal = game.legal_actions_in_place(&s).unwrap();
                let row = game.action_index(&s);
                let vals = &q[row.clone()];
                let (choice, greedy) = choose(vals, eps, &mut rng);
                // backup
                let b = if let Some(o) = last
                    && o != seat
                    && let Some((slot, _)) = pend[o].take()
                {
                    Some((slot, -1.0))
                } else {
                    pend[seat].take().map(|(slot, _)| (slot, 1.0))
                };
                if let Some((slot, sign)) = b {
                    let next = greedy.unwrap_or_else(|| {
                        q[row.clone()]
                            .iter()
                            .copied()
                            .fold(f64::NEG_INFINITY, f64::max)
                    });
                    let target = sign * next;
                    q[slot] += 0.5 * (target - q[slot]);
                }
                pend[seat] = Some((row.start + choice, ply));
                last = Some(seat);
                let a = legal[choice];
                s = game.apply_legal(&s, choice, a);
                ply += 1;
            }
            let r = game.returns(&s);
            for seat in 0..2 {
                if let Some((slot, _)) = pend[seat].take() {
                    let target = r[seat];
                    q[slot] += 0.5 * (target - q[slot]);
                }
            }
            eps = (-((e + 1) as f64) / 100_000.0).exp2();
        }
        let secs = t.elapsed().as_secs_f64();
        let mut sum = 0.0;
        for i in 0..game.state_index_len().unwrap() {
            let s = game.state_from_index(i).unwrap();
            if matches!(game.turn(&s), Turn::Player(_)) {
                sum += q[game.action_index(&s)]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
            }
        }
        println!(
            "call: {:.0} episodes/s  checksum {sum}",
            episodes as f64 / secs
        );
    }
    for _ in 0..runs("env") {
        let mut env = AecEnv::new(game.clone(), 0);
        let mut q = vec![0.0f64; n];
        let mut rng = solvedgym::rng(0);
        let t = std::time::Instant::now();
        let mut eps = 1.0f64;
        for e in 0..episodes {
            env.reset(None);
            let mut ply = 0u32;
            let mut pend: [Option<(usize, u32)>; 2] = [None, None];
            let mut last: Option<usize> = None;
            loop {
                let Some((seat, legal)) = env.to_move() else {
                    break;
                };
                let row = game.action_index(env.state());
                let vals = &q[row.clone()];
                let mut local = rng.clone();
                let (choice, greedy) = if eps > 0.0 && local.random::<f64>() < eps {
                    rng = local;
                    (rng.random_range(0..vals.len()), None)
                } else {
                    let mut best = 0;
                    let mut bv = vals[0];
                    let mut ties = 1u32;
                    for i in 1..vals.len() {
                        let v = vals[i];
                        if v > bv {
                            best = i;
                            bv = v;
                            ties = 1;
                        } else if v == bv {
                            ties += 1;
                            if local.random_range(0..ties) == 0 {
                                best = i;
                            }
                        }
                    }
                    rng = local;
                    (best, Some(bv))
                };
                // backup
                let b = if let Some(o) = last
                    && o != seat
                    && let Some((slot, _)) = pend[o].take()
                {
                    Some((slot, -1.0))
                } else {
                    pend[seat].take().map(|(slot, _)| (slot, 1.0))
                };
                if let Some((slot, sign)) = b {
                    let next = greedy.unwrap_or_else(|| {
                        q[row.clone()]
                            .iter()
                            .copied()
                            .fold(f64::NEG_INFINITY, f64::max)
                    });
                    let target = sign * next;
                    q[slot] += 0.5 * (target - q[slot]);
                }
                pend[seat] = Some((row.start + choice, ply));
                last = Some(seat);
                let a = legal[choice];
                let _ = a;
                env.step_at(choice).unwrap();
                ply += 1;
            }
            let r = env.returns().unwrap();
            for seat in 0..2 {
                if let Some((slot, _)) = pend[seat].take() {
                    let target = r[seat];
                    q[slot] += 0.5 * (target - q[slot]);
                }
            }
            eps = (-((e + 1) as f64) / 100_000.0).exp2();
        }
        let secs = t.elapsed().as_secs_f64();
        let mut sum = 0.0;
        for i in 0..game.state_index_len().unwrap() {
            let s = game.state_from_index(i).unwrap();
            if matches!(game.turn(&s), Turn::Player(_)) {
                sum += q[game.action_index(&s)]
                    .iter()
                    .copied()
                    .fold(f64::NEG_INFINITY, f64::max);
            }
        }
        println!(
            "env:  {:.0} episodes/s  checksum {sum}",
            episodes as f64 / secs
        );
    }
    if runs("ref") == 0 {
        return;
    }
    // reference
    let config = LearnerConfig::deserialize("q-learning", toml::Value::Table(Default::default()))
        .unwrap()
        .unwrap();
    let mut learner = config.build(&game, "q".into());
    let mut env = AecEnv::new(game.clone(), 0);
    let mut rng = solvedgym::rng(0);
    let t = std::time::Instant::now();
    for _ in 0..episodes {
        play_self(&mut env, learner.as_mut(), &mut rng);
    }
    let secs = t.elapsed().as_secs_f64();
    let mut sum = 0.0;
    for i in 0..game.state_index_len().unwrap() {
        let s = game.state_from_index(i).unwrap();
        if matches!(game.turn(&s), Turn::Player(_)) {
            sum += learner.value(&game, &s).unwrap();
        }
    }
    println!(
        "ref:  {:.0} episodes/s  checksum {sum}",
        episodes as f64 / secs
    );
}

#[inline(never)]
fn choose(vals: &[f64], eps: f64, rng: &mut solvedgym::SgRng) -> (usize, Option<f64>) {
    let mut local = rng.clone();
    if eps > 0.0 && local.random::<f64>() < eps {
        *rng = local;
        return (rng.random_range(0..vals.len()), None);
    }
    let mut best = 0;
    let mut bv = vals[0];
    let mut ties = 1u32;
    for i in 1..vals.len() {
        let v = vals[i];
        if v > bv {
            best = i;
            bv = v;
            ties = 1;
        } else if v == bv {
            ties += 1;
            if local.random_range(0..ties) == 0 {
                best = i;
            }
        }
    }
    *rng = local;
    (best, Some(bv))
}
