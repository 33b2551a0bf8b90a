"""The games from Python: every registered game plays through the API, and hostile input
raises exceptions (never a crash)."""

import random

import numpy as np
import pytest

import solvedgym


def all_games():
    return [g["name"] for g in solvedgym.games()]


def test_games_lists_every_game_with_its_parameters():
    listed = solvedgym.games()
    names = [g["name"] for g in listed]
    assert "tictactoe" in names and "fox-hounds" in names and "hase-und-igel" in names
    fox = next(g for g in listed if g["name"] == "fox-hounds")
    assert fox["params"]["size"][1] == 8
    assert all(g["summary"] for g in listed)


@pytest.mark.parametrize("name", all_games())
def test_random_games_play_through(name):
    game = solvedgym.make(name)
    rng = random.Random(7)
    for _ in range(3):
        state = game.initial_state()
        for _ in range(500):
            player = game.current_player(state)
            if game.is_terminal(state):
                assert player == solvedgym.TERMINAL_PLAYER
                assert len(game.returns(state)) == game.num_players
                break
            if game.is_chance_node(state):
                outcomes = game.chance_outcomes(state)
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                legal = game.legal_actions(state)
                mask = game.legal_actions_mask(state)
                assert mask.dtype == np.bool_ and mask.shape == (game.num_distinct_actions,)
                assert list(np.flatnonzero(mask)) == legal
                obs = game.observation_tensor(state, player)
                assert obs.dtype == np.float32 and obs.shape == (game.observation_size,)
                assert np.isfinite(obs).all()
                action = rng.choice(legal)
                text = game.action_to_string(state, action)
                assert game.string_to_action(state, text) == action
            state = game.apply(state, action)
            assert isinstance(game.render(state), str)
            assert game.read_state_key(game.write_state_key(state)) == state
            try:
                text = game.write_position(state)
            except ValueError:
                continue
            assert game.read_position(text) == state or name == "hackenbush"


def test_parameters_take_the_command_lines_names():
    game = solvedgym.make("fox-hounds", size=6)
    assert game.params["size"] == 6
    assert game.name == "fox-hounds"
    assert solvedgym.make("hase-und-igel", players=3, deck={"halve": 3}).num_players == 3
    assert solvedgym.make("Fox_Hounds").name == "fox-hounds"


def test_states_are_values():
    game = solvedgym.make("tictactoe")
    a = game.apply(game.apply(game.initial_state(), 0), 4)
    b = game.read_position(game.write_position(a))
    assert a == b and hash(a) == hash(b)
    assert len({a, b, game.initial_state()}) == 2
    assert "x" in str(a)
    assert "tictactoe" in repr(a)


def test_illegal_actions_raise_and_list_the_legal_ones():
    game = solvedgym.make("tictactoe")
    s = game.apply(game.initial_state(), 4)
    with pytest.raises(solvedgym.IllegalActionError, match="legal actions: a3"):
        game.apply(s, 4)
    for bad in [-1, 9, 2**40, 2**80, -(2**80)]:
        with pytest.raises(ValueError):
            game.apply(s, bad)
    for bad in [1.0, "a1", None, [1], True, float("nan")]:
        with pytest.raises(TypeError):
            game.apply(s, bad)
    assert game.apply(s, np.int64(0)) == game.apply(s, 0)
    with pytest.raises(ValueError):
        game.string_to_action(s, "z9")


def test_hostile_input_raises_never_crashes():
    ttt = solvedgym.make("tictactoe")
    hexapawn = solvedgym.make("hexapawn")
    with pytest.raises(solvedgym.ForeignStateError):
        ttt.legal_actions(hexapawn.initial_state())
    with pytest.raises(solvedgym.ForeignStateError):
        solvedgym.make("hexapawn", rows=4, cols=4).apply(hexapawn.initial_state(), 0)
    with pytest.raises(TypeError):
        ttt.legal_actions("x.o/.x./...")
    for player in [-1, 2, 2**70]:
        with pytest.raises((ValueError, OverflowError)):
            ttt.observation_tensor(ttt.initial_state(), player)
    with pytest.raises(ValueError, match="unknown game"):
        solvedgym.make("chess")
    hostile_params = [
        {"size": 7},
        {"size": 10**30},
        {"size": -4},
        {"size": "eight"},
        {"size": float("nan")},
        {"sise": 8},
        {"size": [8]},
    ]
    for params in hostile_params:
        with pytest.raises((ValueError, TypeError)):
            solvedgym.make("fox-hounds", **params)
    with pytest.raises(TypeError):
        solvedgym.make("fox-hounds", size=object())
    for text in ["", "x" * 100_000, "{" * 50_000, "[]", "x.o/.x./...!", "\x00"]:
        with pytest.raises(ValueError):
            ttt.read_position(text)
    hase = solvedgym.make("hase-und-igel")
    for text in ["{}", "[]", "{" * 50_000, '{"hares": 1e999}']:
        with pytest.raises(ValueError):
            hase.read_position(text)
