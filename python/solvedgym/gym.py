"""Gymnasium environments: one learner's seat against computer players (or a callable).

    import gymnasium, solvedgym.gym
    env = gymnasium.make("solvedgym/FoxHounds-v0", size=8, seat="fox", opponent="optimal")

Every registered game is registered as ``solvedgym/<Name>-v0`` (``FoxHounds``, ``Hexapawn``,
``Tictactoe``, ``HaseUndIgel``, ...); the keyword arguments are the game's parameters (the
command line's names) and these:

seat
    the learner's player, by number or name (default 0).
opponent
    who plays every other seat: ``"random"``, ``"optimal"`` (perfect play from the exact solver),
    ``"greedy"``, search settings (``"depth=3"``), a saved agent (``solvedgym.load_agent(path)``,
    or ``"agent=PATH"``), or a callable ``f(game, state) -> action``.
fuzz
    the computer opponents' probability of a random move (default 0).
illegal
    ``"raise"`` (default): an illegal action raises ``solvedgym.IllegalActionError``;
    ``"lose"``: it ends the episode with reward -1.

Actions are ``Discrete(num_distinct_actions)``; the legal ones are ``info["action_mask"]``
(``int8``) and ``env.action_masks()`` (what sb3-contrib's MaskablePPO reads). The reward is the
learner's payoff at the end (0 before). An episode that reaches a round cap of the rules is
truncated; chance events are drawn with the environment's seeded generator.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

import solvedgym

Opponent = Union[str, solvedgym.Agent, Callable[[solvedgym.Game, solvedgym.State], int]]


def env_name(game: str) -> str:
    """The Gymnasium name of a game: ``fox-hounds`` -> ``FoxHounds``."""
    return "".join(part.capitalize() for part in game.split("-"))


def seat_number(game: solvedgym.Game, seat: Union[int, str]) -> int:
    names = game.player_names
    if isinstance(seat, str):
        if seat not in names:
            raise ValueError(f"seat {seat!r}: the players of {game.name} are {', '.join(names)}")
        return names.index(seat)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < len(names):
        raise ValueError(f"seat {seat!r}: the seats of {game.name} are 0 to {len(names) - 1}")
    return int(seat)


def render_state(game: solvedgym.Game, state: solvedgym.State, mode: Optional[str]):
    """`state` as a render mode gives it: text (``"ansi"``), an RGB array (``"rgb_array"``) or None."""
    if mode == "ansi":
        return game.render(state)
    if mode == "rgb_array":
        return game.render_rgb(state)
    return None


def draw_chance(game: solvedgym.Game, state: solvedgym.State, rng: np.random.Generator) -> int:
    outcomes = game.chance_outcomes(state)
    probabilities = np.array([p for _, p in outcomes], dtype=np.float64)
    k = rng.choice(len(outcomes), p=probabilities / probabilities.sum())
    return outcomes[int(k)][0]


class SolvedGymEnv(gymnasium.Env):
    """One seat of a solvedgym game against computer players; see the module's help."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        game: str = "tictactoe",
        seat: Union[int, str] = 0,
        opponent: Opponent = "random",
        fuzz: float = 0.0,
        illegal: str = "raise",
        render_mode: Optional[str] = None,
        **params: Any,
    ):
        self.game = solvedgym.make(game, **params)
        self.seat = seat_number(self.game, seat)
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal={illegal!r}: 'raise' or 'lose'")
        self.illegal = illegal
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        if isinstance(opponent, solvedgym.Agent):
            self._opponent: Any = self.game.computer(opponent.spec, fuzz)
        elif callable(opponent):
            self._opponent = opponent
        else:
            self._opponent = self.game.computer(str(opponent), fuzz)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        low, high = self.game.observation_bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.state = self.game.initial_state()

    # --- the other seats and chance, until the learner moves or the game ends
    def _advance(self) -> None:
        game = self.game
        while not game.is_terminal(self.state):
            player = game.current_player(self.state)
            if player == solvedgym.CHANCE_PLAYER:
                action = draw_chance(game, self.state, self.np_random)
            elif player == self.seat:
                return
            elif isinstance(self._opponent, solvedgym.Computer):
                action = self._opponent.choose(self.state, int(self.np_random.integers(2**63)))
                if action is None:  # a computer resigns only where its play leaves mass over
                    action = int(self.np_random.choice(game.legal_actions(self.state)))
            else:
                action = self._opponent(game, self.state)
            self.state = game.apply(self.state, action)

    def _observation(self) -> np.ndarray:
        return self.game.observation_tensor(self.state, self.seat)

    def _info(self) -> dict:
        return {"action_mask": self.action_masks().astype(np.int8)}

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (empty of True at the end)."""
        if self.game.is_terminal(self.state):
            return np.zeros(self.game.num_distinct_actions, dtype=bool)
        return self.game.legal_actions_mask(self.state)

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.state = self.game.initial_state()
        self._advance()
        return self._observation(), self._info()

    def step(self, action):
        game = self.game
        if game.is_terminal(self.state):
            raise RuntimeError("the episode is over: call reset()")
        try:
            self.state = game.apply(self.state, action)
        except solvedgym.IllegalActionError:
            if self.illegal == "raise":
                raise
            return self._observation(), -1.0, True, False, {**self._info(), "illegal": True}
        self._advance()
        done = game.is_terminal(self.state)
        reward = float(game.returns(self.state)[self.seat]) if done else 0.0
        truncated = done and game.is_truncated(self.state)
        return self._observation(), reward, done and not truncated, truncated, self._info()

    def render(self):
        return render_state(self.game, self.state, self.render_mode)


def register() -> None:
    """Registers ``solvedgym/<Name>-v0`` for every game (done on importing ``solvedgym``
    where Gymnasium is installed)."""
    for info in solvedgym.games():
        env_id = f"solvedgym/{env_name(info['name'])}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point="solvedgym.gym:SolvedGymEnv",
                vector_entry_point="solvedgym.vector:SolvedGymVectorEnv",
                kwargs={"game": info["name"]},
                disable_env_checker=False,
            )


register()
