"""Tianshou's PettingZoo path on the plain AEC environment: its `PettingZooEnv` wrapper, its
vectorised Collector, and one learner that holds both seats (self-play)."""

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tianshou")

import torch  # noqa: E402
from tianshou.algorithm import DQN  # noqa: E402
from tianshou.utils.torch_utils import policy_within_training_step  # noqa: E402
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.multiagent.marl import (  # noqa: E402
    MultiAgentOffPolicyAlgorithm,
    MultiAgentPolicy,
)
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

import solvedgym  # noqa: E402
from solvedgym.pettingzoo import env as aec_env  # noqa: E402


def wrapped(game="tictactoe", **params):
    return PettingZooEnv(aec_env(game, **params))


def legal_and_zero_sum(buffer):
    """Every action the buffer holds was legal under the mask it was chosen with, and every
    finished episode's rewards sum to zero (both games are zero-sum)."""
    index = buffer.sample_indices(0)  # every stored step (the sub-buffers are not contiguous)
    n = len(index)
    batch = buffer[index]
    masks = np.asarray(batch.obs.mask, dtype=bool)
    acts = np.asarray(batch.act)
    assert masks[np.arange(n), acts].all(), "an action outside its mask"
    done = np.asarray(batch.terminated) | np.asarray(batch.truncated)
    rew = np.asarray(batch.rew)
    assert rew.shape[1] == 2
    assert np.allclose(rew[done].sum(axis=1), 0.0)
    return done.sum()


@pytest.mark.parametrize("game", ["tictactoe", "hexapawn"])
def test_the_collector_runs_random_players_on_the_plain_env(game):
    envs = DummyVectorEnv([lambda: wrapped(game) for _ in range(4)])
    env = wrapped(game)
    random = {a: MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space).policy for a in env.agents}
    collector = Collector(MultiAgentPolicy(random), envs, VectorReplayBuffer(4000, 4))
    stats = collector.collect(n_episode=40, reset_before_collect=True)
    assert stats.n_collected_episodes >= 40
    finished = legal_and_zero_sum(collector.buffer)
    assert finished >= 40


def test_one_learner_holds_both_seats():
    """Self-play: one DQN learner is the policy of both agents; it collects and updates."""
    torch.manual_seed(0)
    env = wrapped("tictactoe")
    obs_size = env.observation_space["observation"].shape[0]
    n = env.action_space.n

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(obs_size, 64), torch.nn.ReLU(), torch.nn.Linear(64, n))

        def forward(self, obs, state=None, info=None):
            x = torch.as_tensor(np.asarray(obs.obs if hasattr(obs, "obs") else obs), dtype=torch.float32)
            return self.body(x), state

    policy = DiscreteQLearningPolicy(model=Net(), action_space=env.action_space, eps_training=0.2)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=1e-3), gamma=0.9, target_update_freq=50)
    both = MultiAgentOffPolicyAlgorithm(algorithms=[learner, learner], env=env)
    assert both.policy.policies["x"] is both.policy.policies["o"]
    envs = DummyVectorEnv([lambda: wrapped("tictactoe") for _ in range(4)])
    collector = Collector(both, envs, VectorReplayBuffer(4000, 4), exploration_noise=True)
    collector.reset()
    before = [p.detach().clone() for p in policy.model.parameters()]
    for _ in range(5):
        collector.collect(n_step=64)
        with policy_within_training_step(both.policy):
            both.update(buffer=collector.buffer, sample_size=32)
    after = list(policy.model.parameters())
    assert any(not torch.equal(a, b) for a, b in zip(before, after)), "the learner did not change"
    assert legal_and_zero_sum(collector.buffer) > 0
    # The learner's greedy moves are legal: the masked Q-values keep it inside the mask.
    e = aec_env("tictactoe")
    e.reset(seed=3)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        with torch.no_grad():
            q = policy.model(obs["observation"][None])[0][0].numpy()
        q[obs["action_mask"] == 0] = -np.inf
        action = int(q.argmax())
        assert action in e.game.legal_actions(e.state)
        e.step(action)
    assert isinstance(e.state, solvedgym.State)


def test_the_docs_example_prints_what_the_page_says():
    import contextlib
    import io
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text()
    section = text[text.index("## With Tianshou and PettingZoo") :]
    code = section[section.index("```python long\n") + len("```python long\n") :]
    shown = section[section.index("```text\n") + len("```text\n") :]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code[: code.index("```")], "docs/python.md (Tianshou)", "exec"), {"__name__": "tianshou_example"})
    assert out.getvalue() == shown[: shown.index("```")], out.getvalue()
