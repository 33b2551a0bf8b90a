"""``vec_env``: a Stable-Baselines3 ``VecEnv`` over the Rust vector environment.

SB3's ``DummyVecEnv`` of ``solvedgym/<Name>-v0`` calls Python once per environment and step;
this ``VecEnv`` steps every environment in one call into Rust (``solvedgym.vector``'s engine in
Gymnasium's same-step autoreset mode), and gives SB3 what it reads: the observations (float32),
rewards (float32), dones, and one info dict per environment, where an episode ended holding
``"terminal_observation"`` (its last observation) and ``"TimeLimit.truncated"`` (cut off by a
round cap rather than ended), as ``DummyVecEnv`` gives them (which also writes
``"TimeLimit.truncated": False`` where no episode ended: SB3 reads the key with that
default), and ``"illegal"`` where an illegal action lost. ``env_method("action_masks")`` (what sb3-contrib's ``MaskablePPO`` calls) and
``action_masks()`` give the legal actions of the new observations; at an episode's last
observation every action is marked legal.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence, Type, Union

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env import VecEnv

from solvedgym._solvedgym import _sb3_infos
from solvedgym.gym import random_seeds
from solvedgym.vector import SolvedGymVectorEnv

# What every environment shares and cannot change once made.
_SETTINGS = ("game", "seat", "illegal", "render_mode", "observation_space", "action_space", "metadata")


class SolvedGymVecEnv(VecEnv):
    """``n_envs`` environments of ``solvedgym/<Name>-v0`` as one SB3 ``VecEnv``; see the module's
    help. The keyword arguments are the environment's (the game's parameters, ``seat``,
    ``opponent`` a computer player by name or a saved agent, ``fuzz``, ``illegal``): with
    ``illegal="lose"``, PPO or DQN without masks learn that an illegal action loses."""

    def __init__(self, n_envs: int, game: str, **kwargs: Any):
        if "render_mode" in kwargs and kwargs["render_mode"] is not None:
            raise ValueError("the SB3 vector environment does not render; render one solvedgym/<Name>-v0")
        kwargs.pop("render_mode", None)
        if "autoreset_mode" in kwargs:
            raise ValueError("the SB3 vector environment resets in the same step, as SB3 expects")
        self._vector = SolvedGymVectorEnv(n_envs, game=game, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs)
        self._core = self._vector._core
        self.game = self._vector.game
        self.seat = self._vector.seat
        self.illegal = self._vector.illegal
        self._masks = np.ones((n_envs, self.game.num_distinct_actions), dtype=bool)
        self._actions: Optional[np.ndarray] = None
        self._seeded = False
        self._attributes: List[dict] = [{} for _ in range(n_envs)]
        self.render_mode = None
        super().__init__(n_envs, self._vector.single_observation_space, self._vector.single_action_space)

    # --- stepping
    def reset(self):
        if any(self._options):
            raise ValueError(f"the environments take no reset options: {self._options!r}")
        seeds = [None if s is None else int(s) % 2**64 for s in self._seeds]
        if not self._seeded:
            seeds = [r if s is None else s for s, r in zip(seeds, random_seeds(self.num_envs))]
        observations, _, _, _, masks, _, _ = self._core.reset(seeds)
        self._seeded = True
        self._masks = masks
        self.reset_infos = [{} for _ in range(self.num_envs)]
        self._reset_seeds()
        self._reset_options()
        return observations

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        if actions.dtype != np.int64:
            if not np.issubdtype(actions.dtype, np.integer):
                raise TypeError(f"actions are integers, not {actions.dtype}")
            actions = actions.astype(np.int64)
        self._actions = actions.reshape(-1)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        observations, rewards, terminated, truncated, masks, illegal, finals = self._core.step(actions)
        self._masks = masks
        # The dones and one info dict an environment, as DummyVecEnv gives them (see the
        # module's help), made in Rust: in Python the dicts cost more than the step.
        dones, infos = _sb3_infos(terminated, truncated, illegal, finals)
        return observations, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        pass

    def action_masks(self) -> np.ndarray:
        """The legal actions of every environment now, bool ``(n_envs, actions)``."""
        return self._masks

    # --- what SB3 asks of the environments one by one
    def _mask_of(self, i: int):
        return lambda: self._masks[i]

    def get_attr(self, attr_name: str, indices=None) -> List[Any]:
        out = []
        for i in self._get_indices(indices):
            if attr_name in self._attributes[i]:
                out.append(self._attributes[i][attr_name])
            elif attr_name == "action_masks":
                out.append(self._mask_of(i))
            elif attr_name in ("observation_space", "action_space"):
                out.append(getattr(self._vector, "single_" + attr_name))
            elif attr_name == "metadata":
                out.append({"render_modes": []})
            elif attr_name == "opponent_player":
                out.append(self._vector.opponent_player)
            elif attr_name in _SETTINGS:
                out.append(getattr(self, attr_name))
            else:
                raise AttributeError(
                    f"{attr_name!r}: the environments have {', '.join(_SETTINGS)}, action_masks, opponent_player, "
                    "and what set_attr set"
                )
        return out

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        if attr_name in _SETTINGS or attr_name == "action_masks":
            raise AttributeError(
                f"{attr_name!r} is fixed when the environments are made: make another vec_env"
            )
        for i in self._get_indices(indices):
            self._attributes[i][attr_name] = value

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> List[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"{method_name!r}: the environments' method is action_masks")
        if method_args or method_kwargs:
            raise TypeError("action_masks() takes no arguments")
        if indices is None:
            return list(self._masks)  # the rows, as views: a third cheaper than indexing each
        return [self._masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: Type[gymnasium.Wrapper], indices=None) -> List[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]


def vec_env(env_id: str, n_envs: int = 1, **kwargs: Any) -> SolvedGymVecEnv:
    """``n_envs`` environments of ``env_id`` (``"solvedgym/Tictactoe-v0"``, or a game's name) as
    one SB3 ``VecEnv`` stepped in Rust; ``kwargs`` are the environment's (see
    ``SolvedGymVecEnv``)."""
    if env_id in gymnasium.registry:
        spec = gymnasium.spec(env_id)
        if spec.entry_point != "solvedgym.gym:SolvedGymEnv":
            raise ValueError(f"{env_id!r} is not a solvedgym environment")
        game = spec.kwargs["game"]
    else:
        game = env_id
    return SolvedGymVecEnv(n_envs, game, **kwargs)
