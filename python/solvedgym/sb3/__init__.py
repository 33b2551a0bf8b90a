"""stable-baselines3 with the exact evaluator: `policy(model)` gives a model's greedy play as a
policy `Solution.evaluate` takes, and `ExactEvalCallback(solution, eval_freq=...)` evaluates the
model exactly as it trains and logs the figures to SB3's logger. Nothing here imports torch or
SB3 until it is used, so `import solvedgym.sb3` works without them."""

from typing import Any

__all__ = ["ExactEvalCallback", "SB3Policy", "policy"]


def __getattr__(name: str) -> Any:
    if name in ("policy", "SB3Policy"):
        from . import _policy

        return getattr(_policy, name)
    if name == "ExactEvalCallback":
        try:
            import stable_baselines3  # noqa: F401
        except ImportError as e:
            raise ImportError(
                "solvedgym.sb3.ExactEvalCallback needs stable-baselines3: pip install stable-baselines3",
                name="stable_baselines3",
            ) from e
        from ._callback import ExactEvalCallback

        return ExactEvalCallback
    raise AttributeError(f"module 'solvedgym.sb3' has no attribute {name!r}")
