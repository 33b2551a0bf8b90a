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
agent to move, zeros for the others); rewards are the payoffs at the end. Agents are named by
the game's players (``"x"``, ``"o"``; numbered where names repeat).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

import solvedgym
from solvedgym.gym import draw_chance


def agent_names(game: solvedgym.Game) -> list:
    names = game.player_names
    if len(set(names)) == len(names):
        return list(names)
    return [f"{n}_{i}" for i, n in enumerate(names)]


class SolvedGymAEC(AECEnv):
    """A solvedgym game as a PettingZoo AEC environment; see the module's help."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "solvedgym_v0", "is_parallelizable": False, "render_fps": 2}

    def __init__(self, game: str = "tictactoe", render_mode: Optional[str] = None, **params: Any):
        super().__init__()
        self.game = solvedgym.make(game, **params)
        self.metadata = {**self.metadata, "name": f"solvedgym_{self.game.name.replace('-', '_')}_v0"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.possible_agents = agent_names(self.game)
        n = self.game.num_distinct_actions
        self.action_spaces = {a: spaces.Discrete(n) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(-np.inf, np.inf, shape=(self.game.observation_size,), dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.np_random, _ = seeding.np_random(None)
        self.state = self.game.initial_state()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _resolve_chance(self) -> None:
        while self.game.is_chance_node(self.state):
            self.state = self.game.apply(self.state, draw_chance(self.game, self.state, self.np_random))

    def _settle(self) -> None:
        """After a move: the next agent, or the end with everyone's reward."""
        self._resolve_chance()
        if self.game.is_terminal(self.state):
            returns = self.game.returns(self.state)
            truncated = self.game.is_truncated(self.state)
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(returns[i])
                self.terminations[a] = not truncated
                self.truncations[a] = truncated
        else:
            self.agent_selection = self.possible_agents[self.game.current_player(self.state)]

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.state = self.game.initial_state()
        self.agent_selection = self.agents[0]
        self._settle()

    def observe(self, agent):
        i = self.possible_agents.index(agent)
        observation = self.game.observation_tensor(self.state, i)
        to_move = (
            not self.game.is_terminal(self.state)
            and self.game.current_player(self.state) == i
        )
        if to_move:
            mask = self.game.legal_actions_mask(self.state).astype(np.int8)
        else:
            mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        return {"observation": observation, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.state = self.game.apply(self.state, action)
        self._settle()
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def render(self):
        if self.render_mode == "ansi":
            return self.game.render(self.state)
        if self.render_mode == "rgb_array":
            return self.game.render_rgb(self.state)
        return None

    def close(self):
        pass


def env(game: str = "tictactoe", **kwargs: Any) -> SolvedGymAEC:
    """The AEC environment of `game` (keyword arguments: the game's parameters, render_mode)."""
    return SolvedGymAEC(game, **kwargs)
