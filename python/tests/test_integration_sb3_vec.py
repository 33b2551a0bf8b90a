"""solvedgym.sb3.vec_env: an SB3 VecEnv stepped in Rust, step by step as SB3's own DummyVecEnv
of the single environment under the same seeds and actions; what MaskablePPO and PPO need."""

import pytest

pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecMonitor  # noqa: E402

import solvedgym.gym  # noqa: E402
import solvedgym.sb3  # noqa: E402

CASES = {
    "tictactoe": ("solvedgym/Tictactoe-v0", {}),
    "hase-und-igel-capped": (
        "solvedgym/HaseUndIgel-v0",
        dict(players=2, board="CHCHIHC2H", max_rounds=6),
    ),
    "hexapawn-illegal-loses": ("solvedgym/Hexapawn-v0", dict(illegal="lose", seat="black", opponent="optimal")),
}


def test_the_single_env_passes_sb3s_checker():
    # It steps random actions, legal or not: in the mode where an illegal one loses.
    check_env(solvedgym.gym.SolvedGymEnv("tictactoe", illegal="lose"), warn=True)


@pytest.mark.parametrize("case", sorted(CASES))
def test_steps_as_sb3s_dummy_vec_env_of_the_single_env(case):
    env_id, kwargs = CASES[case]
    n = 5
    ours = solvedgym.sb3.vec_env(env_id, n_envs=n, **kwargs)
    theirs = DummyVecEnv([lambda: gymnasium.make(env_id, **kwargs) for _ in range(n)])
    assert isinstance(ours, VecEnv)
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    for env in (ours, theirs):
        assert env.seed(21) == [21 + i for i in range(n)]
    np.testing.assert_array_equal(ours.reset(), theirs.reset())
    rng = np.random.default_rng(4)
    dones_seen = truncations = 0
    for _ in range(200):
        masks = np.stack(ours.env_method("action_masks"))
        np.testing.assert_array_equal(masks, np.stack(theirs.env_method("action_masks")))
        np.testing.assert_array_equal(masks, ours.action_masks())
        assert masks.any(axis=1).all()
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        if kwargs.get("illegal") == "lose":
            actions = np.where(rng.random(n) < 0.1, rng.integers(0, masks.shape[1], n), actions)
        o1, r1, d1, i1 = ours.step(actions)
        o2, r2, d2, i2 = theirs.step(actions)
        np.testing.assert_array_equal(o1, o2)
        assert r1.dtype == r2.dtype == np.float32 and o1.dtype == o2.dtype
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        for i in range(n):
            assert i1[i].get("TimeLimit.truncated", False) == i2[i]["TimeLimit.truncated"]
            assert i1[i].get("illegal", False) == i2[i].get("illegal", False)
            assert ("terminal_observation" in i1[i]) == ("terminal_observation" in i2[i]) == bool(d1[i])
            if d1[i]:
                np.testing.assert_array_equal(i1[i]["terminal_observation"], i2[i]["terminal_observation"])
                truncations += i1[i]["TimeLimit.truncated"]
        dones_seen += int(d1.sum())
    assert dones_seen > 20
    if case == "hase-und-igel-capped":
        assert truncations > 0


def test_what_sb3_asks_of_the_environments():
    env = solvedgym.sb3.vec_env("solvedgym/Tictactoe-v0", n_envs=3)
    assert env.get_attr("render_mode") == [None] * 3
    assert env.has_attr("action_masks")
    assert env.get_attr("seat", indices=[1]) == [0]
    env.set_attr("note", "x", indices=[2])
    assert env.get_attr("note", indices=2) == ["x"]
    with pytest.raises(AttributeError):
        env.get_attr("note", indices=0)
    with pytest.raises(AttributeError, match="fixed"):
        env.set_attr("seat", 1)
    with pytest.raises(AttributeError):
        env.env_method("render")
    assert env.env_is_wrapped(gymnasium.Wrapper) == [False] * 3
    env.reset()
    assert len(env.env_method("action_masks", indices=[0, 2])) == 2
    env.set_options({"x": 1})
    with pytest.raises(ValueError, match="options"):
        env.reset()
    with pytest.raises(ValueError, match="not a solvedgym"):
        solvedgym.sb3.vec_env("CartPole-v1", n_envs=2)


def test_maskable_ppo_and_ppo_learn_on_it():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    masked = VecMonitor(solvedgym.sb3.vec_env("solvedgym/Tictactoe-v0", n_envs=8))
    model = sb3_contrib.MaskablePPO("MlpPolicy", masked, n_steps=256, batch_size=256, n_epochs=2, seed=0)
    model.learn(total_timesteps=2048)
    # Without masks: an illegal action loses.
    plain = solvedgym.sb3.vec_env("solvedgym/Tictactoe-v0", n_envs=8, illegal="lose")
    PPO("MlpPolicy", plain, n_steps=256, batch_size=256, n_epochs=2, seed=0).learn(total_timesteps=2048)
