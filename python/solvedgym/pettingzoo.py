"""PettingZoo AEC environments: every seat a learner, chance drawn inside with a seeded generator.

    from solvedgym.pettingzoo import env
    e = env("hase-und-igel", players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, info = e.last()
        action = None if termination or truncation else e.action_space(agent).sample(observation["action_mask"])
        e.step(action)

As PettingZoo's classic games: an observation is a dict of ``observation`` (float32, the game's
tensor from the agent's point of view) and ``action_mask`` (int8, the legal actions of the
agent to move, zeros for the others); rewards are the payoffs at the end. The legal actions
live in the mask alone: ``infos[agent]`` is an empty dict at every step, so its shape never
changes (a batching collector such as Tianshou's stacks infos). ``last(observe)`` takes any
value and reads its truth, as PettingZoo's own does. Agents are named by
the game's players (``"x"``, ``"o"``; numbered where names repeat). Chance events are drawn in
Rust with the generator ``reset(seed=...)`` seeds (xoshiro256++, as the command line's).
"""

from __future__ import annotations

import copy
from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import solvedgym
from solvedgym._solvedgym import AecBase
from solvedgym.gym import render_state


def agent_names(game: solvedgym.Game) -> list:
    names = game.player_names
    if len(set(names)) == len(names):
        return list(names)
    return [f"{n}_{i}" for i, n in enumerate(names)]


class SolvedGymAEC(AecBase, AECEnv):
    """A solvedgym game as a PettingZoo AEC environment; see the module's help.

    The protocol's calls per move (``last``, ``observe``, ``step``, ``reset``) and its dicts
    (``rewards``, ``terminations``, ...) live in Rust (``AecBase``); the rest is ``AECEnv``'s.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "solvedgym_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: str = "tictactoe", render_mode: Optional[str] = None, **params: Any):
        AECEnv.__init__(self)
        self._arguments = (game, render_mode, params)
        self.game = solvedgym.make(game, **params)
        self.metadata = {**self.metadata, "name": f"solvedgym_{self.game.name.replace('-', '_')}_v0"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.possible_agents = agent_names(self.game)
        n = self.game.num_distinct_actions
        low, high = self.game.observation_bounds()
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low, high, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._bind(self.game, self.possible_agents)
        AecBase.reset(self, int(np.random.SeedSequence().generate_state(1, np.uint64)[0]))

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def render(self):
        return render_state(self.game, self.state, self.render_mode)

    def close(self):
        pass

    def __deepcopy__(self, memo):
        """A copy that plays on independently from this point: the same position, the same
        chance events to come (the generator is copied), its own dicts; the game is shared (it
        never changes)."""
        other = type(self).__new__(type(self))
        memo[id(self)] = other
        for key, value in self.__dict__.items():
            setattr(other, key, value if key == "game" else copy.deepcopy(value, memo))
        other._copy_engine(self, memo)
        return other

    # A pickle: the constructor's arguments, PettingZoo's dicts and agents as they stand, and
    # the episode as (the position's exact key, plies played, the chance generator's state), so
    # that the copy plays on as the original would, in this process or another.
    _PROTOCOL = ("agents", "agent_selection", "rewards", "_cumulative_rewards", "terminations",
                 "truncations", "infos", "_skip_agent_selection")

    def __getstate__(self) -> dict:
        return {
            "arguments": self._arguments,
            "protocol": {name: getattr(self, name) for name in self._PROTOCOL},
            "engine": self._engine_state(),
            "extra": {k: v for k, v in self.__dict__.items() if k not in _MADE_BY_INIT},
        }

    def __setstate__(self, saved: dict) -> None:
        game, render_mode, params = saved["arguments"]
        self.__init__(game, render_mode=render_mode, **params)
        self._resume_engine(*saved["engine"])
        for name, value in saved["protocol"].items():
            setattr(self, name, value)
        self.__dict__.update(saved["extra"])


# What __init__ makes again from the arguments (the rest of __dict__ is pickled as it is).
_MADE_BY_INIT = frozenset(
    {"_arguments", "game", "metadata", "render_mode", "possible_agents", "action_spaces", "observation_spaces"}
)


def env(game: str = "tictactoe", **kwargs: Any) -> SolvedGymAEC:
    """The AEC environment of `game` (keyword arguments: the game's parameters, render_mode)."""
    return SolvedGymAEC(game, **kwargs)
