"""A Gymnasium vector environment stepped in Rust: N environments of one game in one call.

    import gymnasium, solvedgym
    envs = gymnasium.make_vec("solvedgym/Tictactoe-v0", num_envs=256, vectorization_mode="vector_entry_point")
    observations, info = envs.reset(seed=1)
    actions = envs.sample_legal()   # random legal moves, or a policy on the batch
    observations, rewards, terminated, truncated, info = envs.step(actions)

(or ``solvedgym.vector.SolvedGymVectorEnv(256, game="tictactoe")``). The keyword arguments
are those of ``solvedgym/<Name>-v0`` (the game's parameters, ``seat``, ``opponent``, ``fuzz``,
``illegal``) except that the opponent is a computer player by name (``"random"``,
``"optimal"``, ``"greedy"``, search settings, a saved agent): a Python callable would be called
once per move and undo the point. Everything else happens in Rust with Python's interpreter
released: the learner's actions, the opponents' moves, chance, the observations (float32, ``(N,
observation_size)``) and the action masks (``info["action_mask"]``, bool ``(N, actions)``, also
``action_masks()``). Where an illegal action lost (``illegal="lose"``), ``info["illegal"]`` is
True (with ``info["_illegal"]``, Gymnasium's mask of the environments that have the key).

``autoreset_mode`` is Gymnasium's (``gymnasium.vector.AutoresetMode`` or its value):

- ``NEXT_STEP`` (default): when an episode ends, ``step`` returns its last observation with the
  reward and ``terminated``/``truncated``; the next ``step`` ignores that environment's action
  and starts a new episode (reward 0).
- ``SAME_STEP``: the ``step`` that ends an episode starts the next one at once and returns its
  first observation and mask, with the ended episode's reward and flags; the last observation
  is ``info["final_obs"]`` (an object array: the observation where an episode ended, None
  elsewhere) and its info ``info["final_info"]`` (``action_mask``, and ``illegal`` where one
  lost), with ``info["_final_obs"]``/``info["_final_info"]`` saying where, as Gymnasium's
  ``SyncVectorEnv`` gives them.

With ``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``, pass it as a keyword
(``autoreset_mode=AutoresetMode.SAME_STEP``); Gymnasium's ``vector_kwargs`` are for its own
``SyncVectorEnv``/``AsyncVectorEnv``.

At an episode's last observation every action is marked legal (no action is asked for there),
so a masked policy never meets an empty mask. ``reset(seed=seed)`` seeds environment ``i`` with
``seed + i`` (or ``seed[i]`` from a list); ``reset()`` starts each environment's next episode of
its seed (random seeds the first time). ``reset(options={"reset_mask": mask})`` (a bool array,
Gymnasium's option) starts only the environments where ``mask`` is True; the others keep their
episode, and their observation is returned unchanged. Episode ``k`` of an environment depends
on its seed and ``k`` only, so the same seed gives the same episodes here as in the single
environment and in Gymnasium's vector environments of it. ``copy.deepcopy`` and ``pickle``
copy the environments mid-episode.

Large batches are stepped by several threads (``threads=None``, the default: as many as the
process has cores, each with 2,048 environments or more; a number above the cores counts as the
cores; ``threads=1`` keeps to the caller's thread, as under ``SubprocVecEnv`` workers that share
the cores): each environment is stepped by one thread from its own stream, so the results are
the same whatever the number. The threads are kept between steps and wait for the next one
spinning for 200 µs before they sleep (``SOLVEDGYM_SPIN_US=0`` in the process's environment:
they sleep at once). One Python thread at a time uses the environments: a call from another
while a step or ``sample_legal()`` is under way raises ``RuntimeError`` at once.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import solvedgym
from solvedgym._solvedgym import VectorCore
from solvedgym.gym import check_illegal, random_seeds, seat_number


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
        autoreset_mode: Union[AutoresetMode, str] = AutoresetMode.NEXT_STEP,
        threads: Optional[int] = None,
        **params: Any,
    ):
        self._arguments = dict(
            num_envs=num_envs, game=game, seat=seat, opponent=opponent, fuzz=fuzz, illegal=illegal,
            render_mode=render_mode, autoreset_mode=autoreset_mode, threads=threads, **params,
        )
        if threads is not None and (
            isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1
        ):
            raise ValueError(f"threads={threads!r}: a whole number, at least 1 (or None: the process's cores)")
        if isinstance(opponent, solvedgym.Agent):
            opponent = opponent.spec
        if not isinstance(opponent, str):
            raise TypeError(
                "the vector environment's opponent is a computer player by name "
                "('random', 'optimal', 'greedy', 'depth=3', 'agent=PATH') or a saved agent; "
                "use solvedgym/<Name>-v0 for a callable"
            )
        check_illegal(illegal)
        if render_mode is not None:
            raise ValueError("the vector environment does not render; render one solvedgym/<Name>-v0")
        try:
            self.autoreset_mode = AutoresetMode(autoreset_mode)
        except ValueError:
            raise ValueError(
                f"autoreset_mode={autoreset_mode!r}: AutoresetMode.NEXT_STEP or AutoresetMode.SAME_STEP"
            ) from None
        modes = {AutoresetMode.NEXT_STEP: "next_step", AutoresetMode.SAME_STEP: "same_step"}
        if self.autoreset_mode not in modes:
            raise ValueError(f"autoreset_mode={autoreset_mode!r}: NEXT_STEP or SAME_STEP (DISABLED is not offered)")
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.game = solvedgym.make(game, **params)
        self.seat = seat_number(self.game, seat)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs={num_envs!r}: the number of environments is a whole number, at least 1")
        if not 1 <= num_envs < 2**32:
            raise ValueError(f"num_envs={num_envs!r}: the number of environments is at least 1 (and below 2^32)")
        self.num_envs = int(num_envs)
        self.illegal = illegal
        self._core = VectorCore(
            self.game, self.num_envs, self.seat, opponent, fuzz, illegal == "lose", modes[self.autoreset_mode]
        )
        self._core.set_threads(None if threads is None else int(threads))
        low, high = self.game.observation_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.game.num_distinct_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._masks = np.ones((self.num_envs, self.game.num_distinct_actions), dtype=bool)
        self._observations = np.zeros((self.num_envs, self.game.observation_size), dtype=np.float32)
        self._all = np.ones(self.num_envs, dtype=bool)
        self._seeded = False
        self._draws = 0

    def _info(self, masks: np.ndarray, illegal: np.ndarray, finals: Optional[np.ndarray], ended) -> dict:
        self._masks = masks
        info = {"action_mask": masks, "_action_mask": self._all}
        lost = illegal.any()
        if finals is None:
            if lost:
                info["illegal"], info["_illegal"] = illegal, illegal
            return info
        if ended.any():
            final_obs = np.full(self.num_envs, None, dtype=object)
            where = np.flatnonzero(ended)
            # Row views of `finals`, put in without a Python loop over the rows.
            final_obs[where] = np.fromiter(finals[where], dtype=object, count=len(where))
            final_info = {
                "action_mask": np.ones_like(masks),
                "_action_mask": ended,
            }
            if lost:
                final_info["illegal"], final_info["_illegal"] = illegal, illegal
            info["final_obs"], info["_final_obs"] = final_obs, ended
            info["final_info"], info["_final_info"] = final_info, ended
        return info

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
    def threads(self) -> int:
        """The threads a step takes: up to ``threads`` (the constructor's; the process's cores
        by default, and never more), each with 2,048 environments or more, so one below 4,096
        environments."""
        return self._core.threads

    def action_masks(self) -> np.ndarray:
        """The legal actions of every environment now, bool ``(num_envs, actions)``."""
        return self._masks

    def sample_legal(self) -> np.ndarray:
        """A uniformly random legal action of every environment now, int64 ``(num_envs,)``,
        drawn in Rust (0 where an episode just ended and no action is asked for): random play,
        or the exploring moves of an epsilon-greedy learner,
        ``np.where(explore, envs.sample_legal(), greedy)``. Each call draws anew, from a stream
        of its own (the environments' seeds, episodes and moves, and the number of the call), so
        the episodes are the same whether or not one samples, and a copy samples as the
        original would."""
        actions = self._core.sample_legal(self._draws)
        self._draws += 1
        return actions

    def reset(
        self,
        *,
        seed: Optional[Union[int, Sequence[int]]] = None,
        options: Optional[dict] = None,
    ):
        super().reset(seed=seed if seed is None or isinstance(seed, (int, np.integer)) else int(seed[0]))
        mask = None
        if options is not None and "reset_mask" in options:
            mask = options["reset_mask"]
            if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise TypeError(
                    f"options['reset_mask']: a numpy bool array of shape ({self.num_envs},), not {mask!r}"
                )
            if not mask.any():
                raise ValueError("options['reset_mask']: at least one environment to reset (True)")
            if not self._seeded and not mask.all():
                raise ValueError("options['reset_mask']: the first reset starts every environment")
        if seed is None:
            seeds = [None] * self.num_envs if self._seeded else random_seeds(self.num_envs)
        elif isinstance(seed, (int, np.integer)):
            seeds = [(int(seed) + i) % 2**64 for i in range(self.num_envs)]
        else:
            seeds = [None if s is None else int(s) % 2**64 for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} environments")
            if not self._seeded and None in seeds:
                seeds = [r if s is None else s for s, r in zip(seeds, random_seeds(self.num_envs))]
        observations, _, _, _, masks, _, _ = self._core.reset(seeds, None if mask is None else mask.tolist())
        self._seeded = True
        self._observations = observations
        return observations, self._info(masks, np.zeros(self.num_envs, dtype=bool), None, None)

    def step(self, actions):
        actions = np.asarray(actions)
        if actions.dtype != np.int64:
            if not np.issubdtype(actions.dtype, np.integer):
                raise TypeError(f"actions are integers, not {actions.dtype}")
            actions = actions.astype(np.int64)
        observations, rewards, terminated, truncated, masks, illegal, finals = self._core.step(actions.reshape(-1))
        self._observations = observations
        ended = terminated | truncated if finals is not None else None
        return observations, rewards, terminated, truncated, self._info(masks, illegal, finals, ended)

    def close_extras(self, **kwargs: Any) -> None:
        pass

    # Copies: the constructor's arguments and the episodes' moves, played again.
    def __getstate__(self) -> dict:
        return {
            "arguments": self._arguments,
            "episodes": self._core.snapshot(),
            "seeded": self._seeded,
            "draws": self._draws,
            "masks": self._masks,
            "observations": self._observations,
            "np_random": self._np_random,
            "spec": getattr(self, "spec", None),
        }

    def __setstate__(self, saved: dict) -> None:
        self.__init__(**saved["arguments"])
        self._core.restore(saved["episodes"])
        self._seeded, self._masks, self._np_random = saved["seeded"], saved["masks"], saved["np_random"]
        self._draws = saved.get("draws", 0)
        self._observations, self.spec = saved["observations"], saved["spec"]
