"""Gymnasium and PettingZoo: every registered game passes their checkers."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import solvedgym
import solvedgym.gym
from solvedgym.pettingzoo import env as aec_env

GAMES = [g["name"] for g in solvedgym.games()]


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_check_env(name):
    # The checker steps random actions, legal or not: in the mode where an illegal one loses.
    env = gymnasium.make(
        f"solvedgym/{solvedgym.gym.env_name(name)}-v0", render_mode="ansi", illegal="lose"
    )
    check_env(env.unwrapped, skip_render_check=False)
    obs, info = env.reset(seed=3)
    assert obs.shape == env.observation_space.shape
    assert info["action_mask"].dtype == np.int8
    assert isinstance(env.render(), str)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_api_and_seed(name):
    api_test(aec_env(name), num_cycles=200)
    seed_test(lambda: aec_env(name), num_cycles=200)


def play(env, seed, policy):
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        obs, reward, terminated, truncated, info = env.step(policy(env, info))
        total += reward
        done = terminated or truncated
    return total


def random_legal(env, info):
    return int(env.np_random.choice(np.flatnonzero(info["action_mask"])))


def test_perfect_play_never_loses_and_beats_random_play_mostly():
    # Perfect play as the opponent: the learner (random) never wins tic-tac-toe.
    env = solvedgym.gym.SolvedGymEnv("tictactoe", seat="x", opponent="optimal")
    results = [play(env, seed, random_legal) for seed in range(40)]
    assert max(results) <= 0.0
    assert min(results) == -1.0
    # The same seed, the same episode.
    a = [play(env, 5, random_legal) for _ in range(2)]
    assert a[0] == a[1]


def test_callable_opponents_seats_by_name_and_illegal_moves():
    first_legal = lambda game, state: game.legal_actions(state)[0]
    env = solvedgym.gym.SolvedGymEnv("hexapawn", seat="black", opponent=first_legal)
    obs, info = env.reset(seed=1)
    assert env.game.current_player(env.state) == 1
    with pytest.raises(solvedgym.IllegalActionError):
        env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    lose = solvedgym.gym.SolvedGymEnv("hexapawn", illegal="lose")
    obs, info = lose.reset(seed=1)
    _, reward, terminated, _, info = lose.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(ValueError):
        solvedgym.gym.SolvedGymEnv("hexapawn", seat="red")
    with pytest.raises(ValueError):
        solvedgym.gym.SolvedGymEnv("tictactoe", opponent="greedy")
    with pytest.raises(ValueError):
        solvedgym.gym.SolvedGymEnv("tictactoe", illegal="ignore")


def test_action_masks_are_what_maskable_ppo_reads():
    env = gymnasium.make("solvedgym/FoxHounds-v0", size=6, seat="hounds", opponent="optimal")
    obs, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (env.action_space.n,)
    assert (mask.astype(np.int8) == info["action_mask"]).all()
    assert env.unwrapped.game.params["size"] == 6


def test_aec_last_reads_observe_by_its_truth():
    # PettingZoo's own `last(observe=True)` tests truth; Tianshou's PettingZooEnv passes itself.
    e = aec_env("tictactoe")
    e.reset(seed=0)
    for observe in (True, 1, "yes", object(), [0]):
        assert e.last(observe)[0]["action_mask"].sum() == 9
    for observe in (False, 0, None, "", []):
        assert e.last(observe)[0] is None
    assert e.last()[0]["action_mask"].sum() == 9
    assert e.last(observe=False)[0] is None


def test_aec_masks_are_the_legal_moves_and_infos_keep_their_shape():
    import random

    e = aec_env("hase-und-igel", players=2)
    e.reset(seed=4)
    rng = random.Random(4)
    moves = 0
    for agent in e.agent_iter(2000):
        observation, reward, termination, truncation, info = e.last()
        # The legal moves live in the mask alone: every info is the same empty dict.
        assert info == {} and all(i == {} for i in e.infos.values())
        if termination or truncation:
            e.step(None)
            continue
        mask = observation["action_mask"]
        legal = e.game.legal_actions(e.state)
        assert np.flatnonzero(mask).tolist() == legal
        other = [a for a in e.agents if a != agent][0]
        assert not e.observe(other)["action_mask"].any()
        e.step(rng.choice(legal))
        moves += 1
    assert moves > 10
    e.reset(seed=1)
    with pytest.raises(solvedgym.IllegalActionError):
        e.step(10**6)
    with pytest.raises(TypeError):
        e.step(1.5)
    with pytest.raises(ValueError, match="no agent"):
        e.observe("nobody")
    with pytest.raises(ValueError, match="non-negative"):
        e.reset(seed=-1)
    with pytest.raises(TypeError):
        e.reset(seed="x")


@pytest.mark.parametrize("game,params", [("tictactoe", {}), ("hase-und-igel", {"players": 3}), ("dice-race", {})])
def test_an_aec_deepcopy_plays_on_alike_and_alone(game, params):
    import copy
    import random

    e = aec_env(game, **params)
    e.reset(seed=7)
    rng = random.Random(7)

    def play(env, r, moves):
        seen = []
        for _, agent in zip(range(moves), env.agent_iter()):
            observation, reward, termination, truncation, info = env.last()
            seen.append((agent, observation["observation"].tolist(), observation["action_mask"].tolist(), reward, termination, truncation))
            env.step(None if termination or truncation else r.choice(np.flatnonzero(observation["action_mask"]).tolist()))
        return seen

    play(e, rng, 5)
    before = (e.agent_selection, e.game.render(e.state), dict(e.rewards))
    twin = copy.deepcopy(e)
    state = rng.getstate()
    ours = play(twin, rng, 400)
    # The original did not move while its copy played on.
    assert (e.agent_selection, e.game.render(e.state), dict(e.rewards)) == before
    rng.setstate(state)
    assert play(e, rng, 400) == ours  # the same moves give the same episode, chance included


def aec_play(env, rng, moves):
    """(agent, observation, mask, reward, terminated, truncated) at each of `moves` turns of
    random legal play drawn with `rng` (the episode restarted where every agent is done)."""
    seen = []
    for _ in range(moves):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        observation, reward, termination, truncation, info = env.last()
        seen.append((agent, observation["observation"].tolist(), observation["action_mask"].tolist(), reward, termination, truncation))
        env.step(None if termination or truncation else rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return seen


@pytest.mark.parametrize("game,params", [("tictactoe", {}), ("hase-und-igel", {"players": 3, "board": "CHCHIHC2H", "max_rounds": 6}), ("dice-race", {})])
def test_an_aec_env_pickled_mid_episode_plays_on_as_the_original(game, params):
    import pickle
    import random

    e = aec_env(game, **params)
    e.reset(seed=11)
    rng = random.Random(11)
    aec_play(e, rng, 7)
    e.extra_note = "kept"  # what a caller put on the environment travels with it
    for protocol in (2, pickle.HIGHEST_PROTOCOL):
        back = pickle.loads(pickle.dumps(e, protocol))
        assert back.extra_note == "kept" and back.metadata == e.metadata
        assert (back.agents, back.agent_selection, back.rewards, back._cumulative_rewards) == (
            e.agents, e.agent_selection, e.rewards, e._cumulative_rewards)
        state = rng.getstate()
        theirs = aec_play(back, rng, 300)
        rng.setstate(state)
        assert aec_play(pickle.loads(pickle.dumps(e, protocol)), rng, 300) == theirs
    # The original, untouched by its copies, plays the same turns too (chance included: the
    # generator travelled in the pickle; episodes after the first restart from it as well).
    rng.setstate(state)
    assert aec_play(e, rng, 300) == theirs
    # A pickle that does not hold an episode of this game is refused with a message.
    saved = e.__getstate__()
    saved["engine"] = (saved["engine"][0], saved["engine"][1], "not a generator")
    with pytest.raises(ValueError, match="generator"):
        type(e).__new__(type(e)).__setstate__(saved)


def test_agent_iter_yields_the_agent_to_act_until_all_are_done_or_max_iter():
    e = aec_env("tictactoe")
    e.reset(seed=1)
    assert list(zip(range(3), e.agent_iter())) == [(0, "x"), (1, "x"), (2, "x")], "the selection until it moves"
    limited = e.agent_iter(4)
    seen = []
    for agent in limited:
        seen.append(agent)
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert seen == ["x", "o", "x", "o"]
    # Each iteration over it starts afresh, with max_iter again (the agent has not moved).
    assert [a for a, _ in zip(limited, range(10))] == ["x"] * 4
    # Played out: the iterator stops once every agent has stepped its last (dead) step.
    turns = 0
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        e.step(None if termination or truncation else int(np.flatnonzero(observation["action_mask"])[0]))
        turns += 1
    assert not e.agents and turns >= 2
    assert list(e.agent_iter()) == []
