"""Stable-Baselines3's `SubprocVecEnv` over solvedgym's Gymnasium environments: an illegal
action in a worker process raises in the parent rather than hanging it (run in a subprocess
with a time limit, so that a hang fails the test)."""

import re
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("stable_baselines3")

SUBPROC_ILLEGAL = """
import gymnasium, numpy as np, solvedgym
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

def make():
    import solvedgym.gym  # registers solvedgym/<Name>-v0 where a spawned worker runs this

    return gymnasium.make("solvedgym/Tictactoe-v0")

def play(envs):
    # Seeded; the taken square again at the first environment, a legal move at the second.
    envs.seed(0)
    envs.reset()
    _, _, _, infos = envs.step(np.array([4, 4]))
    legal = int(np.flatnonzero(infos[1]["action_mask"])[0])
    envs.step(np.array([4, legal]))


# The reference: SB3's own vector environment in this process raises the rules' error.
try:
    play(DummyVecEnv([make, make]))
except solvedgym.IllegalActionError as e:
    print("REFERENCE", e, flush=True)

envs = SubprocVecEnv([make, make])  # SB3's default start method (forkserver on Linux)
try:
    play(envs)
except Exception as e:
    # SB3's worker sends no exception back: it ends, and the parent's pipe reports it.
    print("RAISED", type(e).__name__, flush=True)
"""


def test_an_illegal_action_in_a_subproc_vec_env_raises_in_the_parent():
    script = textwrap.dedent(SUBPROC_ILLEGAL)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    # A closed pipe (EOFError, as SB3 2.x reports it), or the error itself should SB3 send it.
    raised = re.search(r"^RAISED (\w+)$", done.stdout, re.M)
    assert raised, done.stderr[-3000:]
    assert raised[1] in ("EOFError", "ConnectionResetError", "BrokenPipeError", "IllegalActionError")
    reference = [line for line in done.stdout.splitlines() if line.startswith("REFERENCE ")]
    assert reference, done.stdout
    # The worker's own report names the rules' error and its message.
    message = reference[0][len("REFERENCE ") :]
    assert f"solvedgym.IllegalActionError: {message}" in done.stderr, done.stderr[-3000:]
