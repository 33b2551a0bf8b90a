"""Per-step speed from Python on tic-tac-toe with random legal moves, back to back in one run:
OpenSpiel's pyspiel (`state.apply_action` loop), PettingZoo's tictactoe_v3, and solvedgym's game
API and AEC environment. Prints steps per second and the ratios.

    pip install open_spiel pettingzoo pygame
    python python/bench/steps.py [--steps 200000]
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000)
    args = ap.parse_args()
    from pettingzoo.classic import tictactoe_v3

    import solvedgym.pettingzoo

    runs = {
        "pyspiel apply_action loop": lambda r: pyspiel_loop(args.steps, r),
        "solvedgym Game.apply loop": lambda r: solvedgym_game_loop(args.steps, r),
        "PettingZoo tictactoe_v3 (AEC)": lambda r: aec_loop(tictactoe_v3.env, args.steps // 10, r),
        "solvedgym AEC env": lambda r: aec_loop(lambda: solvedgym.pettingzoo.env("tictactoe"), args.steps, r),
    }
    rates = {}
    for name, run in runs.items():
        rng = random.Random(1)
        t = time.perf_counter()
        n = run(rng)
        rates[name] = n / (time.perf_counter() - t)
        print(f"{name:32} {rates[name]:12,.0f} steps/s")
    ours = rates["solvedgym AEC env"]
    print(f"solvedgym AEC env / pyspiel loop:         {ours / rates['pyspiel apply_action loop']:.2f}x")
    print(f"solvedgym AEC env / PettingZoo tictactoe: {ours / rates['PettingZoo tictactoe_v3 (AEC)']:.1f}x")
    print(f"solvedgym Game.apply loop / pyspiel loop: {rates['solvedgym Game.apply loop'] / rates['pyspiel apply_action loop']:.2f}x")


if __name__ == "__main__":
    main()
