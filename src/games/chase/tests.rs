use super::*;
use crate::truth::Solution;

fn fh(size: usize, escape: Escape) -> Chase {
    Chase::fox_hounds(FoxHoundsParams { size, escape }).unwrap()
}

#[test]
fn start_positions_follow_the_references() {
    let g = fh(8, Escape::Area);
    let s = g.initial_state();
    assert_eq!(g.square_name(s.runner as usize), "e8");
    let names: Vec<_> = (0..32)
        .filter(|&q| s.pawns >> q & 1 != 0)
        .map(|q| g.square_name(q))
        .collect();
    assert_eq!(names, ["b1", "d1", "f1", "h1"]);
    let board = g.render(&s);
    assert!(board.contains("|* * F * |"), "{board}");
    assert!(board.contains("| H H H H|"), "{board}");
    // Hasenspiel: black on 0..3, white on 29 in mancap314/hasenspiel's numbering.
    let h = Chase::hasenspiel(HasenspielParams::default()).unwrap();
    let s = h.initial_state();
    assert_eq!(h.hasen_number(s.runner as usize), 29);
    let mut black: Vec<_> = (0..32)
        .filter(|&q| s.pawns >> q & 1 != 0)
        .map(|q| h.hasen_number(q))
        .collect();
    black.sort();
    assert_eq!(black, [0, 1, 2, 3]);
}

#[test]
fn two_by_two_fox_is_trapped_at_once() {
    let g = fh(2, Escape::Area);
    assert_eq!(g.winner(&g.initial_state()), Some(PAWNS));
}

#[test]
fn dense_index_round_trips() {
    let g = fh(6, Escape::Area);
    let sol = Solution::solve(&g, 100_000).unwrap();
    for s in sol.graph().states() {
        let i = g.state_index(s);
        assert!(i < g.state_index_len().unwrap());
        assert_eq!(g.state_from_index(i).as_ref(), Some(s));
    }
}

#[test]
fn published_small_boards() {
    for (size, states, games, value) in [
        (2, 1, "1", "hounds win in 0 plies"),
        (4, 83, "178", "hounds win in 8 plies"),
        (6, 8175, "982462133247", "fox wins in 21 plies"),
    ] {
        let g = fh(size, Escape::Area);
        let r = Solution::solve(&g, 1_000_000).unwrap().report();
        assert_eq!(
            (r.states, r.games.as_str()),
            (states, games),
            "{size}x{size}"
        );
        assert_eq!(r.start, value);
    }
}

#[test]
fn the_binomial_table_agrees_with_the_binomial_function() {
    for (k, row) in BINOMIALS.iter().enumerate() {
        for (n, &c) in row.iter().enumerate() {
            if let Some(exact) = binomial(n as u64, k as u64) {
                assert_eq!(c, exact, "C({n}, {k})");
            }
        }
    }
}

/// Board strings read back to every position of random games, in both games; bad ones say
/// which square is at fault.
#[test]
fn board_strings_round_trip_and_bad_ones_are_refused() {
    use crate::core::notation::check_round_trips;
    for g in [
        fh(4, Escape::Area),
        fh(8, Escape::Square),
        fh(16, Escape::Area),
        Chase::hasenspiel(HasenspielParams::default()).unwrap(),
    ] {
        assert!(check_round_trips(&g, 50, 400, 11, true).unwrap() > 50);
    }
    let g = fh(4, Escape::Area);
    assert_eq!(g.write_board(&g.initial_state()), "..f./..../..../.h.h fox");
    assert_eq!(g.read_board("..F./..../..../.H.H f"), Ok(g.initial_state()));
    let h = Chase::hasenspiel(HasenspielParams::default()).unwrap();
    let start = h.write_board(&h.initial_state());
    assert!(
        start.ends_with(" white") && start.starts_with("...w"),
        "{start}"
    );
    for (bad, says) in [
        ("..f./..../..../.hh. fox", "`h` at c1"),
        (
            "..f./..../..../.h.. fox",
            "1 h (hounds) on the board: the game has 2",
        ),
        ("..../..../..../.h.h fox", "no f (fox)"),
        ("f.f./..../..../.h.h fox", "two fox"),
        ("..f./..../..../.h.h", "no side to move"),
        ("..f./..x./..../.h.h fox", "`x` at c3"),
        ("..f./..../.h.h fox", "the game is 4x4 (--size 4)"),
    ] {
        let e = g.read_board(bad).unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}
