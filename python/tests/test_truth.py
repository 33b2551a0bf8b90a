"""The exact truth and the exact evaluation of Python policies."""

import numpy as np
import pytest

import solvedgym


@pytest.fixture(scope="module")
def ttt():
    game = solvedgym.make("tictactoe")
    return game, game.solve()


def test_solution_numbers_every_position(ttt):
    game, sol = ttt
    assert len(sol) == 5478  # the command line's `solve tictactoe`
    assert sol.start_value == "draw"
    assert sol.state(0) == game.initial_state()
    assert sol.index(sol.state(123)) == 123
    players = sol.players()
    assert players.dtype == np.int64 and players.shape == (5478,)
    assert (players == solvedgym.TERMINAL_PLAYER).sum() == 958
    legal, keeps = sol.masks()
    assert legal.shape == keeps.shape == (5478, 9)
    assert not (keeps & ~legal).any()
    assert sol.value(0) == (None, 0)
    # Every position's keeping moves are the command line's optimal moves.
    s = game.apply(game.apply(game.initial_state(), 0), 1)  # x a3, o b3
    i = sol.index(s)
    winner, plies = sol.value(i)
    assert winner == 0
    assert [a for a, k in sol.moves(i) if k] == [a for a in game.legal_actions(s) if keeps[i, a]]


def uniform(observations, masks):
    return masks.astype(np.float32)


def test_uniform_random_play_evaluated_exactly(ttt):
    game, sol = ttt
    e = sol.evaluate(uniform, seats=[0], batch_size=100)
    legal, keeps = sol.masks()
    # By hand: the mean over x's positions of the share of legal moves that keep the value.
    players = sol.players()
    x = players == 0
    by_hand = (keeps[x].sum(axis=1) / legal[x].sum(axis=1)).mean()
    assert e["moves"]["optimal_rate_all"] == pytest.approx(by_hand, abs=1e-12)
    assert e["moves"]["states_all"] == int(x.sum())
    r = e["against_random"][0]
    assert r["win"] + r["draw"] + r["loss"] == pytest.approx(1.0)
    assert r["win"] == pytest.approx(0.5849, abs=5e-4)  # random x wins 58.5% against random o
    assert e["against_best_response"][0]["expected_return"] <= e["against_perfect"][0]["expected_return"]
    # The same policy as a table gives the same figures.
    table = legal.astype(np.float64)
    assert sol.evaluate(table, seats=[0]) == e


def test_perfect_play_is_perfect(ttt):
    game, sol = ttt
    legal, keeps = sol.masks()
    e = sol.evaluate(keeps.astype(np.float64))
    assert e["moves"]["optimal_rate_all"] == 1.0
    assert e["moves"]["blunders"] == 0
    for r in e["against_best_response"]:
        assert r["expected_return"] == 0.0 and r["draw"] == pytest.approx(1.0)


def test_a_batched_network_like_policy(ttt):
    game, sol = ttt
    rng = np.random.default_rng(1)
    weights = rng.normal(size=(game.observation_size, game.num_distinct_actions)).astype(np.float32)
    calls = []

    def network(obs, masks):
        calls.append(len(obs))
        logits = obs @ weights
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p  # float32, mass on illegal actions
    # Mass on illegal actions is the caller's to score: refused unless it says how.
    with pytest.raises(ValueError, match="illegal here"):
        sol.evaluate(network, batch_size=1000)
    calls.clear()
    e = sol.evaluate(network, batch_size=1000, illegal="renormalize")
    assert max(calls) <= 1000 and sum(calls) == int((sol.players() >= 0).sum())
    assert 0.0 < e["moves"]["optimal_rate_all"] < 1.0
    # As logits (a softmax over the legal entries), the same policy.
    as_logits = sol.evaluate(lambda o, m: o @ weights, batch_size=1000, output="logits", illegal="renormalize")
    for key in ["against_perfect", "against_random", "against_best_response"]:
        for a, b in zip(as_logits[key], e[key]):
            assert a["expected_return"] == pytest.approx(b["expected_return"], abs=1e-6)
    # Scored as the environment's illegal="lose" plays it, it does worse.
    lose = sol.evaluate(network, batch_size=1000, illegal="lose")
    assert lose["against_random"][0]["loss"] > e["against_random"][0]["loss"]


def test_hostile_policies_raise(ttt):
    game, sol = ttt
    with pytest.raises(ValueError):
        sol.evaluate(lambda o, m: np.full(m.shape, np.nan))
    with pytest.raises(ValueError):
        sol.evaluate(lambda o, m: -m.astype(float))
    with pytest.raises(ValueError):
        sol.evaluate(lambda o, m: np.zeros(m.shape))
    with pytest.raises(ValueError):
        sol.evaluate(lambda o, m: np.ones((len(m), 3)))
    with pytest.raises((TypeError, ValueError)):
        sol.evaluate(lambda o, m: "no")
    with pytest.raises(TypeError):
        sol.evaluate(lambda o, m: np.ones(len(m)))
    with pytest.raises(ZeroDivisionError):
        sol.evaluate(lambda o, m: 1 / 0)
    with pytest.raises(TypeError):
        sol.evaluate("optimal")
    with pytest.raises(ValueError):
        sol.evaluate(np.ones((3, 9)))
    with pytest.raises(ValueError):
        sol.evaluate(uniform, seats=[2])
    with pytest.raises(ValueError):
        sol.evaluate(uniform, batch_size=0)
    with pytest.raises(ValueError):
        sol.state(10**6)
    with pytest.raises(ValueError):
        sol.observations([0, 10**6], 0)
    with pytest.raises(ValueError):
        sol.observations([0], 2)
    obs = sol.observations([0, 5, 0], 1)
    assert obs.shape == (3, game.observation_size) and (obs[0] == obs[2]).all()
    assert (obs[1] == game.observation_tensor(sol.state(5), 1)).all()


def test_games_too_big_are_refused_with_numbers():
    with pytest.raises(ValueError, match="states|positions"):
        solvedgym.make("fox-hounds", size=12).solve(max_states=1000)
    with pytest.raises(ValueError):
        solvedgym.make("hase-und-igel").solve()


def test_chance_games_solve_with_keeping_moves():
    game = solvedgym.make("dice-race")
    sol = game.solve()
    assert len(sol) > 0
    assert sol.value(0) is None  # expected results, not win/draw/loss in plies
    e = sol.evaluate(lambda o, m: m.astype(float))
    assert len(e["against_perfect"]) == game.num_players


def test_cgt_values_as_the_command_line_gives_them():
    v = solvedgym.value("{3||2*|1*}")
    assert v["value"] == "{3||2*|1*}" and v["outcome"] == "L" and v["mean"] == "9/4"
    assert solvedgym.value("{0|1} + *")["value"] == "1/2*"
    assert solvedgym.value("^ + ^")["value"] in ("^^", "↑↑", "^2")
    for bad in ["{" * 50_000, "{0|", "*1000", "x" * 200_000, ""]:
        with pytest.raises(ValueError):
            solvedgym.value(bad)


def test_hackenbush_cgt_values_agree_with_the_solver():
    # The CGT value of each position and the retrograde solver's winner are worked out
    # independently: value > 0 Left wins, < 0 Right wins, 0 the second player, fuzzy the first.
    checked = 0
    for params in [{}, {"position": "lrl(e;r)"}, {"random": 3, "edges": 6, "seed": 5}]:
        game = solvedgym.make("hackenbush", **params)
        sol = game.solve()
        values = sol.cgt_values()
        players = sol.players()
        assert len(values) == len(sol)
        for i, v in enumerate(values):
            if v is None:
                assert players[i] == solvedgym.CHANCE_PLAYER  # nature's deal
                continue
            winner, _ = sol.value(i)
            mover = players[i] if players[i] >= 0 else None
            if mover is None:
                continue
            outcome = solvedgym.value(v)["outcome"]
            expected = {"L": 0, "R": 1, "P": 1 - mover, "N": mover}[outcome]
            assert winner == expected, (params, i, v)
            checked += 1
    assert checked > 20
    assert solvedgym.make("tictactoe").solve().cgt_values() is None


def test_win_probabilities_and_the_polars_view():
    pl = pytest.importorskip("polars")
    game = solvedgym.make("dice-race", players=3, goal=4)
    sol = game.solve()
    p = sol.win_probabilities()
    assert p.shape == (len(sol), 3)
    assert ((p >= 0) & (p <= 1)).all()
    # Paranoid values: each seat's against the others' coalition, so they sum to at most 1.
    assert (p.sum(axis=1) <= 1 + 1e-9).all()
    players = sol.players()
    for i in range(len(sol)):
        if players[i] == solvedgym.TERMINAL_PLAYER:
            assert sorted(p[i]) == [0.0, 0.0, 1.0]
    df = sol.to_polars()
    assert df.height == len(sol)
    assert {"win_probability_red", "optimal_actions", "position"} <= set(df.columns)
    assert df["win_probability_red"].to_numpy().tolist() == p[:, 0].tolist()
    ttt = solvedgym.make("tictactoe").solve()
    assert ttt.win_probabilities() is None
    df = ttt.to_polars()
    start = df.row(0, named=True)
    assert start["winner"] == -1  # a draw
    legal, keeps = ttt.masks()
    assert df["optimal_actions"][1].to_list() == np.flatnonzero(keeps[1]).tolist()
