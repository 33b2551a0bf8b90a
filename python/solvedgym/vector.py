"""A Gymnasium vector environment stepped in Rust: N environments of one game in one call.

    import gymnasium, solvedgym
    envs = gymnasium.make_vec("solvedgym/Tictactoe-v0", num_envs=256, vectorization_mode="vector_entry_point")
    observations, info = envs.reset(seed=1)
    actions = envs.action_space.sample(mask=...)   # or a policy on the batch
    observations, rewards, terminated, truncated, info = envs.step(actions)

(or ``solvedgym.vector.SolvedGymVectorEnv(256, game="tictactoe")``). The keyword arguments
are those of ``solvedgym/<Name>-v0`` (the game's parameters, ``seat``, ``opponent``, ``fuzz``,
``illegal``) except that the opponent is a computer player by name (``"random"``,
``"optimal"``, ``"greedy"``, search settings, a saved agent): a Python callable would be called once per
move and undo the point. Everything else happens in Rust with Python's interpreter released:
the learner's actions, the opponents' moves, chance, the observations (float32, ``(N,
observation_size)``) and the action masks (``info["action_mask"]``, bool ``(N, actions)``, also
``action_masks()``).

Autoreset is Gymnasium's "next step" mode: when an episode ends, ``step`` returns its last
observation with the reward and ``terminated``/``truncated``; the next ``step`` ignores that
environment's action and starts a new episode (reward 0). At an episode's last observation
every action is marked legal (it is ignored), so a masked policy never meets an empty mask.
Environment ``i`` is seeded with ``seed + i`` by ``reset(seed=seed)``.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import solvedgym
from solvedgym._solvedgym import VectorCore
from solvedgym.gym import seat_number


class SolvedGymVectorEnv(VectorEnv):
    """``num_envs`` environments of one game stepped together in Rust; see the module's help."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        game: str = "tictactoe",
        seat: Union[int, str] = 0,
        opponent: Union[str, solvedgym.Agent] = "random",
        fuzz: float = 0.0,
        illegal: str = "raise",
        render_mode: Optional[str] = None,
        **params: Any,
    ):
        if isinstance(opponent, solvedgym.Agent):
            opponent = opponent.spec
        if not isinstance(opponent, str):
            raise TypeError(
                "the vector environment's opponent is a computer player by name "
                "('random', 'optimal', 'greedy', 'depth=3', 'agent=PATH') or a saved agent; "
                "use solvedgym/<Name>-v0 for a callable"
            )
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal={illegal!r}: 'raise' or 'lose'")
        if render_mode is not None:
            raise ValueError("the vector environment does not render; render one solvedgym/<Name>-v0")
        self.game = solvedgym.make(game, **params)
        self.seat = seat_number(self.game, seat)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs={num_envs!r}: the number of environments is a whole number, at least 1")
        if not 1 <= num_envs < 2**32:
            raise ValueError(f"num_envs={num_envs!r}: the number of environments is at least 1 (and below 2^32)")
        self.num_envs = int(num_envs)
        self._core = VectorCore(self.game, self.num_envs, self.seat, opponent, fuzz, illegal == "lose")
        low, high = self.game.observation_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._masks = np.ones((self.num_envs, self.game.num_distinct_actions), dtype=bool)
        self._all = np.ones(self.num_envs, dtype=bool)

    def _info(self, masks: np.ndarray) -> dict:
        self._masks = masks
        return {"action_mask": masks, "_action_mask": self._all}

    def action_masks(self) -> np.ndarray:
        """The legal actions of every environment now, bool ``(num_envs, actions)``."""
        return self._masks

    def reset(
        self,
        *,
        seed: Optional[Union[int, Sequence[int]]] = None,
        options: Optional[dict] = None,
    ):
        super().reset(seed=seed if seed is None or isinstance(seed, (int, np.integer)) else int(seed[0]))
        if seed is None:
            seeds = np.random.SeedSequence().generate_state(self.num_envs, np.uint64).tolist()
        elif isinstance(seed, (int, np.integer)):
            seeds = [(int(seed) + i) % 2**64 for i in range(self.num_envs)]
        else:
            seeds = [int(s) % 2**64 for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
        observations, _, _, _, masks = self._core.reset(seeds)
        return observations, self._info(masks)

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.dtype != np.int64:
            if not np.issubdtype(actions.dtype, np.integer):
                raise TypeError(f"actions are integers, not {actions.dtype}")
            actions = actions.astype(np.int64)
        observations, rewards, terminated, truncated, masks = self._core.step(actions.reshape(-1))
        return observations, rewards, terminated, truncated, self._info(masks)

    def close_extras(self, **kwargs: Any) -> None:
        pass
