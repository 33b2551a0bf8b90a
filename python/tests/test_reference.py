"""Every figure of `Solution.evaluate` checked against an independent reference evaluator.

The reference is a plain recursion over the game tree, written here from the rules alone (the
game's `legal_actions`, `apply`, `returns`): its own minimax for the truth, its own perfect,
random and best-response opponents and its own counts of the positions a policy faces. It
reads nothing of the solution but the numbering of positions (`sol.index`), to find a table's
row. The figures `evaluate` returns come from the Rust dynamic programs over the solved graph;
the two must agree to 1e-9, per seat and with the default seats (every seat), for several
table policies and for a policy given as a callable in batches.
"""

from functools import lru_cache

import numpy as np
import pytest

import solvedgym

TOL = 1e-9


class Reference:
    """Exact figures of a table policy at one seat of a two-player game without chance."""

    def __init__(self, game, sol):
        self.game, self.sol = game, sol
        self.start = game.initial_state()
        self.states = {}  # key -> state
        self._value = {}

    def key(self, s):
        k = self.game.write_state_key(s)
        self.states.setdefault(k, s)
        return k

    def children(self, s):
        return [(a, self.game.apply(s, a)) for a in self.game.legal_actions(s)]

    def value(self, s):
        """(winner or None, plies to the end) under perfect play: the fastest win, the
        longest defence."""
        k = self.key(s)
        if k in self._value:
            return self._value[k]
        if self.game.is_terminal(s):
            r = self.game.returns(s)
            v = (int(np.argmax(r)) if max(r) > min(r) else None, 0)
        else:
            p = self.game.current_player(s)
            best = max(self.children(s), key=lambda ac: self.sort_key(self.value(ac[1]), p))
            w, plies = self.value(best[1])
            v = (w, plies + 1)
        self._value[k] = v
        return v

    @staticmethod
    def sort_key(v, p):
        w, plies = v
        if w is None:
            return 0
        return (1 << 40) - plies if w == p else -(1 << 40) + plies

    def result(self, v, p):
        w = v[0]
        return "draw" if w is None else ("win" if w == p else "loss")

    def keeps(self, s, child):
        p = self.game.current_player(s)
        return self.result(self.value(child), p) == self.result(self.value(s), p)

    def perfect(self, s):
        p = self.game.current_player(s)
        kids = self.children(s)
        best = max(self.sort_key(self.value(c), p) for _, c in kids)
        top = [a for a, c in kids if self.sort_key(self.value(c), p) == best]
        return {a: 1.0 / len(top) for a in top}

    def uniform(self, s):
        legal = self.game.legal_actions(s)
        return {a: 1.0 / len(legal) for a in legal}

    def table_policy(self, table, illegal="renormalize"):
        """The policy of a table of weights: normalised over the legal entries
        ("renormalize"), or over every entry ("lose": the mass on illegal ones is a loss for
        the mover, `LOSE` in the distribution)."""

        def pi(s):
            row = table[self.sol.index(s)]
            legal = self.game.legal_actions(s)
            total = sum(row[a] for a in legal) if illegal == "renormalize" else sum(row)
            dist = {a: row[a] / total for a in legal}
            lost = 1.0 - sum(dist.values())
            if lost > 1e-9:
                dist[LOSE] = lost
            return dist

        return pi

    def expected(self, pi, seat, opponent):
        """Win, draw and loss probabilities and the expected return of `seat` playing `pi`,
        every other seat `opponent`."""
        memo = {}

        def go(s):
            k = self.key(s)
            if k in memo:
                return memo[k]
            if self.game.is_terminal(s):
                r = self.game.returns(s)[seat]
                out = np.array([r > 0, r == 0, r < 0, r], dtype=float)
            else:
                mover = self.game.current_player(s)
                dist = pi(s) if mover == seat else opponent(s)
                out = sum(p * step(s, a) for a, p in dist.items() if p > 0)
            memo[k] = out
            return out

        def step(s, a):
            if a == LOSE:  # the seat loses at once
                return np.array([0.0, 0.0, 1.0, -1.0])
            return go(self.game.apply(s, a))

        return go(self.start)

    def best_response_return(self, pi, seat):
        memo = {}

        def go(s):
            k = self.key(s)
            if k in memo:
                return memo[k]
            if self.game.is_terminal(s):
                out = self.game.returns(s)[seat]
            elif self.game.current_player(s) == seat:
                out = sum(
                    p * (-1.0 if a == LOSE else go(self.game.apply(s, a)))
                    for a, p in pi(s).items()
                    if p > 0
                )
            else:
                out = min(go(c) for _, c in self.children(s))
            memo[k] = out
            return out

        return go(self.start)

    def reachable(self, follow):
        """Keys of the positions reached from the start along the moves `follow(s, a, child)`
        allows."""
        seen, stack = set(), [self.start]
        seen.add(self.key(self.start))
        while stack:
            s = stack.pop()
            if self.game.is_terminal(s):
                continue
            for a, c in self.children(s):
                k = self.key(c)
                if k not in seen and follow(s, a, c):
                    seen.add(k)
                    stack.append(c)
        return seen

    def moves(self, pi, seat):
        everything = self.reachable(lambda s, a, c: True)
        faced = self.reachable(
            lambda s, a, c: self.game.current_player(s) != seat or pi(s).get(a, 0) > 0
        )
        optimal = self.reachable(lambda s, a, c: self.keeps(s, c))
        mine = [
            k
            for k in everything
            if not self.game.is_terminal(self.states[k])
            and self.game.current_player(self.states[k]) == seat
        ]

        def keeps(s, a):
            if a == LOSE:  # losing at once keeps the value of a lost position only
                return self.result(self.value(s), self.game.current_player(s)) == "loss"
            return self.keeps(s, self.game.apply(s, a))

        def rate(k):
            s = self.states[k]
            return sum(p for a, p in pi(s).items() if keeps(s, a))

        def mean(keys):
            keys = [k for k in mine if k in keys]
            return (sum(rate(k) for k in keys) / len(keys) if keys else float("nan"), len(keys))

        blunders = mistakes = 0
        for k in mine:
            if k not in faced:
                continue
            s = self.states[k]
            throws = any(p > 0 and (a == LOSE or not keeps(s, a)) for a, p in pi(s).items())
            res = self.result(self.value(s), seat)
            blunders += throws and res == "win"
            mistakes += throws and res == "draw"
        (ra, na), (rf, nf), (ro, no) = mean(everything), mean(faced), mean(optimal)
        return {
            "optimal_rate_all": ra,
            "states_all": na,
            "optimal_rate_faced": rf,
            "states_faced": nf,
            "optimal_rate_optimal_play": ro,
            "states_optimal_play": no,
            "blunders": blunders,
            "mistakes": mistakes,
        }


GAMES = [("tictactoe", {}), ("hexapawn", {})]

LOSE = "lose"  # the move of a policy's mass on illegal actions, where it loses


@lru_cache(maxsize=None)
def solved(name):
    game = solvedgym.make(name)
    sol = game.solve()
    return game, sol, Reference(game, sol)


def tables(sol):
    """Uniform, perfect, and random tables (some with zero weight on some legal moves)."""
    legal, keeps = sol.masks()
    rng = np.random.default_rng(1)
    random = rng.random(legal.shape) * legal
    sparse = random * (rng.random(legal.shape) < 0.6)
    # Every legal row keeps at least one positive entry.
    empty = (sparse * legal).sum(axis=1) == 0
    sparse[empty] = random[empty]
    # Mass on illegal moves too (ignored: rows are normalised over the legal moves).
    noisy = random + rng.random(legal.shape) * ~legal
    return {
        "uniform": legal.astype(np.float64),
        "perfect": keeps.astype(np.float64),
        "random": random,
        "sparse": sparse,
        "illegal mass": noisy,
    }


def close(a, b):
    if isinstance(b, float) and np.isnan(b):
        return isinstance(a, float) and np.isnan(a)
    return a == pytest.approx(b, abs=TOL)


def check_seat(ref, report, k, pi, seat):
    for key, opponent in [("against_perfect", ref.perfect), ("against_random", ref.uniform)]:
        win, draw, loss, ret = ref.expected(pi, seat, opponent)
        got = report[key][k]
        for name, want in [("win", win), ("draw", draw), ("loss", loss), ("expected_return", ret)]:
            assert close(got[name], want), (key, seat, name, got[name], want)
    got = report["against_best_response"][k]["expected_return"]
    want = ref.best_response_return(pi, seat)
    assert close(got, want), ("best response", seat, got, want)
    mine = report["moves_per_seat"][k]
    for name, want in ref.moves(pi, seat).items():
        assert close(mine[name], want), ("moves", seat, name, mine[name], want)


@pytest.mark.parametrize("name,params", GAMES)
def test_every_figure_matches_the_reference_per_seat_and_with_the_default_seats(name, params):
    game, sol, ref = solved(name)
    legal, _ = sol.masks()
    for (label, table), illegal in [
        (case, illegal) for case in tables(sol).items() for illegal in ["renormalize", "lose"]
    ]:
        pi = ref.table_policy(table, illegal)
        joint = sol.evaluate(table, illegal=illegal)  # seats=None: every seat
        assert joint["seats"] == [0, 1]
        if not (table * ~legal).any():  # no illegal mass: the default ("raise") takes it
            assert sol.evaluate(table) == joint
        for k, seat in enumerate([0, 1]):
            check_seat(ref, joint, k, pi, seat)
            alone = sol.evaluate(table, seats=[seat], illegal=illegal)
            check_seat(ref, alone, 0, pi, seat)
            # The joint call equals the per-seat call, field by field.
            for key in ["against_perfect", "against_random", "against_best_response"]:
                assert joint[key][k] == alone[key][0], (label, key, seat)
            assert joint["moves_per_seat"][k] == alone["moves"], (label, seat)


def test_a_uniform_x_never_wins_against_perfect_play():
    """The default call once played the policy against itself at every seat: a uniform X
    "won 58.5 %" against perfect play."""
    game, sol, ref = solved("tictactoe")
    legal, keeps = sol.masks()
    e = sol.evaluate(legal.astype(np.float64))
    assert e["against_perfect"][0]["win"] == 0.0
    want = ref.expected(ref.table_policy(legal.astype(np.float64)), 0, ref.perfect)[3]
    assert e["against_perfect"][0]["expected_return"] == pytest.approx(want, abs=TOL)
    p = sol.evaluate(keeps.astype(np.float64))
    assert p["against_random"][0]["win"] > 0.95


def test_a_callable_in_batches_matches_the_reference():
    game, sol, ref = solved("tictactoe")
    table = tables(sol)["sparse"]
    players = sol.players()
    calls = []

    def network(observations, masks):
        calls.append(len(observations))
        # The rows of this batch, found by matching observations back to positions: the
        # batch is in position order within one seat.
        return batch_rows.pop(0)

    batch_rows = []
    for seat in [0, 1]:
        ids = np.flatnonzero(players == seat)
        for start in range(0, len(ids), 700):
            batch_rows.append(table[ids[start : start + 700]])
    e = sol.evaluate(network, batch_size=700)
    assert sum(calls) == int(((players == 0) | (players == 1)).sum())
    pi = ref.table_policy(table)
    for k, seat in enumerate([0, 1]):
        check_seat(ref, e, k, pi, seat)


def test_illegal_mass_is_refused_by_default_and_scored_as_a_loss_when_asked():
    game, sol, ref = solved("tictactoe")
    legal, _ = sol.masks()
    table = legal.astype(np.float64)
    # One position of x with a little weight on an occupied square.
    first_o = sol.index(game.apply(game.initial_state(), 4))
    table[first_o, 4] = 0.5  # o's position: b2 is taken
    with pytest.raises(ValueError, match=r"position \d+ .*weight 0.5 on action 4 \(illegal here\).*illegal=\"lose\""):
        sol.evaluate(table)
    x_only = sol.evaluate(table, seats=[0])  # o's rows are not read for x
    assert x_only == sol.evaluate(legal.astype(np.float64), seats=[0])
    lose = sol.evaluate(table, seats=[1], illegal="lose")
    kind = sol.evaluate(table, seats=[1], illegal="renormalize")
    # Mass on an illegal move loses: o does worse than when it is dropped.
    assert lose["against_random"][0]["loss"] > kind["against_random"][0]["loss"]
    pi = ref.table_policy(table, "lose")
    check_seat(ref, lose, 0, pi, 1)


def test_logits_are_a_softmax_over_the_row_and_negative_weights_are_refused():
    game, sol, ref = solved("hexapawn")
    legal, _ = sol.masks()
    rng = np.random.default_rng(3)
    logits = rng.normal(size=legal.shape) * 3
    with pytest.raises(ValueError, match=r"weight of action .* is -.*output=\"logits\""):
        sol.evaluate(logits, illegal="renormalize")
    for illegal in ["renormalize", "lose"]:
        e = sol.evaluate(logits, output="logits", illegal=illegal)
        if illegal == "renormalize":
            weights = np.where(legal, np.exp(logits - np.where(legal, logits, -np.inf).max(axis=1, keepdims=True)), 0.0)
        else:
            weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        weights[~legal.any(axis=1)] = 1.0  # rows of the end are not read
        pi = ref.table_policy(weights, illegal)
        for k, seat in enumerate([0, 1]):
            check_seat(ref, e, k, pi, seat)
    # Masked logits (-inf on the illegal actions) pass the default.
    masked = np.where(legal, logits, -np.inf)
    assert sol.evaluate(masked, output="logits") == sol.evaluate(logits, output="logits", illegal="renormalize")
    for bad, match in [({"illegal": "drop"}, "illegal='drop'|illegal=drop"), ({"output": "scores"}, "output=scores")]:
        with pytest.raises(ValueError, match=match):
            sol.evaluate(legal.astype(np.float64), **bad)
