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
    or ``"agent=PATH"``), a callable ``f(game, state) -> action``, or
    ``ObservationPolicy(f)``: a callable ``f(observation, mask) -> action`` that sees the
    observation from its own seat and its legal actions. An exception a callable raises comes
    out of the ``step`` (or ``reset``) that asked it, as does an ``IllegalActionError`` for an
    illegal answer; the episode is then over (call ``reset()``).
fuzz
    the computer opponents' probability of a random move (default 0).
illegal
    ``"raise"`` (default): an illegal action raises ``solvedgym.IllegalActionError``;
    ``"lose"``: it ends the episode with reward -1 (``info["illegal"]`` is True).

Actions are ``Discrete(num_distinct_actions)``; the legal ones are ``info["action_mask"]``
(``int8``) and ``env.action_masks()`` (bool, what sb3-contrib's MaskablePPO reads). At an
episode's last observation every action is marked legal: no action is asked for there (the next
call is ``reset``), and a masked policy never meets an empty mask. The reward is the learner's
payoff at the end (0 before). An episode that reaches a round cap of the rules is truncated; a
computer opponent that resigns ends it (terminated, with the game's resignation returns). Where
an episode ends before the learner's first move (an opponent resigning at its first move, as a
matchbox agent with an empty first box does), ``reset`` returns that last observation, every
action legal, and the next ``step``, whatever its action, reports the end (the reward,
``terminated``) and plays nothing.

The episodes are played in Rust by the engine of the vector environment
(``solvedgym.vector``): ``reset(seed=s)`` starts the environment's seed ``s``, each later
``reset()`` its next episode, and chance and the computers' moves are drawn from that seed's
stream, so a seed gives the same episodes here, in a ``SolvedGymVectorEnv`` and in Gymnasium's
``SyncVectorEnv``/``AsyncVectorEnv`` of this environment. ``copy.deepcopy`` and ``pickle`` copy
an environment mid-episode (its constructor's arguments and the episode's moves, played again;
a callable opponent must pickle for ``pickle``).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces

import solvedgym
from solvedgym._seats import seat_number  # noqa: F401  (solvedgym.gym.seat_number, as before)
from solvedgym._solvedgym import VectorCore

Opponent = Union[str, solvedgym.Agent, Callable[..., int]]


class ObservationPolicy:
    """An opponent that sees what a learner sees: ``ObservationPolicy(f)`` as an environment's
    ``opponent`` is called ``f(observation, mask) -> action`` with the observation from its own
    seat (float32, as ``game.observation_tensor(state, seat)``) and its legal actions (bool
    mask), so that a trained network can play the other seat. A bare callable is called
    ``f(game, state)``. It pickles where ``f`` does."""

    def __init__(self, f: Callable[[np.ndarray, np.ndarray], int]):
        if not callable(f):
            raise TypeError(f"ObservationPolicy takes a callable f(observation, mask), not {f!r}")
        self.f = f

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return self.f(observation, mask)

    def __repr__(self) -> str:
        return f"ObservationPolicy({self.f!r})"


def env_name(game: str) -> str:
    """The Gymnasium name of a game: ``fox-hounds`` -> ``FoxHounds``."""
    return "".join(part.capitalize() for part in game.split("-"))


def render_state(game: solvedgym.Game, state: solvedgym.State, mode: Optional[str]):
    """`state` as a render mode gives it: text (``"ansi"``), an RGB array (``"rgb_array"``) or None."""
    if mode == "ansi":
        return game.render(state)
    if mode == "rgb_array":
        return game.render_rgb(state)
    return None


def check_illegal(illegal: str) -> None:
    if illegal not in ("raise", "lose"):
        raise ValueError(f"illegal={illegal!r}: 'raise' or 'lose'")


def opponent_arguments(opponent: Any, fuzz: float) -> tuple:
    """The engine's (opponent, sees_observation) for an environment's ``opponent``."""
    if isinstance(opponent, solvedgym.Agent):
        return opponent.spec, False
    if isinstance(opponent, str):
        return opponent, False
    if isinstance(opponent, ObservationPolicy):
        return opponent, True
    if callable(opponent):
        return opponent, False
    raise TypeError(
        f"opponent={opponent!r}: a computer player by name ('random', 'optimal', 'greedy', "
        "'depth=3', 'agent=PATH'), a saved agent, or a callable"
    )


def random_seeds(n: int) -> list:
    return np.random.SeedSequence().generate_state(n, np.uint64).tolist()


class SolvedGymEnv(gymnasium.Env):
    """One seat of a solvedgym game against computer players; see the module's help.

    Stepped in Rust by the engine of the vector environment (a ``VectorCore`` of one
    environment without autoreset): a seed gives the same episodes here as in
    ``solvedgym.vector.SolvedGymVectorEnv`` and in Gymnasium's own vector environments of this
    one. At an episode's last observation every action is marked legal (``action_masks()`` and
    ``info["action_mask"]``): no action is asked for there, and a masked policy never meets an
    empty mask."""

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
        self._arguments = dict(
            game=game, seat=seat, opponent=opponent, fuzz=fuzz, illegal=illegal, render_mode=render_mode, **params
        )
        self.game = solvedgym.make(game, **params)
        self.seat = seat_number(self.game, seat)
        check_illegal(illegal)
        self.illegal = illegal
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        engine_opponent, sees_observation = opponent_arguments(opponent, fuzz)
        self._core = VectorCore(
            self.game, 1, self.seat, engine_opponent, fuzz, illegal == "lose", "off", sees_observation
        )
        self.action_space = spaces.Discrete(self.game.num_distinct_actions)
        low, high = self.game.observation_bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._seeded = False
        self._mask = np.ones(self.game.num_distinct_actions, dtype=bool)

    @property
    def opponent_player(self) -> Optional[solvedgym.Computer]:
        """The computer player at the other seats as ``Solution.evaluate(opponent=...)`` takes
        it (an exact evaluation against the training opponent): made on first use, ``None``
        where the opponent is a callable."""
        if not hasattr(self, "_opponent_player"):
            opponent, fuzz = self._arguments["opponent"], self._arguments["fuzz"]
            if isinstance(opponent, solvedgym.Agent):
                opponent = opponent.spec
            self._opponent_player = self.game.computer(opponent, fuzz) if isinstance(opponent, str) else None
        return self._opponent_player

    @property
    def state(self) -> solvedgym.State:
        """The position now."""
        return self._core.state(0)

    def _info(self, masks: np.ndarray) -> dict:
        self._mask = masks[0]
        return {"action_mask": self._mask.astype(np.int8)}

    def action_masks(self) -> np.ndarray:
        """The legal actions as booleans (every action at an episode's last observation)."""
        return self._mask.copy()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        if seed is not None:
            seeds = [int(seed) % 2**64]
        elif not self._seeded:
            seeds = random_seeds(1)
        else:
            seeds = [None]  # the next episode of the seed
        observations, _, _, _, masks, _, _ = self._core.reset(seeds)
        self._seeded = True
        return observations[0], self._info(masks)

    def step(self, action):
        try:
            observations, rewards, terminated, truncated, masks, illegal, _ = self._core.step([action])
        except solvedgym.IllegalActionError as e:
            raise solvedgym.IllegalActionError(str(e).removeprefix("environment 0: ")) from None
        except ValueError as e:
            if "the episode is over" in str(e):
                raise RuntimeError("the episode is over: call reset()") from None
            raise
        info = self._info(masks)
        if illegal[0]:
            info["illegal"] = True
        return observations[0], float(rewards[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self):
        return render_state(self.game, self.state, self.render_mode)

    # Copies: the constructor's arguments and the episode's moves, played again.
    def __getstate__(self) -> dict:
        return {
            "arguments": self._arguments,
            "episode": self._core.snapshot(),
            "seeded": self._seeded,
            "mask": self._mask,
            "np_random": self._np_random,
            "spec": getattr(self, "spec", None),
        }

    def __setstate__(self, saved: dict) -> None:
        self.__init__(**saved["arguments"])
        self._core.restore(saved["episode"])
        self._seeded, self._mask, self._np_random = saved["seeded"], saved["mask"], saved["np_random"]
        self.spec = saved["spec"]


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
