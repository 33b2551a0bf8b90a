"""Plies per second of solvedgym's vector environment against pgx's tic-tac-toe under
``jax.jit(jax.vmap(...))`` on the CPU, back to back in one process, at batch sizes 1,024 and
8,192: random legal moves, episodes restarted as they end, the best of several rounds each.

- **pgx**: one jitted call per ply, ``jax.jit`` of the batch's move (each environment's random
  legal action drawn in JAX from its ``legal_action_mask``) and ``jax.vmap`` of
  ``auto_reset(env.step, env.init)``: every environment plays one ply a call. This is the loop a
  pgx user writes in Python; its fully compiled form (``jax.lax.scan`` over many plies, no Python
  between them) is measured too, as the best pgx can do.
- **solvedgym**: ``SolvedGymVectorEnv`` (Gymnasium's next-step autoreset mode, its default;
  ``--autoreset SameStep`` for the other) against its random opponent, played in Rust inside
  the call. The learner's random legal actions drawn two ways: in numpy from the masks between
  calls, as a Python learner's own computation would be (``(rng.random(masks.shape) *
  masks).argmax(1)``), and by the engine (``envs.sample_legal()``), as pgx's are drawn inside its
  jitted call. A call plays the learner's move and the opponent's reply: its plies are counted
  from the boards (pieces placed, the ended episodes' last boards included) in a counting pass
  before the timed rounds.

Both libraries' threads are left as they come: XLA's use both cores, and the vector
environment steps on as many as the process has, each with 2,048 environments or more (one at
1,024, two at 8,192 on two cores; ``--threads 1`` keeps it to one). Plies a second, the best
of ``--rounds`` rounds of ``--seconds`` each, the four runs alternated within each round.

    pip install "pgx==2.6.*" "jax[cpu]" ./python
    python python/bench/pgx_vector.py [--batch 1024 8192] [--seconds 2] [--rounds 3] [--threads N]
"""

import argparse
import os
import time

import numpy as np


def pgx_runner(batch: int, scan_length: int):
    """Functions (per_call(plies) -> plies, scanned(plies) -> plies), each playing at least
    `plies` plies of `batch` tic-tac-toe games, ended games restarted."""
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("tic_tac_toe")
    step = jax.vmap(auto_reset(env.step, env.init))

    def ply(state, key):
        key, k_act, k_step = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(k_act, logits, axis=-1)
        return step(state, actions, jax.random.split(k_step, batch)), key

    ply_jit = jax.jit(ply)

    @jax.jit
    def many(state, key):
        def body(carry, _):
            return ply(*carry), None

        return jax.lax.scan(body, (state, key), None, length=scan_length)[0]

    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch))
    # Compiled before the timing.
    jax.block_until_ready(ply_jit(state, key))
    jax.block_until_ready(many(state, key))

    def per_call(plies):
        nonlocal state, key
        calls = -(-plies // batch)
        for _ in range(calls):
            state, key = ply_jit(state, key)
        jax.block_until_ready(state)
        return calls * batch

    def scanned(plies):
        nonlocal state, key
        calls = -(-plies // (batch * scan_length))
        for _ in range(calls):
            state, key = many(state, key)
        jax.block_until_ready(state)
        return calls * batch * scan_length

    return per_call, scanned


def solvedgym_runner(batch: int, autoreset: str, native: bool, threads=None):
    """A function (plies) -> plies playing at least `plies` plies of `batch` environments, and
    the plies a call plays on average (counted from the boards)."""
    from gymnasium.vector import AutoresetMode

    from solvedgym.vector import SolvedGymVectorEnv

    mode = AutoresetMode(autoreset)
    envs = SolvedGymVectorEnv(batch, game="tictactoe", autoreset_mode=mode, threads=threads)
    generator = np.random.default_rng(1)

    def draw(masks):
        if native:
            return envs.sample_legal()
        return (generator.random(masks.shape) * masks).argmax(axis=1)

    # The counting pass, board by board (tic-tac-toe's third plane is the empty squares): a
    # call's plies are the pieces on the boards after it less those before it; where an episode
    # ended in the call (same-step mode), its last board's pieces plus the new board's; where
    # one had ended in the call before (next-step mode), the new board's.
    def pieces(observations):
        return 9 - observations[:, 18:27].sum(axis=1)

    observations, info = envs.reset(seed=1)
    masks = info["action_mask"]
    waiting = np.zeros(batch, dtype=bool)
    plies = calls = 0
    for _ in range(max(50, 400_000 // batch)):
        before = pieces(observations)
        observations, _, terminated, truncated, info = envs.step(draw(masks))
        masks = info["action_mask"]
        ended = terminated | truncated
        after = pieces(observations)
        if mode == AutoresetMode.SAME_STEP:
            last = after.copy()
            if ended.any():
                last[ended] = pieces(np.stack(info["final_obs"][ended]))
            plies += (last - before).sum() + after[ended].sum()
        else:
            plies += np.where(waiting, after, after - before).sum()
            waiting = ended
        calls += 1
    per_call_plies = float(plies) / calls

    def run(n_plies):
        nonlocal masks
        calls = int(-(-n_plies // per_call_plies))
        for _ in range(calls):
            _, _, _, _, info = envs.step(draw(masks))
            masks = info["action_mask"]
        return calls * per_call_plies

    run.threads = envs.threads
    return run, per_call_plies


def best_rate(run, seconds: float, rounds: int, chunk: int) -> float:
    best = 0.0
    for _ in range(rounds):
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            done += run(chunk)
        best = max(best, done / (time.perf_counter() - start))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, nargs="+", default=[1024, 8192])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--scan", type=int, default=100, help="plies per compiled scan")
    parser.add_argument("--threads", type=int, default=None, help="the vector environment's threads (default: the cores)")
    parser.add_argument("--autoreset", default="NextStep", choices=["NextStep", "SameStep"],
                        help="the vector environment's autoreset mode (Gymnasium's default: NextStep)")
    args = parser.parse_args()
    import jax

    print(f"jax {jax.__version__} on {jax.devices()[0].platform}, {os.cpu_count()} CPUs")
    for batch in args.batch:
        per_call, scanned = pgx_runner(batch, args.scan)
        numpy_draw, per_call_plies = solvedgym_runner(batch, args.autoreset, native=False, threads=args.threads)
        native_draw, _ = solvedgym_runner(batch, args.autoreset, native=True, threads=args.threads)
        chunk = batch * 20
        runs = {
            "pgx jit(vmap) per call": per_call,
            "pgx lax.scan": scanned,
            "solvedgym, numpy draw": numpy_draw,
            "solvedgym, sample_legal": native_draw,
        }
        rates = {}
        for _ in range(args.rounds):
            for name, run in runs.items():
                rates[name] = max(rates.get(name, 0.0), best_rate(run, args.seconds, 1, chunk))
        print(
            f"batch {batch:,} (solvedgym: {per_call_plies / batch:.3f} plies per environment and call, "
            f"{numpy_draw.threads} thread{'s' if numpy_draw.threads > 1 else ''})"
        )
        for name, rate in rates.items():
            print(f"  {name:<26} {rate:>14,.0f} plies/s")
        for ours in ["solvedgym, numpy draw", "solvedgym, sample_legal"]:
            for theirs in ["pgx jit(vmap) per call", "pgx lax.scan"]:
                print(f"  {ours.split(', ')[1]:>13} / {theirs:<22} {rates[ours] / rates[theirs]:>6.2f}x")


if __name__ == "__main__":
    main()
