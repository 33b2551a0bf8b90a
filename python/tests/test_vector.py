"""The vector environment stepped in Rust: Gymnasium's conventions, autoreset, seeds, errors."""

import gymnasium
import numpy as np
import pytest

import solvedgym
from solvedgym.vector import SolvedGymVectorEnv


def random_actions(rng, masks):
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def test_make_vec_shapes_and_spaces():
    envs = gymnasium.make_vec("solvedgym/Hexapawn-v0", num_envs=5, vectorization_mode="vector_entry_point")
    obs, info = envs.reset(seed=3)
    assert obs.shape == (5, 19) and obs.dtype == np.float32
    assert info["action_mask"].shape == (5, envs.single_action_space.n)
    assert envs.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs, rewards, terminated, truncated, info = envs.step(random_actions(rng, info["action_mask"]))
        assert envs.observation_space.contains(obs)
        assert rewards.dtype == np.float64 and terminated.dtype == bool
        assert (info["action_mask"].sum(axis=1) > 0).all(), "never an empty mask"
        assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}


def test_next_step_autoreset():
    envs = SolvedGymVectorEnv(3, game="tictactoe", opponent="random")
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = np.zeros(3, dtype=bool)
    episodes = 0
    for _ in range(200):
        obs, rewards, terminated, truncated, info = envs.step(random_actions(rng, info["action_mask"]))
        done = terminated | truncated
        # The step after an end starts afresh: reward 0, not done, an empty board (x to move).
        assert (rewards[ended] == 0).all() and not done[ended].any()
        assert (obs[ended][:, 18:27] == 1).all()
        episodes += int(done.sum())
        ended = done
    assert episodes > 20


def test_each_environment_depends_on_its_seed_only():
    rng = np.random.default_rng(5)
    actions = [rng.integers(0, 9, size=4) for _ in range(60)]

    def run(envs, seed, columns):
        obs, info = envs.reset(seed=seed)
        out = [np.concatenate([obs, np.zeros((len(obs), 2), np.float32)], axis=1)]
        for a in actions:
            masks = info["action_mask"]
            # a legal action: the given one where legal, else the first legal one
            a = a[columns] % masks.shape[1]
            a = np.where(masks[np.arange(len(masks)), a], a, masks.argmax(axis=1))
            obs, r, te, tr, info = envs.step(a)
            out.append(np.concatenate([obs, r[:, None], te[:, None]], axis=1))
        return np.stack(out)

    together = run(SolvedGymVectorEnv(4, game="dice-race", players=3, opponent="random"), 10, slice(None))
    for i in range(4):
        alone = run(SolvedGymVectorEnv(1, game="dice-race", players=3, opponent="random"), 10 + i, slice(i, i + 1))
        np.testing.assert_array_equal(together[:, i], alone[:, 0])
    again = run(SolvedGymVectorEnv(4, game="dice-race", players=3, opponent="random"), 10, slice(None))
    np.testing.assert_array_equal(together, again)


def test_optimal_opponent_never_loses():
    envs = SolvedGymVectorEnv(64, game="tictactoe", seat="o", opponent="optimal")
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(2)
    for _ in range(40):
        obs, rewards, terminated, truncated, info = envs.step(random_actions(rng, info["action_mask"]))
        assert (rewards <= 0).all()


def test_illegal_actions_raise_or_lose():
    envs = SolvedGymVectorEnv(2, game="tictactoe")
    obs, info = envs.reset(seed=0)
    with pytest.raises(solvedgym.IllegalActionError, match="environment 1"):
        envs.step(np.array([0, 99]))
    # Nothing moved: the same observations after a legal step as from a fresh reset.
    fresh = SolvedGymVectorEnv(2, game="tictactoe")
    fresh.reset(seed=0)
    a = np.array([4, 4])
    np.testing.assert_array_equal(envs.step(a)[0], fresh.step(a)[0])
    losing = SolvedGymVectorEnv(2, game="tictactoe", illegal="lose")
    losing.reset(seed=0)
    obs, rewards, terminated, truncated, info = losing.step(np.array([4, -7]))
    assert rewards[1] == -1.0 and terminated[1] and not terminated[0]


def test_hostile_inputs():
    envs = SolvedGymVectorEnv(2, game="tictactoe")
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="2 environments"):
        envs.step(np.array([0, 1, 2]))
    with pytest.raises(TypeError):
        envs.step(np.array([0.5, 1.0]))
    with pytest.raises(ValueError):
        SolvedGymVectorEnv(0, game="tictactoe")
    with pytest.raises(ValueError):
        SolvedGymVectorEnv(2, game="tictactoe", seat=5)
    with pytest.raises(TypeError):
        SolvedGymVectorEnv(2, game="tictactoe", opponent=lambda g, s: 0)
    with pytest.raises(ValueError, match="fuzz"):
        SolvedGymVectorEnv(2, game="tictactoe", fuzz=float("nan"))
    with pytest.raises(ValueError, match="seeds"):
        envs.reset(seed=[1, 2, 3])
    big = SolvedGymVectorEnv(2, game="tictactoe")
    big.reset(seed=2**70)  # folded into 64 bits, not an overflow


@pytest.mark.parametrize("game,params", [("hexapawn", {}), ("hase-und-igel", dict(players=2, board="CHCHIHC2H", max_rounds=6))])
def test_sample_legal_draws_legal_actions_without_touching_the_episodes(game, params):
    import copy

    sampled = SolvedGymVectorEnv(64, game=game, **params)
    plain = SolvedGymVectorEnv(64, game=game, **params)
    _, info = sampled.reset(seed=7)
    plain.reset(seed=7)
    ended = np.zeros(64, dtype=bool)
    twin = None
    for t in range(60):
        actions = sampled.sample_legal()
        assert actions.dtype == np.int64 and actions.shape == (64,)
        mask = info["action_mask"]
        # Legal where an action is asked for (an episode that just ended takes any: 0).
        assert mask[np.arange(64), actions].all()
        assert (actions[ended] == 0).all()
        if t == 20:
            twin = copy.deepcopy(sampled)
            assert (twin.sample_legal() == sampled.sample_legal()).all(), "a copy draws as the original"
        obs, rewards, terminated, truncated, info = sampled.step(actions)
        plain_obs, plain_rewards, *_ = plain.step(actions)
        np.testing.assert_array_equal(obs, plain_obs)
        np.testing.assert_array_equal(rewards, plain_rewards)
        ended = terminated | truncated
    # Two calls at one position draw anew; over many environments the draws cover the moves.
    first, second = sampled.sample_legal(), sampled.sample_legal()
    assert (first != second).any()


@pytest.mark.parametrize("mode", [gymnasium.vector.AutoresetMode.NEXT_STEP, gymnasium.vector.AutoresetMode.SAME_STEP])
def test_threads_change_nothing(mode):
    """4,100 environments stepped by two threads (2,050 each) and by one: the same arrays,
    infos, sampled actions and errors, step for step; a copy keeps its threads."""
    import copy

    import os

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: a step takes one thread")
    n = 4100
    two = SolvedGymVectorEnv(n, game="tictactoe", autoreset_mode=mode, threads=2)
    one = SolvedGymVectorEnv(n, game="tictactoe", autoreset_mode=mode, threads=1)
    assert (two.threads, one.threads) == (2, 1)
    cores = len(os.sched_getaffinity(0))
    assert SolvedGymVectorEnv(2048 * 64, game="tictactoe", threads=64).threads == min(64, cores), "no more than the cores"
    assert SolvedGymVectorEnv(4095, game="tictactoe", threads=2).threads == 1, "2,048 each at least"
    with pytest.raises(ValueError, match="threads=0"):
        SolvedGymVectorEnv(2, game="tictactoe", threads=0)
    two.reset(seed=3)
    one.reset(seed=3)
    for t in range(40):
        actions = two.sample_legal()
        np.testing.assert_array_equal(actions, one.sample_legal())
        if t == 20:
            two = copy.deepcopy(two)
            assert two.threads == 2
        a, b = two.step(actions), one.step(actions)
        for x, y in zip(a[:4], b[:4]):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(a[4]["action_mask"], b[4]["action_mask"])
        if "final_obs" in b[4]:
            where = b[4]["_final_obs"]
            np.testing.assert_array_equal(a[4]["_final_obs"], where)
            np.testing.assert_array_equal(np.stack(a[4]["final_obs"][where]), np.stack(b[4]["final_obs"][where]))
    # An illegal action in the second thread's half: the same error, and nothing moves.
    masks = one.action_masks().copy()
    actions = one.sample_legal()
    row = np.flatnonzero(~masks.all(axis=1))[-1]
    assert row >= 2050, "in the second thread's half"
    illegal = actions.copy()
    illegal[row] = int(np.flatnonzero(~masks[row])[0])
    with pytest.raises(solvedgym.IllegalActionError) as e2:
        two.step(illegal)
    with pytest.raises(solvedgym.IllegalActionError) as e1:
        one.step(illegal)
    assert str(e1.value) == str(e2.value) and f"environment {row}" in str(e1.value)
    np.testing.assert_array_equal(two.action_masks(), masks)


def _in_a_forked_child(target, *args):
    """What `target(*args, queue)` puts on the queue, run in a forked process that may take a
    minute at most: a child that hangs is killed and fails the test."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=target, args=(*args, queue))
    child.start()
    child.join(60)
    if child.exitcode is None:
        child.kill()
    assert child.exitcode == 0, "the forked process hung or failed"
    return queue.get(timeout=5)


def _step_in_child(envs, actions, queue):
    obs, *_ = envs.step(actions)
    queue.put((envs.threads, obs.sum()))


def test_threads_in_a_forked_process():
    """A process forked after the threads were made (Gymnasium's AsyncVectorEnv forks on
    Linux) has none of them: its copy of the environments makes its own, and steps as the
    parent does, without waiting for threads that are not there."""
    import os

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: no threads to make")
    envs = SolvedGymVectorEnv(4100, game="tictactoe", threads=2)
    envs.reset(seed=5)
    envs.step(envs.sample_legal())  # the threads made here
    actions = envs.sample_legal()
    threads, total = _in_a_forked_child(_step_in_child, envs, actions)
    obs, *_ = envs.step(actions)
    assert (threads, total) == (2, obs.sum())


def _two_threads_on_one_vector(queue):
    import threading
    import time

    envs = SolvedGymVectorEnv(100_000, game="tictactoe")
    envs.reset(seed=1)
    refused, done = [], []
    stop = time.monotonic() + 2.0

    def play():
        while time.monotonic() < stop:
            try:
                envs.step(envs.sample_legal())
            except RuntimeError as e:
                refused.append(str(e))
        done.append("play")

    def look():
        while time.monotonic() < stop:
            try:
                envs.threads, envs._core.state(0), envs._core.num_envs
            except RuntimeError as e:
                refused.append(str(e))
        done.append("look")

    threads = [threading.Thread(target=play), threading.Thread(target=look)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    queue.put((sorted(done), sorted(set(refused))))


def test_two_threads_on_one_vector_never_hang():
    """One thread steps and samples a large vector (its calls release the GIL) while another
    reads it: the reader's calls are refused with a RuntimeError or go through, and neither
    waits for good (the environments' lock was once waited for holding the GIL, so a reader
    and a sampler hung each other)."""
    done, refused = _in_a_forked_child(_two_threads_on_one_vector)
    assert done == ["look", "play"]
    assert set(refused) <= {"Already mutably borrowed", "Already borrowed"}, refused


def test_sb3_infos():
    from solvedgym._solvedgym import _sb3_infos

    flags = np.array([True, False, False])
    finals = np.arange(6, dtype=np.float32).reshape(3, 2)
    dones, infos = _sb3_infos(flags, ~flags, np.array([True, False, False]), finals)
    assert dones.tolist() == [True, True, True]
    assert infos[0]["TimeLimit.truncated"] is False and infos[1]["TimeLimit.truncated"] is True
    assert infos[0]["illegal"] is True and "illegal" not in infos[1]
    np.testing.assert_array_equal(infos[2]["terminal_observation"], [4.0, 5.0])
    with pytest.raises(ValueError, match="3 terminated, 2 truncated"):
        _sb3_infos(flags, flags[:2], flags, finals)
    with pytest.raises(ValueError, match="not contiguous"):
        _sb3_infos(flags, flags, flags, np.zeros((3, 4), dtype=np.float32)[:, ::2])
