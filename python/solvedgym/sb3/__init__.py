"""Stable-Baselines3 on solvedgym: ``vec_env(env_id, n_envs, **kwargs)``, an SB3 ``VecEnv``
stepped in Rust.

    from sb3_contrib import MaskablePPO
    import solvedgym.sb3
    env = solvedgym.sb3.vec_env("solvedgym/Tictactoe-v0", n_envs=64, opponent="random")
    model = MaskablePPO("MlpPolicy", env).learn(100_000)

Stable-Baselines3 is imported when a name of this package is first used, so that ``import
solvedgym`` works without it. Each name lives in a module of its own (``_vec_env.py``, ...).
"""

from __future__ import annotations

import importlib
from typing import Any

# name -> the module of this package that defines it
_NAMES = {
    "vec_env": "._vec_env",
    "SolvedGymVecEnv": "._vec_env",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    module = _NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'solvedgym.sb3' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_NAMES))
