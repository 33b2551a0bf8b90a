//! Rules tests: the hand-derived vectors of the rules file (§1.6b), every cell type, every
//! card of both decks, the finishing limits by place, the stuck rule, the round cap and the
//! returns, and the position notation. Positions are written in the notation itself.

use super::*;
use crate::core::game::GameResult;

fn game(players: usize) -> HaseUndIgel {
    HaseUndIgel::new(HaseUndIgelParams {
        players,
        ..HaseUndIgelParams::default()
    })
    .unwrap()
}

fn with(params: HaseUndIgelParams) -> HaseUndIgel {
    HaseUndIgel::new(params).unwrap()
}

fn at(g: &HaseUndIgel, json: &str) -> HaseIgelState {
    g.read_position(json)
        .unwrap_or_else(|e| panic!("{e}: {json}"))
}

fn codes(g: &HaseUndIgel, s: &HaseIgelState) -> Vec<i32> {
    let mut legal = Vec::new();
    g.legal_actions(s, &mut legal);
    legal.iter().map(|&a| g.code_of_action(a)).collect()
}

fn play(g: &HaseUndIgel, s: &HaseIgelState, code: i32) -> HaseIgelState {
    let a = g.action_of_code(code).unwrap();
    g.try_apply(s, a)
        .unwrap_or_else(|e| panic!("{code}: {e}\n{}", g.render(s)))
}

fn draw(g: &HaseUndIgel, s: &HaseIgelState, card: Card) -> HaseIgelState {
    assert_eq!(g.turn(s), Turn::Chance, "{}", g.render(s));
    g.try_apply(s, card.index() as Action).unwrap()
}

#[test]
fn opening_moves_and_costs() {
    // §1.6b: 68 carrots, 3 salads: cells 1..10 (11 is a hedgehog, 12 costs 78).
    let g = game(3);
    let s = g.initial_state();
    assert_eq!(codes(&g, &s), (1..=10).collect::<Vec<_>>());
    let after = play(&g, &s, 10);
    assert_eq!(after.hares[0].cell, 10);
    assert_eq!(after.hares[0].carrots, 13);
    assert_eq!(after.hares[0].flags, EAT, "arriving on a salad cell");
    // 98 carrots with five or six players: reach 13.
    let g6 = game(6);
    assert_eq!(g6.initial_state().hares[5].carrots, 98);
    assert_eq!(*codes(&g6, &g6.initial_state()).last().unwrap(), 13);
}

#[test]
fn hedgehogs_backwards_only_to_the_nearest_free_one() {
    let g = game(2);
    // From 14 back to 11: +30; from 12: +10.
    let s = at(
        &g,
        r#"{"hares":[{"cell":14,"carrots":5,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    assert!(codes(&g, &s).contains(&-3));
    assert_eq!(
        play(&g, &s, -3).hares[0],
        Hare {
            cell: 11,
            carrots: 35,
            salads: 3,
            ..Hare::default()
        }
    );
    let s = at(
        &g,
        r#"{"hares":[{"cell":12,"carrots":0,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(codes(&g, &s), [-1]);
    assert_eq!(play(&g, &s, -1).hares[0].carrots, 10);
    // No hedgehog behind cells 1..11 on the 2008 board.
    for cell in 1..=11 {
        let s = at(
            &g,
            &format!(
                r#"{{"hares":[{{"cell":{cell},"carrots":1,"salads":0}},{{"cell":0,"carrots":5,"salads":3}}]}}"#
            ),
        );
        let c = codes(&g, &s);
        assert!(
            c.iter().all(|&c| c >= 0 || c == -cell),
            "cell {cell}: {c:?}"
        );
    }
    // The nearest hedgehog occupied: no backward move (no skipping to an earlier one).
    let s = at(
        &g,
        r#"{"hares":[{"cell":18,"carrots":50,"salads":3},{"cell":15,"carrots":5,"salads":3}]}"#,
    );
    assert!(codes(&g, &s).iter().all(|&c| c > 0));
    // From a hedgehog, back to the next one; never forward onto one.
    let s = at(
        &g,
        r#"{"hares":[{"cell":15,"carrots":50,"salads":3},{"cell":0,"carrots":5,"salads":3}]}"#,
    );
    let c = codes(&g, &s);
    assert_eq!(c[0], -4);
    assert!(!c.contains(&4), "19 is a hedgehog");
    // The classic board has a hedgehog on 8: from 9 or 10 back to it.
    let a = with(HaseUndIgelParams {
        players: 2,
        board: "classic".into(),
        ..Default::default()
    });
    let s = at(
        &a,
        r#"{"hares":[{"cell":10,"carrots":0,"salads":3},{"cell":0,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(codes(&a, &s), [-2]);
}

#[test]
fn occupied_cells_count_but_cannot_be_entered() {
    let g = game(2);
    let s = at(
        &g,
        r#"{"hares":[{"cell":0,"carrots":10,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    // 2 is taken; 3 costs 6 and counts the occupied cell; 4 costs 10.
    assert_eq!(codes(&g, &s), [1, 3, 4]);
    assert_eq!(play(&g, &s, 3).hares[0].carrots, 4);
}

#[test]
fn carrot_cells_take_and_give_ten() {
    let g = game(2);
    let s = at(
        &g,
        r#"{"hares":[{"cell":13,"carrots":9,"salads":3},{"cell":0,"carrots":5,"salads":3}]}"#,
    );
    let c = codes(&g, &s);
    assert!(
        c.contains(&TAKE_10) && !c.contains(&GIVE_10),
        "giving needs 10: {c:?}"
    );
    assert_eq!(play(&g, &s, TAKE_10).hares[0].carrots, 19);
    let s = at(
        &g,
        r#"{"hares":[{"cell":13,"carrots":25,"salads":3},{"cell":0,"carrots":5,"salads":3}]}"#,
    );
    let after = play(&g, &s, GIVE_10);
    assert_eq!((after.hares[0].cell, after.hares[0].carrots), (13, 15));
    // Staying is the only way to stand still: a number cell offers no stay.
    let s = at(
        &g,
        r#"{"hares":[{"cell":12,"carrots":25,"salads":3},{"cell":0,"carrots":5,"salads":3}]}"#,
    );
    assert!(!codes(&g, &s).contains(&0) && !codes(&g, &s).contains(&TAKE_10));
}

#[test]
fn salads_are_entered_with_a_salad_eaten_the_next_turn_then_left() {
    let g = game(3);
    // Without a salad the salad cell 10 is closed.
    let s = at(
        &g,
        r#"{"hares":[{"cell":7,"carrots":30,"salads":0},{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":68,"salads":3}]}"#,
    );
    assert!(!codes(&g, &s).contains(&3));
    // §1.6b: eaten while 3rd: +30.
    let s = at(
        &g,
        r#"{"to_move":2,"hares":[{"cell":20,"carrots":30,"salads":1},{"cell":14,"carrots":30,"salads":3},{"cell":10,"carrots":5,"salads":3,"eat":true}]}"#,
    );
    assert_eq!(codes(&g, &s), [0]);
    let after = play(&g, &s, 0);
    assert_eq!(
        after.hares[2],
        Hare {
            cell: 10,
            carrots: 35,
            salads: 2,
            ..Hare::default()
        }
    );
    // The turn after, the hare must leave: no stay, no second salad.
    let mut back = after;
    back.to_move = 2;
    assert!(codes(&g, &back).iter().all(|&c| c != 0));
}

#[test]
fn number_cells_pay_at_the_start_of_the_next_turn_by_rank() {
    let g = game(3);
    // Red moves; green on a "2" while 2nd gets 20 when its turn starts.
    let s = at(
        &g,
        r#"{"hares":[{"cell":20,"carrots":30,"salads":3},{"cell":8,"carrots":5,"salads":3},{"cell":5,"carrots":5,"salads":3}]}"#,
    );
    let after = play(&g, &s, 1);
    assert_eq!(after.to_move, 1);
    assert_eq!(after.hares[1].carrots, 25);
    // "3" while 2nd pays nothing.
    let s = at(
        &g,
        r#"{"hares":[{"cell":20,"carrots":30,"salads":3},{"cell":4,"carrots":5,"salads":3},{"cell":1,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(play(&g, &s, 1).hares[1].carrots, 5);
    // Rank is taken when the turn starts, not on arrival: red jumps past green first.
    let s = at(
        &g,
        r#"{"hares":[{"cell":3,"carrots":30,"salads":3},{"cell":4,"carrots":5,"salads":3},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    // Green arrived 2nd on the "3"; red passes it, so it starts its turn 3rd: +30.
    assert_eq!(play(&g, &s, 2).hares[1].carrots, 35);
    let g5 = game(5);
    // "1/5/6" while 5th: +50; while 1st: +10.
    let s = at(
        &g5,
        r#"{"hares":[{"cell":12,"carrots":30,"salads":3},{"cell":7,"carrots":0,"salads":3},{"cell":20,"carrots":5,"salads":3},{"cell":21,"carrots":5,"salads":3},{"cell":23,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(play(&g5, &s, 1).hares[1].carrots, 50);
    let s = at(
        &g5,
        r#"{"hares":[{"cell":12,"carrots":30,"salads":3},{"cell":16,"carrots":0,"salads":3},{"cell":2,"carrots":5,"salads":3},{"cell":3,"carrots":5,"salads":3},{"cell":5,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(play(&g5, &s, 1).hares[1].carrots, 10);
}

#[test]
fn the_goal_takes_no_salad_and_at_most_ten_carrots_per_place() {
    // §1.6b: on 60 with 16 carrots, jump 4 (cost 10) leaves 6: legal as first.
    let ranks = with(HaseUndIgelParams {
        players: 3,
        end: End::Ranks,
        ..Default::default()
    });
    let s = at(
        &ranks,
        r#"{"hares":[{"cell":60,"carrots":16,"salads":0},{"cell":30,"carrots":5,"salads":3},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    assert!(codes(&ranks, &s).contains(&4));
    let after = play(&ranks, &s, 4);
    assert_eq!((after.hares[0].cell, after.hares[0].place), (64, 1));
    assert_eq!(after.phase, Phase::Move, "ranks: the race goes on");
    // §1.6b: on 58 with 40 carrots, jump 6 (cost 21) leaves 19: illegal as 1st, legal as 2nd.
    let s = at(
        &ranks,
        r#"{"hares":[{"cell":58,"carrots":40,"salads":0},{"cell":30,"carrots":5,"salads":3},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    assert!(!codes(&ranks, &s).contains(&6));
    let s = at(
        &ranks,
        r#"{"hares":[{"cell":58,"carrots":40,"salads":0},{"cell":64,"carrots":5,"salads":0,"place":1},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    assert!(codes(&ranks, &s).contains(&6));
    // With a salad left the goal is closed.
    let s = at(
        &ranks,
        r#"{"hares":[{"cell":60,"carrots":16,"salads":1},{"cell":30,"carrots":5,"salads":3},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    assert!(!codes(&ranks, &s).contains(&4));
    // Finished hares count as ahead and have no turns; the last one home ends the race.
    let s = at(
        &ranks,
        r#"{"to_move":2,"hares":[{"cell":64,"carrots":5,"salads":0,"place":1},{"cell":30,"carrots":5,"salads":3},{"cell":61,"carrots":8,"salads":0}]}"#,
    );
    assert_eq!(ranks.rank(&s, 1), 3);
    let over = play(&ranks, &s, 3);
    assert_eq!(over.phase, Phase::Over);
    assert_eq!(ranks.returns(&over).as_slice(), [1.0, -1.0, 0.0]);
    // First to finish wins by default.
    let g = game(3);
    let s = at(
        &g,
        r#"{"hares":[{"cell":60,"carrots":16,"salads":0},{"cell":30,"carrots":5,"salads":3},{"cell":20,"carrots":5,"salads":3}]}"#,
    );
    let over = play(&g, &s, 4);
    assert_eq!(g.turn(&over), Turn::Terminal);
    assert_eq!(g.returns(&over).as_slice(), [1.0, -0.5, -0.5]);
    assert!(!g.is_cut_off(&over));
}

#[test]
fn the_stuck_rule_sends_a_hare_back_to_the_start() {
    let g = game(3);
    // No carrots, not on a carrot cell, the hedgehog behind taken: back to the start with 68.
    let s = at(
        &g,
        r#"{"hares":[{"cell":14,"carrots":0,"salads":2},{"cell":11,"carrots":5,"salads":3},{"cell":0,"carrots":68,"salads":3}]}"#,
    );
    assert_eq!(codes(&g, &s), [-14]);
    assert_eq!(
        g.move_event(&s, g.action_of_code(-14).unwrap()),
        Some("stuck rule")
    );
    let after = play(&g, &s, -14);
    assert_eq!(
        after.hares[0],
        Hare {
            cell: 0,
            carrots: 68,
            salads: 2,
            ..Hare::default()
        }
    );
    // Carrots but no move at all (every reachable cell blocked) is stuck too.
    let s = at(
        &g,
        r#"{"hares":[{"cell":12,"carrots":2,"salads":3},{"cell":13,"carrots":5,"salads":3},{"cell":11,"carrots":68,"salads":3}]}"#,
    );
    assert_eq!(codes(&g, &s), [-12]);
    // On a carrot cell a hare is never stuck.
    let s = at(
        &g,
        r#"{"hares":[{"cell":13,"carrots":0,"salads":3},{"cell":14,"carrots":5,"salads":3},{"cell":11,"carrots":68,"salads":3}]}"#,
    );
    assert_eq!(codes(&g, &s), [TAKE_10]);
}

fn card_game(players: usize, deck: Deck) -> HaseUndIgel {
    with(HaseUndIgelParams {
        players,
        deck,
        ..Default::default()
    })
}

#[test]
fn landing_on_a_hare_cell_draws_a_card() {
    let g = game(3);
    let s = g.initial_state();
    let drawn = play(&g, &s, 1);
    assert_eq!(g.turn(&drawn), Turn::Chance);
    assert_eq!(drawn.paid, 1);
    let mut outcomes = Vec::new();
    g.chance_outcomes(&drawn, &mut outcomes);
    assert_eq!(outcomes.len(), 8);
    let p: Vec<f64> = outcomes.iter().map(|o| o.1).collect();
    assert!((p[0] - 2.0 / 15.0).abs() < 1e-12 && (p[7] - 1.0 / 15.0).abs() < 1e-12);
    // No deck: hare cells are plain.
    let plain = card_game(3, Deck::none());
    assert_eq!(plain.turn(&play(&plain, &s, 1)), Turn::Player(1));
    assert!(!plain.capabilities().chance);
}

/// Red lands on hare cell 14 from `from` with `carrots`, others as given; returns the state
/// at the draw.
fn landing(g: &HaseUndIgel, red: &str, others: &str, code: i32) -> HaseIgelState {
    let s = at(g, &format!(r#"{{"hares":[{red},{others}]}}"#));
    let s = play(g, &s, code);
    assert_eq!(g.turn(&s), Turn::Chance, "{}", g.render(&s));
    s
}

#[test]
fn the_2008_cards() {
    let g = game(3);
    let red = r#"{"cell":12,"carrots":40,"salads":2}"#;
    let behind_two = r#"{"cell":5,"carrots":7,"salads":3},{"cell":0,"carrots":68,"salads":3}"#;
    let s = landing(&g, red, behind_two, 2); // pays 3, 37 left
    // Give 10 to each hare behind (two): 17 left.
    let a = draw(&g, &s, Card::GiveBehind);
    assert_eq!(
        [a.hares[0].carrots, a.hares[1].carrots, a.hares[2].carrots],
        [17, 17, 78]
    );
    assert_eq!(a.to_move, 1);
    // Not enough for all: nobody gets anything.
    let poor = landing(&g, r#"{"cell":12,"carrots":20,"salads":2}"#, behind_two, 2);
    assert_eq!(draw(&g, &poor, Card::GiveBehind).hares[0].carrots, 17);
    // More behind than ahead: miss a turn; otherwise move again.
    let a = draw(&g, &s, Card::AheadOrBehind);
    assert_eq!((a.hares[0].flags, a.to_move), (SKIP, 1));
    let next = play(&g, &a, 1);
    let mut red_again = next;
    red_again.to_move = 0;
    red_again.phase = Phase::Move;
    assert_eq!(codes(&g, &red_again), [0]);
    let level = landing(
        &g,
        red,
        r#"{"cell":30,"carrots":7,"salads":3},{"cell":0,"carrots":68,"salads":3}"#,
        2,
    );
    let a = draw(&g, &level, Card::AheadOrBehind);
    assert_eq!((a.to_move, a.extra, a.phase), (0, 1, Phase::Move));
    assert!(g.render(&a).contains("red moves again"));
    // Exactly 65; 10 per salad (none: miss a turn); lose half (the half rounded down).
    assert_eq!(draw(&g, &s, Card::SixtyFive).hares[0].carrots, 65);
    assert_eq!(draw(&g, &s, Card::SaladCarrots).hares[0].carrots, 57);
    let saladless = landing(&g, r#"{"cell":12,"carrots":40,"salads":0}"#, behind_two, 2);
    assert_eq!(
        draw(&g, &saladless, Card::SaladCarrots).hares[0].flags,
        SKIP
    );
    assert_eq!(draw(&g, &s, Card::Halve).hares[0].carrots, 19, "37 - 18");
    // The last move free; show changes nothing; shuffle: one carrot from each other hare.
    assert_eq!(draw(&g, &s, Card::Refund).hares[0].carrots, 40);
    let shown = draw(&g, &s, Card::Show);
    assert_eq!(
        (shown.hares, shown.to_move),
        (
            {
                let mut h = s.hares;
                h[0].carrots = 37;
                h
            },
            1
        )
    );
    let a = draw(&g, &s, Card::Shuffle);
    assert_eq!(
        [a.hares[0].carrots, a.hares[1].carrots, a.hares[2].carrots],
        [39, 6, 67]
    );
}

#[test]
fn the_classic_cards() {
    let g = card_game(3, Deck::classic());
    let red = r#"{"cell":12,"carrots":40,"salads":2}"#;
    let others = r#"{"cell":13,"carrots":7,"salads":3},{"cell":20,"carrots":68,"salads":3}"#;
    let s = landing(&g, red, others, 2);
    // Eat a salad at once: as on a salad cell.
    let a = draw(&g, &s, Card::EatSalad);
    assert_eq!(a.hares[0].flags, EAT);
    // Move again.
    let a = draw(&g, &s, Card::MoveAgain);
    assert_eq!((a.to_move, a.extra), (0, 1));
    // Move up: to the first free cell in front of the next hare ahead (20 -> 21).
    assert_eq!(draw(&g, &s, Card::HurryAhead).hares[0].cell, 21);
    // Fall back: behind the next hare behind (13 -> 12).
    assert_eq!(draw(&g, &s, Card::FallBack).hares[0].cell, 12);
    // Next and previous carrot cells (21 ahead; 13 behind is taken: no effect).
    assert_eq!(draw(&g, &s, Card::NextCarrot).hares[0].cell, 21);
    assert_eq!(draw(&g, &s, Card::PreviousCarrot).hares[0].cell, 14);
    let free = landing(
        &g,
        red,
        r#"{"cell":5,"carrots":7,"salads":3},{"cell":20,"carrots":68,"salads":3}"#,
        2,
    );
    assert_eq!(draw(&g, &free, Card::PreviousCarrot).hares[0].cell, 13);
    // Fall back over a salad cell when holding no salad: behind green on 11? 11 is a
    // hedgehog, 10 a salad: a saladless hare lands on 9.
    let bare = landing(
        &g,
        r#"{"cell":12,"carrots":40,"salads":0}"#,
        r#"{"cell":11,"carrots":7,"salads":3},{"cell":20,"carrots":68,"salads":3}"#,
        2,
    );
    assert_eq!(draw(&g, &bare, Card::FallBack).hares[0].cell, 9);
    // Miss a turn; refund.
    assert_eq!(draw(&g, &s, Card::MissTurn).hares[0].flags, SKIP);
    assert_eq!(draw(&g, &s, Card::Refund).hares[0].carrots, 40);
    // Take or give: the hare chooses.
    let c = draw(&g, &s, Card::TakeOrGive);
    assert_eq!((g.turn(&c), c.phase), (Turn::Player(0), Phase::Choice));
    assert_eq!(codes(&g, &c), [0, TAKE_10, GIVE_10]);
    assert_eq!(play(&g, &c, GIVE_10).hares[0].carrots, 27);
    assert_eq!(play(&g, &c, TAKE_10).hares[0].carrots, 47);
    assert_eq!(play(&g, &c, 0).hares[0].carrots, 37);
    // Move up past the last hare with no salad and few carrots may reach the goal.
    let home = landing(
        &g,
        r#"{"cell":61,"carrots":10,"salads":0}"#,
        r#"{"cell":5,"carrots":7,"salads":3},{"cell":63,"carrots":68,"salads":3}"#,
        1,
    );
    let a = draw(&g, &home, Card::HurryAhead);
    assert_eq!((a.hares[0].cell, a.phase), (64, Phase::Over));
}

#[test]
fn extra_moves_are_capped() {
    let g = card_game(2, Deck::classic());
    let mut s = landing(
        &g,
        r#"{"cell":12,"carrots":40,"salads":2}"#,
        r#"{"cell":5,"carrots":7,"salads":3}"#,
        2,
    );
    s.extra = MAX_EXTRA;
    let a = draw(&g, &s, Card::MoveAgain);
    assert_eq!(a.to_move, 1, "the cap ends the turn");
}

#[test]
fn the_round_cap_ranks_by_progress_then_fewer_carrots() {
    let g = with(HaseUndIgelParams {
        players: 3,
        max_rounds: 1,
        ..Default::default()
    });
    let s = at(
        &g,
        r#"{"to_move":2,"hares":[{"cell":20,"carrots":30,"salads":3},{"cell":21,"carrots":40,"salads":3},{"cell":13,"carrots":9,"salads":3}]}"#,
    );
    let end = play(&g, &s, TAKE_10);
    assert_eq!(g.turn(&end), Turn::Terminal);
    assert!(g.is_cut_off(&end));
    assert_eq!(g.returns(&end).winner(), Some(1));
    assert!(g.render(&end).contains("round cap"));
    // Equal progress: fewer carrots ahead; all equal: a draw.
    let r = with(HaseUndIgelParams {
        players: 2,
        max_rounds: 1,
        end: End::Ranks,
        ..Default::default()
    });
    let s = at(
        &r,
        r#"{"to_move":1,"hares":[{"cell":0,"carrots":60,"salads":3},{"cell":0,"carrots":68,"salads":0}]}"#,
    );
    let mut s2 = s;
    s2.hares[1].cell = 13;
    let end = play(&r, &s2, TAKE_10);
    assert_eq!(r.returns(&end).as_slice(), [-1.0, 1.0]);
    let tie = at(
        &g,
        r#"{"to_move":2,"hares":[{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":68,"salads":3},{"cell":13,"carrots":100,"salads":3}]}"#,
    );
    let end = play(&g, &tie, GIVE_10);
    assert_eq!(g.returns(&end).result_for(2), GameResult::Win);
    let all = at(
        &g,
        r#"{"phase":"over","round":2,"hares":[{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":68,"salads":3}]}"#,
    );
    assert_eq!(g.returns(&all).as_slice(), [0.0, 0.0, 0.0]);
    let two = at(
        &g,
        r#"{"phase":"over","round":2,"hares":[{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":68,"salads":3},{"cell":0,"carrots":70,"salads":3}]}"#,
    );
    assert_eq!(g.returns(&two).as_slice(), [0.25, 0.25, -0.5]);
}

#[test]
fn returns_sum_to_zero_and_share_ties() {
    let g = with(HaseUndIgelParams {
        players: 4,
        max_rounds: 1,
        ..Default::default()
    });
    let mut s = g.initial_state();
    s.round = 1;
    s.to_move = 3;
    let end = play(&g, &s, 1); // lands on a hare cell: a draw first
    let end = draw(&g, &end, Card::Show);
    let r = g.returns(&end);
    // Yellow moved to cell 1 at the cap and leads alone.
    assert_eq!(r.winner(), Some(3));
    assert!(r.as_slice().iter().sum::<f64>().abs() < 1e-12);
    let r = HaseUndIgel::new(HaseUndIgelParams {
        players: 4,
        end: End::Ranks,
        ..Default::default()
    })
    .unwrap();
    let s = at(
        &r,
        r#"{"phase":"over","hares":[{"cell":64,"carrots":5,"salads":0,"place":2},{"cell":64,"carrots":5,"salads":0,"place":1},{"cell":30,"carrots":5,"salads":0},{"cell":64,"carrots":5,"salads":0,"place":3}]}"#,
    );
    let v = r.returns(&s);
    assert_eq!(v.as_slice(), [1.0 / 3.0, 1.0, -1.0, -1.0 / 3.0]);
}

#[test]
fn moves_print_and_parse_in_the_seed_codes() {
    let g = game(2);
    let s = at(
        &g,
        r#"{"hares":[{"cell":14,"carrots":40,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    let a = g.parse_action(&s, "-3").unwrap();
    assert_eq!(g.action_to_string(&s, a), "-3");
    assert_eq!(
        g.parse_action(&s, "+2").unwrap(),
        g.parse_action(&s, "2").unwrap()
    );
    assert!(g.parse_action(&s, "11").is_err(), "19 is a hedgehog");
    let on_carrot = at(
        &g,
        r#"{"hares":[{"cell":13,"carrots":40,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(
        g.parse_action(&on_carrot, "take").unwrap(),
        g.action_of_code(1001).unwrap()
    );
    assert_eq!(
        g.action_to_string(&on_carrot, g.parse_action(&on_carrot, "1002").unwrap()),
        "1002"
    );
    // The order: backward, forward by distance, then 1001 and 1002 (numeric order of codes).
    let mut legal = Vec::new();
    g.legal_actions(&on_carrot, &mut legal);
    let c: Vec<i32> = legal.iter().map(|&a| g.code_of_action(a)).collect();
    let mut sorted = c.clone();
    sorted.sort_unstable();
    assert_eq!(c, sorted);
    assert_eq!(c[0], -2);
    assert_eq!(&c[c.len() - 2..], [1001, 1002]);
    assert!(
        g.describe_move(&on_carrot, legal[0])
            .contains("hedgehog on cell 11")
    );
}

#[test]
fn positions_round_trip_and_bad_ones_are_named() {
    let g = game(3);
    let mut s = g.initial_state();
    let mut r = crate::core::random::rng(5);
    let mut legal = Vec::new();
    let mut outcomes = Vec::new();
    use rand::RngExt;
    for _ in 0..400 {
        let json = g.position_json(&s).to_string();
        assert_eq!(g.read_position(&json).unwrap(), s, "{json}");
        match g.turn(&s) {
            Turn::Terminal => s = g.initial_state(),
            Turn::Chance => {
                g.chance_outcomes(&s, &mut outcomes);
                s = g.apply(&s, outcomes[r.random_range(0..outcomes.len())].0);
            }
            Turn::Player(_) => {
                g.legal_actions(&s, &mut legal);
                s = g.apply(&s, legal[r.random_range(0..legal.len())]);
            }
        }
    }
    for (json, want) in [
        (
            r#"{"hares":[{"cell":3,"carrots":1,"salads":0},{"cell":3,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "both stand on cell 3",
        ),
        (
            r#"{"hares":[{"cell":3,"carrots":1,"salads":0}]}"#,
            "1 hares and the game 3 players",
        ),
        (
            r#"{"hares":[{"cell":70,"carrots":1,"salads":0},{"cell":3,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "past the goal",
        ),
        (
            r#"{"to_move":"purple","hares":[{"cell":1,"carrots":1,"salads":0},{"cell":3,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "the hares are red, green, blue",
        ),
        (
            r#"{"hares":[{"cell":1,"carots":1,"salads":0},{"cell":3,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "unknown field `carots`",
        ),
        (
            r#"{"hares":[{"cell":3,"carrots":1,"salads":1,"eat":true},{"cell":4,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "a hare eats on a salad cell",
        ),
        (
            r#"{"hares":[{"cell":3,"carrots":1,"salads":9},{"cell":4,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "the game starts with 3",
        ),
        (
            r#"{"phase":"choice","hares":[{"cell":3,"carrots":1,"salads":1},{"cell":4,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "take-or-give card",
        ),
        (
            r#"{"phase":"over","hares":[{"cell":3,"carrots":1,"salads":1},{"cell":4,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "no hare has finished",
        ),
        (
            r#"{"phase":"card","paid":7,"hares":[{"cell":3,"carrots":1,"salads":1},{"cell":4,"carrots":1,"salads":0},{"cell":0,"carrots":1,"salads":0}]}"#,
            "paid = 7",
        ),
    ] {
        let err = g.read_position(json).unwrap_err();
        assert!(err.contains(want), "{err}");
    }
}

#[test]
fn carrots_count_past_65535_and_inputs_stop_at_the_documented_maximum() {
    // Once the counter stopped at 65,535 without a word: 65,530 + 30 is 65,560.
    let g = game(2);
    let s = at(
        &g,
        r#"{"hares":[{"cell":14,"carrots":65530,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(play(&g, &s, -3).hares[0].carrots, 65_560);
    // The largest input is read; one more is refused with the maximum named.
    let most = at(
        &g,
        r#"{"hares":[{"cell":14,"carrots":1000000000,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
    );
    assert_eq!(play(&g, &most, -3).hares[0].carrots, MAX_CARROTS + 30);
    let err = g
        .read_position(
            r#"{"hares":[{"cell":14,"carrots":1000000001,"salads":3},{"cell":2,"carrots":5,"salads":3}]}"#,
        )
        .unwrap_err();
    assert!(err.contains("at most 1,000,000,000"), "{err}");
    let err = HaseUndIgel::new(HaseUndIgelParams {
        carrots: Some(MAX_CARROTS + 1),
        ..HaseUndIgelParams::default()
    })
    .unwrap_err();
    assert!(err.to_string().contains("at most 1,000,000,000"), "{err}");
    assert!(
        HaseUndIgel::new(HaseUndIgelParams {
            carrots: Some(MAX_CARROTS),
            ..HaseUndIgelParams::default()
        })
        .is_ok()
    );
}
