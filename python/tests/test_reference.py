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
    """Exact figures of a table policy at one seat of a game: two players without chance (the
    truth: win, draw or loss in plies, by minimax), or with chance and any number of players
    (the truth: each seat's paranoid win probability, every other seat against it, by
    expectiminimax; every position counts as "drawn", as the solver's truth of expected
    results has no win/draw/loss)."""

    def __init__(self, game, sol):
        self.game, self.sol = game, sol
        self.chance = game.has_chance
        self.n = game.num_players
        self.start = game.initial_state()
        self.states = {}  # key -> state
        self._value = {}
        self._paranoid = {}

    def key(self, s):
        k = self.game.write_state_key(s)
        self.states.setdefault(k, s)
        return k

    def mover(self, s):
        """The player to move, CHANCE or None at the end."""
        if self.game.is_terminal(s):
            return None
        return self.game.current_player(s)

    def children(self, s):
        return [(a, self.game.apply(s, a)) for a in self.game.legal_actions(s)]

    def outcomes(self, s):
        """A chance position's (outcome, probability, child)."""
        return [(a, p, self.game.apply(s, a)) for a, p in self.game.chance_outcomes(s)]

    def every_child(self, s):
        if self.mover(s) == CHANCE:
            return [(a, c) for a, _, c in self.outcomes(s)]
        return self.children(s)

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

    def paranoid(self, s, p):
        """Seat p's win probability at s when every other seat plays against it."""
        k = (self.key(s), p)
        if k in self._paranoid:
            return self._paranoid[k]
        m = self.mover(s)
        if m is None:
            r = self.game.returns(s)
            v = 1.0 if r[p] == max(r) and r[p] > min(r) else 0.0
        elif m == CHANCE:
            v = sum(q * self.paranoid(c, p) for _, q, c in self.outcomes(s))
        elif m == p:
            v = max(self.paranoid(c, p) for _, c in self.children(s))
        else:
            v = min(self.paranoid(c, p) for _, c in self.children(s))
        self._paranoid[k] = v
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

    def position_result(self, s, p):
        """What perfect play gives p from s: "win", "draw" or "loss" ("draw" everywhere in a
        game of chance)."""
        return "draw" if self.chance else self.result(self.value(s), p)

    def keeps(self, s, child):
        p = self.game.current_player(s)
        if self.chance:
            return self.paranoid(child, p) >= self.paranoid(s, p) - 1e-12
        return self.result(self.value(child), p) == self.result(self.value(s), p)

    def perfect(self, s):
        p = self.game.current_player(s)
        kids = self.children(s)
        if self.chance:
            top = [a for a, c in kids if self.keeps(s, c)]
        else:
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

    def terminal(self, s, seat):
        r = self.game.returns(s)[seat]
        return np.array([r > 0, r == 0, r < 0, r], dtype=float)

    def lost(self, mover, seat):
        """Win, draw, loss and return of `seat` where `mover` loses at once (mass on an
        illegal action): -1 for the mover, the others share its loss."""
        if mover == seat:
            return np.array([0.0, 0.0, 1.0, -1.0])
        return np.array([1.0, 0.0, 0.0, 1.0 / (self.n - 1)])

    def backward(self, seat, at_player):
        """Win, draw, loss and return of `seat` from every position play reaches, children
        first: chance at its probabilities, a player's position as `at_player(s, mover, go)`
        says (`go(child)`: the child's figures). Returns the start's figures and the memo."""
        memo = {}

        def go(s):
            k = self.key(s)
            if k in memo:
                return memo[k]
            m = self.mover(s)
            if m is None:
                out = self.terminal(s, seat)
            elif m == CHANCE:
                out = sum(q * go(c) for _, q, c in self.outcomes(s))
            else:
                out = at_player(s, m, go)
            memo[k] = out
            return out

        return go(self.start), memo

    def mixed(self, dist, s, m, seat, go):
        """The figures of `seat` when the mover `m` at s plays `dist` (`LOSE`: it loses)."""
        return sum(
            p * (self.lost(m, seat) if a == LOSE else go(self.game.apply(s, a))) for a, p in dist.items() if p > 0
        )

    def expected(self, pi, seat, opponent):
        """Win, draw and loss probabilities and the expected return of `seat` playing `pi`,
        every other seat `opponent`."""
        return self.backward(
            seat, lambda s, m, go: self.mixed(pi(s) if m == seat else opponent(s), s, m, seat, go)
        )[0]

    def best_response_return(self, pi, seat):
        """`seat`'s expected return playing `pi` when every other seat plays against it."""

        def at_player(s, m, go):
            if m == seat:
                return self.mixed(pi(s), s, m, seat, go)
            return min((go(c) for _, c in self.children(s)), key=lambda v: v[3])

        return self.backward(seat, at_player)[0][3]

    def best_reply(self, opponent, seat):
        """The best `seat` achieves against `opponent` at every other seat: at each of its
        positions the move of greatest expected return, ties to the greater win probability,
        then the smaller loss probability. Returns (win, draw, loss, return) and the move at
        each of its positions (by key); `reply_values` keeps every position's figures."""
        moves = {}

        def at_player(s, m, go):
            if m != seat:
                return self.mixed(opponent(s), s, m, seat, go)
            scored = [(a, go(c)) for a, c in self.children(s)]
            a, out = max(scored, key=lambda av: (av[1][3], av[1][0], -av[1][2]))
            moves[self.key(s)] = a
            return out

        start, self.reply_values = self.backward(seat, at_player)
        return start, moves

    def reachable(self, follow):
        """Keys of the positions reached from the start along the moves `follow(s, a, child)`
        allows (every chance outcome)."""
        seen, stack = set(), [self.start]
        seen.add(self.key(self.start))
        while stack:
            s = stack.pop()
            m = self.mover(s)
            if m is None:
                continue
            for a, c in self.every_child(s):
                k = self.key(c)
                if k not in seen and (m == CHANCE or follow(s, a, c)):
                    seen.add(k)
                    stack.append(c)
        return seen

    def faced(self, pi, seat, holds=None):
        """The positions `pi` can face: it plays its moves at the seats it holds (`seat`
        alone by default), every other seat plays anything."""
        holds = {seat} if holds is None else set(holds)
        return self.reachable(lambda s, a, c: self.game.current_player(s) not in holds or pi(s).get(a, 0) > 0)

    def mine(self, seat):
        everything = self.reachable(lambda s, a, c: True)
        return everything, [k for k in everything if self.mover(self.states[k]) == seat]

    def keep_rate(self, pi, s):
        """The probability that `pi` keeps the mover's value at s (losing at once keeps the
        value of a lost position only)."""
        p = self.game.current_player(s)

        def keeps(a):
            if a == LOSE:
                return self.position_result(s, p) == "loss"
            return self.keeps(s, self.game.apply(s, a))

        return sum(q for a, q in pi(s).items() if keeps(a))

    def moves(self, pi, seat, holds=None):
        everything, mine = self.mine(seat)
        faced = self.faced(pi, seat, holds)
        optimal = self.reachable(lambda s, a, c: self.keeps(s, c))

        def mean(keys):
            keys = [k for k in mine if k in keys]
            return (
                sum(self.keep_rate(pi, self.states[k]) for k in keys) / len(keys) if keys else float("nan"),
                len(keys),
            )

        blunders = mistakes = 0
        for k in mine:
            if k not in faced:
                continue
            s = self.states[k]
            throws = any(
                q > 0 and (a == LOSE or not self.keeps(s, self.game.apply(s, a))) for a, q in pi(s).items()
            )
            res = self.position_result(s, seat)
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

    def throws(self, pi, seat):
        """The mass `pi` puts on throwing a win (blunder) or a draw (mistake) away: the mean
        over the won and the drawn positions it can face, and along play against perfect play
        (weighted by the probability a game reaches each position; and summed: the expected
        number per game)."""
        _, mine = self.mine(seat)
        faced = self.faced(pi, seat)
        mass = {}
        for k in mine:
            s = self.states[k]
            res = self.position_result(s, seat)
            if res != "loss":
                mass[k] = (res, 1.0 - self.keep_rate(pi, s))
        out = {}
        for res, name in [("win", "blunder"), ("draw", "mistake")]:
            at = [m for k, (r, m) in mass.items() if r == res and k in faced]
            out[f"{name}_mass_faced"] = sum(at) / len(at) if at else float("nan")
            out["won_faced" if res == "win" else "drawn_faced"] = len(at)
            # Along play: sum over positions of reach x own, by the recursion over the tree.
            memo = {}

            def acc(s, own):
                k = self.key(s)
                if k in memo:
                    return memo[k]
                m = self.mover(s)
                if m is None:
                    out_ = np.zeros(2)
                else:
                    here = np.zeros(2)
                    if m == seat and k in mass and mass[k][0] == res:
                        here = np.array([mass[k][1], 1.0])
                    if m == CHANCE:
                        dist = [(q, c) for _, q, c in self.outcomes(s)]
                    else:
                        d = pi(s) if m == seat else self.perfect(s)
                        dist = [(q, self.game.apply(s, a)) for a, q in d.items() if q > 0 and a != LOSE]
                    out_ = here + sum((q * acc(c, own) for q, c in dist), np.zeros(2))
                memo[k] = out_
                return out_

            total, reach = acc(self.start, res)
            out[f"{name}_mass_along_play"] = total / reach if reach > 0 else float("nan")
            out[f"{name}s_per_game"] = total
        return out


GAMES = [("tictactoe", {}), ("hexapawn", {}), ("dice-race", {"players": 3, "goal": 4})]

LOSE = "lose"  # the move of a policy's mass on illegal actions, where it loses
CHANCE = solvedgym.CHANCE_PLAYER


@lru_cache(maxsize=None)
def solved(name, params=()):
    game = solvedgym.make(name, **dict(params))
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
        return a is None or (isinstance(a, float) and np.isnan(a))  # JSON's null is NaN
    return a is not None and a == pytest.approx(b, abs=TOL)


RESULT = ["win", "draw", "loss", "expected_return"]


def check_result(got, want, *what):
    for name, w in zip(RESULT, want):
        assert close(got[name], w), (*what, name, got[name], w)


def check_seat(ref, report, k, pi, seat, opponent=None):
    for key, other in [("against_perfect", ref.perfect), ("against_random", ref.uniform)]:
        check_result(report[key][k], ref.expected(pi, seat, other), key, seat)
    if opponent is not None:
        check_result(report["against_opponent"][k], ref.expected(pi, seat, opponent), "opponent", seat)
    else:
        assert "against_opponent" not in report
    got = report["against_best_response"][k]["expected_return"]
    want = ref.best_response_return(pi, seat)
    assert close(got, want), ("best response", seat, got, want)
    mine = report["moves_per_seat"][k]
    for name, want in ref.moves(pi, seat).items():
        assert close(mine[name], want), ("moves", seat, name, mine[name], want)
    throws = report["throws_per_seat"][k]
    want = ref.throws(pi, seat)
    assert set(throws) == set(want)
    for name, w in want.items():
        assert close(throws[name], w), ("throws", seat, name, throws[name], w)


@pytest.mark.parametrize("name,params", GAMES)
def test_every_figure_matches_the_reference_per_seat_and_with_the_default_seats(name, params):
    game, sol, ref = solved(name, tuple(params.items()))
    legal, _ = sol.masks()
    seats = list(range(game.num_players))
    for (label, table), illegal in [
        (case, illegal) for case in tables(sol).items() for illegal in ["renormalize", "lose"]
    ]:
        pi = ref.table_policy(table, illegal)
        joint = sol.evaluate(table, illegal=illegal)  # seats=None: every seat
        assert joint["seats"] == seats
        if not (table * ~legal).any():  # no illegal mass: the default ("raise") takes it
            assert sol.evaluate(table) == joint
        for k, seat in enumerate(seats):
            check_seat(ref, joint, k, pi, seat)
            alone = sol.evaluate(table, seats=[seat], illegal=illegal)
            check_seat(ref, alone, 0, pi, seat)
            # The joint call equals the per-seat call, field by field.
            for key in ["against_perfect", "against_random", "against_best_response", "throws_per_seat"]:
                assert joint[key][k] == alone[key][0], (label, key, seat)
            assert joint["moves_per_seat"][k] == alone["moves"], (label, seat)


@pytest.mark.parametrize("name,params", GAMES)
def test_against_a_given_policy_matches_the_reference(name, params):
    game, sol, ref = solved(name, tuple(params.items()))
    cases = tables(sol)
    seats = list(range(game.num_players))
    for mine, theirs in [("uniform", "sparse"), ("random", "perfect"), ("sparse", "random")]:
        pi, opponent = ref.table_policy(cases[mine]), ref.table_policy(cases[theirs])
        joint = sol.evaluate(cases[mine], opponent=cases[theirs])
        for k, seat in enumerate(seats):
            check_seat(ref, joint, k, pi, seat, opponent)
            alone = sol.evaluate(cases[mine], seats=[seat], opponent=cases[theirs])
            assert alone["against_opponent"][0] == joint["against_opponent"][k]


@pytest.mark.parametrize("name,params", GAMES)
def test_the_best_response_matches_the_reference(name, params):
    game, sol, ref = solved(name, tuple(params.items()))
    cases = tables(sol)
    legal, _ = sol.masks()
    opponents = [
        ("random", ref.uniform),
        ("perfect", ref.perfect),
        (cases["sparse"], ref.table_policy(cases["sparse"])),
        (cases["random"], ref.table_policy(cases["random"])),
    ]
    for seat in range(game.num_players):
        for given, opponent in opponents:
            got = sol.best_response(given, seat)
            want, moves = ref.best_reply(opponent, seat)
            assert got["seat"] == seat
            check_result(got, want, "best response", seat)
            table = got["policy"]
            assert table.shape == legal.shape and ((table == 0) | legal).all()
            # Wherever the reference chose a move, it plays one as good (to rounding: moves
            # of equal worth may differ in their last bits, summed in another order).
            values = ref.reply_values
            for k, a in moves.items():
                s = ref.states[k]
                ours = game.apply(s, int(table[sol.index(s)].argmax()))
                best = values[ref.key(game.apply(s, a))][3]
                assert values[ref.key(ours)][3] >= best - 1e-12, (seat, k)
            # Its policy, evaluated, gets that result against the opponent: nothing does better
            # than a best response, so no table of ours does either.
            achieved = ref.expected(ref.table_policy(table + 1e-300 * legal), seat, opponent)
            assert achieved[3] == pytest.approx(want[3], abs=1e-9)
            for label, t in cases.items():
                if (t * ~legal).any():
                    continue
                theirs = ref.expected(ref.table_policy(t), seat, opponent)[3]
                assert theirs <= want[3] + 1e-12, (label, seat)


def test_the_ceiling_against_random_play_in_tictactoe():
    """X's best against a uniformly random O, computed by hand in the issue: 0.9948."""
    game, sol, ref = solved("tictactoe")
    x = sol.best_response("random", 0)
    assert round(x["expected_return"], 4) == 0.9948 and x["loss"] == 0.0
    assert sol.best_response("perfect", 0)["expected_return"] == 0.0
    # Given as a table or a callable, random play is the same opponent.
    legal, _ = sol.masks()
    uniform = legal.astype(np.float64)
    for given in [uniform, lambda obs, masks: masks.astype(np.float64)]:
        got = sol.best_response(given, 0)
        assert got["expected_return"] == pytest.approx(x["expected_return"], abs=1e-12)
        assert (got["policy"] == x["policy"]).all()
    with pytest.raises(ValueError, match="seat 2"):
        sol.best_response("random", 2)
    with pytest.raises(ValueError, match="opponent=nobody"):
        sol.best_response("nobody", 0)


def test_a_stochastic_policys_throws_are_its_mass_not_its_count():
    """A softmax policy may blunder wherever a move throws the win (its count does not move
    as it sharpens); its blunder mass says how much: less as the softmax sharpens."""
    game, sol, ref = solved("tictactoe")
    legal, keeps = sol.masks()
    previous = None
    for sharpness in [0.0, 2.0, 8.0]:
        logits = np.where(keeps, sharpness, 0.0)
        e = sol.evaluate(logits, output="logits", illegal="renormalize")
        t = e["throws_per_seat"][0]
        counts = e["moves_per_seat"][0]["blunders"], e["moves_per_seat"][0]["mistakes"]
        assert 0 < counts[0] <= t["won_faced"]
        if previous is not None:
            assert counts == previous_counts
            assert t["blunder_mass_faced"] < previous["blunder_mass_faced"]
            assert t["mistakes_per_game"] < previous["mistakes_per_game"]
        previous, previous_counts = t, counts
    # Against perfect play a drawn game is lost by a mistake: one per lost game.
    assert previous["mistakes_per_game"] == pytest.approx(e["against_perfect"][0]["loss"], abs=1e-12)
    perfect = sol.evaluate(keeps.astype(np.float64))["throws_per_seat"]
    for t in perfect:
        assert t["blunder_mass_faced"] == 0.0 and t["mistake_mass_faced"] == 0.0
        assert t["mistakes_per_game"] == 0.0


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
