"""Steps per second of solvedgym's SB3 VecEnv (``solvedgym.sb3.vec_env``, stepped in Rust)
against SB3's own ``DummyVecEnv`` of the single environment ``solvedgym/<Name>-v0``: random
legal actions drawn from the masks (``env_method("action_masks")``, as MaskablePPO reads them),
64 environments, the best of 3 rounds each, the two measured back to back on this machine.

Then the ceiling any ``VecEnv`` could reach against that ``DummyVecEnv``: the work every step
asks of the client whatever the environment (drawing the actions from the masks, sb3-contrib's
``np.stack`` of the ``env_method`` list on MaskablePPO's path, one info dict per environment,
which SB3 reads) timed alone, and the ``DummyVecEnv``'s time a step divided by it: an
environment that cost nothing would reach that ratio and no more.

    python python/bench/sb3_vec.py [--game tictactoe] [--n-envs 64] [--seconds 2]
"""

import argparse
import time

import gymnasium
import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

import solvedgym.gym  # noqa: F401  (registers solvedgym/<Name>-v0)
import solvedgym.sb3


def steps_per_second(env, seconds: float, native_masks: bool = False) -> float:
    """Environment steps a second (each VecEnv step steps every environment); the masks from
    ``env_method("action_masks")`` stacked, as MaskablePPO reads them, or with `native_masks`
    from ``env.action_masks()``, one array."""
    rng = np.random.default_rng(0)
    env.seed(1)
    env.reset()
    steps, start = 0, time.perf_counter()
    while True:
        for _ in range(50):
            masks = env.action_masks() if native_masks else np.stack(env.env_method("action_masks"))
            env.step((rng.random(masks.shape) * masks).argmax(axis=1))
            steps += env.num_envs
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def seconds_per_call(work, seconds: float) -> float:
    """The best of five runs of `seconds`/5 each: seconds a call of `work()`."""
    best = float("inf")
    for _ in range(5):
        calls, start = 0, time.perf_counter()
        while True:
            for _ in range(100):
                work()
            calls += 100
            elapsed = time.perf_counter() - start
            if elapsed >= seconds / 5:
                break
        best = min(best, elapsed / calls)
    return best


def client_floor(env, seconds: float) -> dict:
    """Seconds a step of the client's own work, timed alone on `env`'s masks: the draw, the
    draw with sb3-contrib's stacking of the env_method list, and one info dict an environment."""
    rng = np.random.default_rng(0)
    env.seed(1)
    env.reset()
    masks = env.action_masks()
    rows = env.env_method("action_masks")
    n = env.num_envs
    draw = seconds_per_call(lambda: (rng.random(masks.shape) * masks).argmax(axis=1), seconds)
    stack = seconds_per_call(lambda: np.stack(rows), seconds)
    infos = seconds_per_call(lambda: [{} for _ in range(n)], seconds)
    return {"draw": draw, "stack": stack, "infos": infos}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    env_id = f"solvedgym/{solvedgym.gym.env_name(args.game)}-v0"
    ours = solvedgym.sb3.vec_env(env_id, n_envs=args.n_envs)
    dummy = DummyVecEnv([lambda: gymnasium.make(env_id) for _ in range(args.n_envs)])
    runs = {
        "solvedgym.sb3.vec_env": lambda: steps_per_second(ours, args.seconds),
        "  masks: action_masks()": lambda: steps_per_second(ours, args.seconds, native_masks=True),
        "DummyVecEnv": lambda: steps_per_second(dummy, args.seconds),
    }
    best = dict.fromkeys(runs, 0.0)
    for _ in range(args.rounds):
        for name, run in runs.items():
            best[name] = max(best[name], run())
    print(f"{env_id}, {args.n_envs} environments, random legal actions, best of {args.rounds} rounds")
    for name, rate in best.items():
        print(f"{name:<24} {rate:>12,.0f} steps/s")
    for name in ["solvedgym.sb3.vec_env", "  masks: action_masks()"]:
        print(f"ratio ({name.strip()}) {best[name] / best['DummyVecEnv']:>{22 - len(name.strip())}.1f}x")
    floor = client_floor(ours, args.seconds)
    dummy_step = args.n_envs / best["DummyVecEnv"]
    print(f"\nthe client's own work a step of {args.n_envs} environments, timed alone:")
    parts = {
        "drawing the actions from the masks": floor["draw"],
        "np.stack of env_method('action_masks')": floor["stack"],
        f"{args.n_envs} info dicts": floor["infos"],
        "DummyVecEnv's whole step": dummy_step,
    }
    for label, cost in parts.items():
        print(f"  {label:<40} {cost * 1e6:8.1f} us")
    masked = floor["draw"] + floor["stack"] + floor["infos"]
    native = floor["draw"] + floor["infos"]
    print(f"{'ceiling of any VecEnv (env_method)':<42} {dummy_step / masked:8.1f}x")
    print(f"{'ceiling of any VecEnv (action_masks())':<42} {dummy_step / native:8.1f}x")


if __name__ == "__main__":
    main()
