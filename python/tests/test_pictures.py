"""Pictures of positions: `Game.render_rgb` and `render_mode="rgb_array"` in both environments."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import solvedgym
import solvedgym.gym
from solvedgym.pettingzoo import env as aec_env

GAMES = [g["name"] for g in solvedgym.games()]

# Small parameters where a game's defaults make long episodes.
SMALL = {
    "fox-hounds": {"size": 6},
    "hase-und-igel": {"players": 2, "board": "CHSI2C3C4", "max_rounds": 30},
    "dice-race": {"players": 2, "goal": 8},
}


def is_frame(frame):
    return (
        isinstance(frame, np.ndarray)
        and frame.dtype == np.uint8
        and frame.ndim == 3
        and frame.shape[2] == 3
        and 100 <= frame.shape[0] <= 2048
        and 100 <= frame.shape[1] <= 2048
    )


@pytest.mark.parametrize("name", GAMES)
def test_every_game_draws_its_start(name):
    game = solvedgym.make(name, **SMALL.get(name, {}))
    frame = game.render_rgb(game.initial_state())
    assert is_frame(frame)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 4, "a picture of something"
    assert np.array_equal(frame, game.render_rgb(game.initial_state())), "deterministic"


def test_a_move_changes_the_picture_and_a_foreign_state_is_an_error():
    game = solvedgym.make("tictactoe")
    start = game.initial_state()
    after = game.apply(start, 4)
    a, b = game.render_rgb(start), game.render_rgb(after)
    assert a.shape == b.shape and not np.array_equal(a, b)
    with pytest.raises(solvedgym.ForeignStateError):
        game.render_rgb(solvedgym.make("hexapawn").initial_state())


@pytest.mark.parametrize("name", GAMES)
def test_gymnasium_rgb_array_frames_of_a_whole_episode(name):
    env = gymnasium.make(
        f"solvedgym/{solvedgym.gym.env_name(name)}-v0", render_mode="rgb_array", **SMALL.get(name, {})
    )
    assert "rgb_array" in env.metadata["render_modes"]
    obs, info = env.reset(seed=1)
    frames = [env.render()]
    done = False
    while not done:
        action = int(env.unwrapped.np_random.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        frames.append(env.render())
        done = terminated or truncated
    assert all(is_frame(f) for f in frames)
    assert len({f.shape for f in frames}) == 1, "one size for a whole video"
    video = np.stack(frames)
    assert video.shape == (len(frames), *frames[0].shape)
    env.close()


@pytest.mark.parametrize("name", ["tictactoe", "hexapawn", "dice-race", "hackenbush"])
def test_gymnasium_check_env_with_rgb_array(name):
    env = gymnasium.make(
        f"solvedgym/{solvedgym.gym.env_name(name)}-v0", render_mode="rgb_array", illegal="lose"
    )
    check_env(env.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("name", GAMES)
def test_pettingzoo_rgb_array_frames_of_a_whole_episode(name):
    env = aec_env(name, render_mode="rgb_array", **SMALL.get(name, {}))
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    frames = [env.render()]
    for agent in env.agent_iter(max_iter=2000):
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        env.step(action)
        frames.append(env.render())
    assert all(is_frame(f) for f in frames)
    assert len({f.shape for f in frames}) == 1
    env.close()


def test_unknown_render_modes_are_refused():
    with pytest.raises(ValueError):
        solvedgym.gym.SolvedGymEnv("tictactoe", render_mode="human")
    with pytest.raises(ValueError):
        aec_env("tictactoe", render_mode="human")
