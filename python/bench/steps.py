"""Per-step speed from Python on tic-tac-toe with random legal moves, back to back in one run:
OpenSpiel's pyspiel (`state.apply_action` loop), PettingZoo's tictactoe_v3, and solvedgym's game
API, AEC environment and vector environment. Prints steps per second and the ratios.

The vector environment steps N environments per call against a random opponent played in Rust,
the learner's random legal moves drawn in numpy from the masks. Two counts: Gymnasium's
environment steps (N per call, the autoreset steps included) and, the stricter, the learner's
moves alone (each followed by an opponent's move inside, not counted).

    pip install open_spiel pettingzoo pygame
    python python/bench/steps.py [--steps 200000] [--rounds 5]
"""
import argparse
import random
import time

import numpy as np


def pyspiel_loop(steps, rng):
    import pyspiel

    game = pyspiel.load_game("tic_tac_toe")
    done = 0
    while done < steps:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            done += 1
    return done


def solvedgym_game_loop(steps, rng):
    import solvedgym

    game = solvedgym.make("tictactoe")
    done = 0
    while done < steps:
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, rng.choice(game.legal_actions(state)))
            done += 1
    return done


def aec_loop(make_env, steps, rng):
    """Random legal moves drawn from the observation's ``action_mask`` (what every PettingZoo
    classic game gives)."""
    env = make_env()
    done = 0
    seed = 0
    while done < steps:
        env.reset(seed=seed)
        seed += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
                done += 1
            env.step(action)
    return done


def vector_loop(steps, num_envs, rng):
    import gymnasium

    import solvedgym  # noqa: F401  (registers the environments)

    envs = gymnasium.make_vec("solvedgym/Tictactoe-v0", num_envs=num_envs, vectorization_mode="vector_entry_point")
    generator = np.random.default_rng(rng.randrange(2**32))
    _, info = envs.reset(seed=1)
    env_steps = moves = 0
    ended = np.zeros(num_envs, dtype=bool)
    while env_steps < steps:
        masks = info["action_mask"]
        actions = (generator.random(masks.shape) * masks).argmax(axis=1)
        _, _, terminated, truncated, info = envs.step(actions)
        env_steps += num_envs
        moves += num_envs - int(ended.sum())
        ended = terminated | truncated
    return env_steps, moves


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    ap.add_argument("--num-envs", type=int, default=1024, help="the vector environment's size")
    ap.add_argument("--rounds", type=int, default=5, help="rounds, each run once a round; the best of each is kept")
    args = ap.parse_args()
    from pettingzoo.classic import tictactoe_v3

    import solvedgym.pettingzoo

    runs = {
        "pyspiel apply_action loop": lambda r: pyspiel_loop(args.steps, r),
        "solvedgym Game.apply loop": lambda r: solvedgym_game_loop(args.steps, r),
        "PettingZoo tictactoe_v3 (AEC)": lambda r: aec_loop(tictactoe_v3.env, args.steps // 10, r),
        "solvedgym AEC env": lambda r: aec_loop(lambda: solvedgym.pettingzoo.env("tictactoe"), args.steps, r),
    }
    # The runs alternate, one each a round, and each keeps its best round: on a shared machine
    # the same loop runs 30-50 % slower in some minutes than in others.
    rates = dict.fromkeys([*runs, "vector env steps", "vector env moves"], 0.0)
    for _ in range(args.rounds):
        for name, run in runs.items():
            rng = random.Random(1)
            t = time.perf_counter()
            n = run(rng)
            rates[name] = max(rates[name], n / (time.perf_counter() - t))
        rng = random.Random(1)
        t = time.perf_counter()
        env_steps, moves = vector_loop(args.steps * 10, args.num_envs, rng)
        seconds = time.perf_counter() - t
        rates["vector env steps"] = max(rates["vector env steps"], env_steps / seconds)
        rates["vector env moves"] = max(rates["vector env moves"], moves / seconds)
    print(f"best of {args.rounds} rounds, the runs alternated")
    for name in runs:
        print(f"{name:32} {rates[name]:12,.0f} steps/s")
    print(f"{'solvedgym vector env (N=' + str(args.num_envs) + ')':32} {rates['vector env steps']:12,.0f} env steps/s")
    print(f"{'  of which the learner moved':32} {rates['vector env moves']:12,.0f} moves/s")
    ours = rates["solvedgym AEC env"]
    print(f"solvedgym AEC env / pyspiel loop:         {ours / rates['pyspiel apply_action loop']:.2f}x")
    print(f"solvedgym AEC env / PettingZoo tictactoe: {ours / rates['PettingZoo tictactoe_v3 (AEC)']:.1f}x")
    pz = rates["PettingZoo tictactoe_v3 (AEC)"]
    print(f"vector env steps / PettingZoo tictactoe:  {rates['vector env steps'] / pz:.0f}x")
    print(f"vector env learner moves / PettingZoo:    {rates['vector env moves'] / pz:.0f}x")
    print(f"solvedgym Game.apply loop / pyspiel loop: {rates['solvedgym Game.apply loop'] / rates['pyspiel apply_action loop']:.2f}x")


if __name__ == "__main__":
    main()
