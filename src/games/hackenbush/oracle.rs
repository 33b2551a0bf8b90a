//! Hackenbush's truth for the players and the evaluator: [`ValueOracle`], the enumerated
//! solution where a position is small enough, and its combinatorial values always.

use super::*;

/// The truth about a Hackenbush position: the enumerated solution where the position is small
/// enough (win or loss in plies: the exact evaluator, `play`), and the combinatorial values
/// always — beside the plies where a position or a move is described, and alone where the
/// position is too large to enumerate: then who wins follows from the value of the sum of the
/// parts, and a move keeps the value when its option is still a win for the mover.
pub struct ValueOracle {
    pub(super) game: Hackenbush,
    pub(super) solution: Option<crate::truth::Solution<Hackenbush>>,
    /// One value computer per position of the game, made when first asked.
    pub(super) values: Mutex<Vec<Option<Values>>>,
    /// The last position asked about, with its answer (`play`'s `?` asks once per move).
    pub(super) last: Mutex<Option<(HackenbushState, MovesAt)>>,
}

/// A position's value in CGSuite's notation, whether the mover wins, and each cut: the value
/// it leads to, whether the mover still wins, whether it is one of the mover's best.
type MovesAt = (String, bool, Vec<(Action, String, bool, bool)>);

/// Whether `player` wins a position of value `g` with `to_move` to move.
fn wins(
    st: &mut crate::truth::cgt::Store,
    g: crate::truth::cgt::GameId,
    to_move: Player,
    player: Player,
) -> bool {
    let o = st.outcome(g);
    let left_wins = if to_move == LEFT {
        o.left_wins_moving_first()
    } else {
        o.left_wins_moving_second()
    };
    left_wins == (player == LEFT)
}

impl ValueOracle {
    /// The oracle of the values alone (no enumeration), for positions of any size.
    pub fn values_only(game: &Hackenbush) -> Self {
        ValueOracle {
            game: game.clone(),
            solution: None,
            values: Mutex::new(Vec::new()),
            last: Mutex::new(None),
        }
    }

    /// The value of `s` in CGSuite's notation, and for each of the mover's cuts: the value it
    /// leads to, whether the mover still wins, and whether it is one of the mover's best.
    fn values_at(&self, s: &HackenbushState) -> MovesAt {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, answer)) = last.as_ref()
            && at == s
        {
            return answer.clone();
        }
        let answer = self.compute_values_at(s);
        *last = Some((s.clone(), answer.clone()));
        answer
    }

    fn compute_values_at(&self, s: &HackenbushState) -> MovesAt {
        let mut all = self.values.lock().unwrap_or_else(|e| e.into_inner());
        let board = s.board as usize;
        if all.len() <= board {
            all.resize_with(board + 1, || None);
        }
        let game = &self.game;
        let v = all[board].get_or_insert_with(|| game.values_on(game.others[board].clone()));
        let here = v.value(&s.alive);
        let p = s.to_move as Player;
        let mut legal = Vec::new();
        self.game.legal_actions(s, &mut legal);
        let opts: Vec<(Action, crate::truth::cgt::GameId)> = legal
            .iter()
            .map(|&a| (a, v.after(&s.alive, a as usize)))
            .collect();
        let st = &mut v.store;
        let text = st.show(here);
        let winning = wins(st, here, p, p);
        let mut out = Vec::new();
        for &(a, x) in &opts {
            let beaten = opts.iter().any(|&(_, y)| {
                if p == LEFT {
                    st.leq(x, y) && !st.leq(y, x)
                } else {
                    st.leq(y, x) && !st.leq(x, y)
                }
            });
            let still = wins(st, x, 1 - p, p);
            out.push((a, st.show(x), still, !beaten));
        }
        (text, winning, out)
    }

    fn winner_word(&self, s: &HackenbushState, mover_wins: bool) -> String {
        let p = s.to_move as Player;
        let w = if mover_wins { p } else { 1 - p };
        self.game.player_wins(w)
    }
}

impl crate::truth::oracle::Oracle<Hackenbush> for ValueOracle {
    fn game(&self) -> &Hackenbush {
        &self.game
    }
    fn value(&self, state: &HackenbushState) -> Option<crate::truth::Value> {
        self.solution.as_ref()?.value(state)
    }
    fn describe(&self, state: &HackenbushState) -> Option<String> {
        if state.board == DEAL {
            return Some(format!("a deal of {} positions", self.game.dealt.len()));
        }
        let (value, winning, _) = self.values_at(state);
        Some(match &self.solution {
            Some(sol) => format!(
                "value {value}; {}",
                crate::truth::oracle::Oracle::describe(sol, state)?
            ),
            None => format!("value {value}; {}", self.winner_word(state, winning)),
        })
    }
    fn move_value(&self, state: &HackenbushState, action: Action) -> Option<crate::truth::Value> {
        crate::truth::oracle::Oracle::move_value(self.solution.as_ref()?, state, action)
    }
    fn describe_move(&self, state: &HackenbushState, action: Action) -> Option<String> {
        if state.board == DEAL {
            return None;
        }
        let (_, _, moves) = self.values_at(state);
        let (_, value, still, best) = moves.into_iter().find(|m| m.0 == action)?;
        let best = if best { " (best)" } else { "" };
        Some(match &self.solution {
            Some(sol) => format!(
                "value {value}{best}; {}",
                crate::truth::oracle::Oracle::describe_move(sol, state, action)?
            ),
            None => format!("value {value}{best}; {}", self.winner_word(state, still)),
        })
    }
    fn keeps_value(&self, state: &HackenbushState, action: Action) -> Option<bool> {
        if let Some(sol) = &self.solution {
            return crate::truth::oracle::Oracle::keeps_value(sol, state, action);
        }
        if !matches!(self.game.turn(state), Turn::Player(_)) {
            return Some(true);
        }
        let (_, winning, moves) = self.values_at(state);
        let m = moves.into_iter().find(|m| m.0 == action)?;
        Some(m.2 == winning)
    }
    /// With the enumerated solution: optimal to the ply. From the values alone: the cuts that
    /// keep the mover's result, and of those the ones no other cut beats in value.
    fn optimal_actions(
        &self,
        state: &HackenbushState,
        legal: &[Action],
        out: &mut Vec<Action>,
    ) -> bool {
        if let Some(sol) = &self.solution {
            return crate::truth::oracle::Oracle::optimal_actions(sol, state, legal, out);
        }
        out.clear();
        if !matches!(self.game.turn(state), Turn::Player(_)) {
            return false;
        }
        let (_, winning, moves) = self.values_at(state);
        let keeping: Vec<&(Action, String, bool, bool)> =
            moves.iter().filter(|m| m.2 == winning).collect();
        let best: Vec<Action> = keeping.iter().filter(|m| m.3).map(|m| m.0).collect();
        let chosen: Vec<Action> = if best.is_empty() {
            keeping.iter().map(|m| m.0).collect()
        } else {
            best
        };
        out.extend(legal.iter().copied().filter(|a| chosen.contains(a)));
        !out.is_empty()
    }
    fn report(&self) -> crate::truth::SolveReport {
        if let Some(sol) = &self.solution {
            return sol.report();
        }
        let init = self.game.initial_state();
        let starts: Vec<HackenbushState> = if self.game.deals() {
            self.game
                .dealt
                .clone()
                .map(|i| self.game.apply(&init, i as Action))
                .collect()
        } else {
            vec![init]
        };
        let mut wins_left = 0usize;
        let mut first_value = String::new();
        let mut first_winning = false;
        for (i, s) in starts.iter().enumerate() {
            let (value, winning, _) = self.values_at(s);
            let w = if winning {
                self.game.first
            } else {
                1 - self.game.first
            };
            wins_left += usize::from(w == LEFT);
            if i == 0 {
                first_value = value;
                first_winning = winning;
            }
        }
        let (value, winning, start) = (first_value, first_winning, &starts[0]);
        let winner = self.winner_word(start, winning);
        let w = if winning {
            self.game.first
        } else {
            1 - self.game.first
        };
        let positions: usize = self
            .values
            .lock()
            .map(|all| all.iter().flatten().map(Values::positions).sum())
            .unwrap_or_default();
        let mut extra = std::collections::BTreeMap::new();
        extra.insert("value".to_string(), serde_json::json!(value));
        extra.insert("parts_valued".to_string(), serde_json::json!(positions));
        crate::truth::SolveReport {
            game: self.game.name().to_string(),
            params: self.game.params(),
            players: vec!["left".into(), "right".into()],
            // Not enumerated: the distinct parts valued are in `parts_valued`.
            states: 0,
            terminal_states: 0,
            games: "not counted (values, not enumeration)".into(),
            wins: Default::default(),
            draws: "0".into(),
            winner: (starts.len() == 1).then(|| self.game.player_name(w).to_string()),
            plies: None,
            start: if starts.len() == 1 {
                format!("value {value}: {winner}")
            } else {
                format!(
                    "a deal of {} positions: left wins {wins_left}, right wins {}",
                    starts.len(),
                    starts.len() - wins_left
                )
            },
            winning_states: Default::default(),
            seconds: None,
            extra,
        }
    }
}
