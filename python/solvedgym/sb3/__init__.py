"""Stable-Baselines3 on solvedgym: ``vec_env(env_id, n_envs, **kwargs)``, an SB3 ``VecEnv``
stepped in Rust; ``policy(model)``, a model's greedy play as a policy ``Solution.evaluate``
takes; and ``ExactEvalCallback(solution, eval_freq=...)``, which evaluates the model exactly as
it trains and logs the figures to SB3's logger.

    from sb3_contrib import MaskablePPO
    import solvedgym.sb3
    env = solvedgym.sb3.vec_env("solvedgym/Tictactoe-v0", n_envs=64, opponent="random")
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

Stable-Baselines3 and torch are imported when a name of this package is first used, so that
``import solvedgym`` and ``import solvedgym.sb3`` work without them. Each name lives in a module
of its own (``_vec_env.py``, ``_policy.py``, ``_callback.py``).
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> the module of this package that defines it
_NAMES = {
    "vec_env": "._vec_env",
    "SolvedGymVecEnv": "._vec_env",
    "policy": "._policy",
    "SB3Policy": "._policy",
    "ExactEvalCallback": "._callback",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'solvedgym.sb3' has no attribute {name!r}")
    if name == "ExactEvalCallback":
        try:
            import stable_baselines3  # noqa: F401
        except ImportError as e:
            raise ImportError(
                "solvedgym.sb3.ExactEvalCallback needs stable-baselines3: pip install stable-baselines3",
                name="stable_baselines3",
            ) from e
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_NAMES))
