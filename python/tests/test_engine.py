"""One engine: the single environment and the vector environment play the same episodes from
the same seeds, and agree with Gymnasium's own vector environments of the single one (masks,
autoreset modes, final observations); callable opponents; resets of chosen environments;
copies mid-episode."""

import copy
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import solvedgym
import solvedgym.gym
from solvedgym.gym import ObservationPolicy, SolvedGymEnv
from solvedgym.vector import SolvedGymVectorEnv

# (game parameters, environment arguments): chance (Hase und Igel, dice), a round cap that
# truncates (Hase und Igel with few rounds), illegal actions that lose, several seats.
CASES = {
    "tictactoe": dict(game="tictactoe"),
    "hexapawn-black-optimal": dict(game="hexapawn", seat="black", opponent="optimal", fuzz=0.2),
    "fox-hounds-6": dict(game="fox-hounds", size=6, seat="hounds"),
    "hase-und-igel-capped": dict(game="hase-und-igel", players=2, board="CHCHIHC2H", max_rounds=6),
    "dice-race-3": dict(game="dice-race", players=3, seat=1),
    "hexapawn-illegal-loses": dict(game="hexapawn", illegal="lose"),
}


def pick(rng, mask, wild):
    """A random legal action; with `wild`, now and then any action (illegal ones lose)."""
    if wild and rng.random() < 0.2:
        return int(rng.integers(len(mask)))
    return int(rng.choice(np.flatnonzero(mask)))


def single_run(kwargs, seed, steps, wild):
    """(obs, reward, terminated, truncated, mask) after every step of the single environment,
    reset with no seed after each end (the seed's next episode)."""
    env = SolvedGymEnv(**kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rows = [(obs, 0.0, False, False, info["action_mask"].astype(bool))]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(pick(rng, info["action_mask"], wild))
        mask = info["action_mask"].astype(bool)
        assert mask.any(), "never an empty mask"
        rows.append((obs, reward, terminated, truncated, mask))
        if terminated or truncated:
            assert mask.all(), "every action at the last observation"
            np.testing.assert_array_equal(env.action_masks(), mask)
            obs, info = env.reset()
            rows.append((obs, 0.0, False, False, info["action_mask"].astype(bool)))
    return rows


def vector_run(kwargs, seed, steps, wild):
    """The same from a vector environment of one in the next-step mode: the step after an end
    starts the next episode (its action ignored)."""
    env = SolvedGymVectorEnv(1, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rows = [(obs[0], 0.0, False, False, info["action_mask"][0])]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step([pick(rng, info["action_mask"][0], wild)])
        rows.append((obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), info["action_mask"][0]))
        if terminated[0] or truncated[0]:
            obs, reward, terminated, truncated, info = env.step([0])
            assert reward[0] == 0 and not terminated[0] and not truncated[0]
            rows.append((obs[0], 0.0, False, False, info["action_mask"][0]))
    return rows


def same_rows(a, b):
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b)):
        np.testing.assert_array_equal(x[0], y[0], err_msg=f"observation at {t}")
        assert x[1:4] == y[1:4], (t, x[1:4], y[1:4])
        np.testing.assert_array_equal(x[4], y[4], err_msg=f"mask at {t}")


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_seed_gives_the_same_episodes_in_the_single_and_the_vector_environment(case):
    kwargs = CASES[case]
    wild = kwargs.get("illegal") == "lose"
    ends = 0
    for seed in range(6):
        single = single_run(kwargs, seed, 120, wild)
        same_rows(single, vector_run(kwargs, seed, 120, wild))
        ends += sum(r[2] or r[3] for r in single)
        # The same seed, the same episodes; another seed, others.
        same_rows(single, single_run(kwargs, seed, 120, wild))
    assert ends >= 12, "many episodes ended"
    other = single_run(kwargs, 99, 120, wild)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(other, single))


def test_the_capped_game_truncates_and_chance_is_drawn():
    rows = single_run(CASES["hase-und-igel-capped"], 3, 300, False)
    assert any(r[3] for r in rows), "a round cap truncates"


@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_gymnasium_vector_envs_of_the_single_env_never_give_an_empty_mask(mode, autoreset):
    envs = gymnasium.make_vec(
        "solvedgym/Hexapawn-v0", num_envs=3, vectorization_mode=mode, vector_kwargs={"autoreset_mode": autoreset}
    )
    obs, info = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        masks = info["action_mask"].astype(bool)
        assert masks.any(axis=1).all(), masks
        obs, rewards, terminated, truncated, info = envs.step((rng.random(masks.shape) * masks).argmax(axis=1))
        ends += int((terminated | truncated).sum())
    assert ends > 10
    envs.close()


@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
@pytest.mark.parametrize("case", ["tictactoe", "hase-und-igel-capped", "hexapawn-illegal-loses"])
def test_the_vector_env_steps_as_gymnasiums_sync_vector_env_of_the_single_env(autoreset, case):
    kwargs = dict(CASES[case])
    game = kwargs.pop("game")
    n = 4
    ours = SolvedGymVectorEnv(n, game=game, autoreset_mode=autoreset, **kwargs)
    assert ours.metadata["autoreset_mode"] == autoreset
    theirs = SyncVectorEnv([lambda: SolvedGymEnv(game, **kwargs) for _ in range(n)], autoreset_mode=autoreset)
    o1, i1 = ours.reset(seed=11)
    o2, i2 = theirs.reset(seed=11)
    np.testing.assert_array_equal(o1, o2)
    rng = np.random.default_rng(3)
    finals = 0
    for _ in range(150):
        masks = i1["action_mask"]
        np.testing.assert_array_equal(masks, i2["action_mask"].astype(bool))
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        if kwargs.get("illegal") == "lose":
            actions = np.where(rng.random(n) < 0.1, rng.integers(0, masks.shape[1], n), actions)
        r1, r2 = ours.step(actions), theirs.step(actions)
        for a, b in zip(r1[:4], r2[:4]):
            np.testing.assert_array_equal(a, b)
        i1, i2 = r1[4], r2[4]
        # Gymnasium's keys, with Gymnasium's shapes (the mask is bool here, int8 there).
        assert {k for k in i2 if not k.startswith("_")} <= set(i1), (i1.keys(), i2.keys())
        if "illegal" in i2:
            np.testing.assert_array_equal(i1["_illegal"], i2["_illegal"])
        if "final_obs" in i2:
            finals += 1
            assert set(i1) >= {"final_obs", "_final_obs", "final_info", "_final_info"}
            np.testing.assert_array_equal(i1["_final_obs"], i2["_final_obs"])
            np.testing.assert_array_equal(i1["_final_info"], i2["_final_info"])
            assert i1["final_obs"].shape == i2["final_obs"].shape and i1["final_obs"].dtype == object
            for i in np.flatnonzero(i2["_final_obs"]):
                np.testing.assert_array_equal(i1["final_obs"][i], i2["final_obs"][i])
            f1, f2 = i1["final_info"], i2["final_info"]
            assert set(f1) == set(f2), (f1.keys(), f2.keys())
            for key in f2:
                assert f1[key].shape == f2[key].shape, key
                ended = i2["_final_info"]
                np.testing.assert_array_equal(f1[key][ended].astype(int), f2[key][ended].astype(int))
        else:
            assert "final_obs" not in i1
    if autoreset == AutoresetMode.SAME_STEP:
        assert finals > 5


def test_make_vec_passes_the_autoreset_mode():
    envs = gymnasium.make_vec(
        "solvedgym/Tictactoe-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    with pytest.raises(ValueError, match="autoreset_mode"):
        SolvedGymVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="DISABLED"):
        SolvedGymVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED)


@pytest.mark.parametrize("autoreset", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_reset_mask_resets_only_the_chosen_environments(autoreset):
    n = 4
    envs = SolvedGymVectorEnv(n, game="hexapawn", autoreset_mode=autoreset)
    # The twin's chosen environments are not compared: their actions may be illegal there.
    twin = SolvedGymVectorEnv(n, game="hexapawn", autoreset_mode=autoreset, illegal="lose")
    fresh = SolvedGymVectorEnv(n, game="hexapawn", autoreset_mode=autoreset)
    obs, info = envs.reset(seed=5)
    twin.reset(seed=5)
    fresh_obs, _ = fresh.reset(seed=40)
    rng = np.random.default_rng(0)
    for _ in range(3):
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        obs, *_, info = envs.step(actions)
        twin.step(actions)
    chosen = np.array([False, True, False, True])
    seeds = [40 + i for i in range(n)]
    after, info = envs.reset(seed=seeds, options={"reset_mask": chosen})
    np.testing.assert_array_equal(after[~chosen], obs[~chosen])
    np.testing.assert_array_equal(after[chosen], fresh_obs[chosen])
    # The others go on with their episodes, as in the twin that was not reset.
    for _ in range(20):
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        got = envs.step(actions)
        want = twin.step(actions)
        for a, b in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(a[~chosen], b[~chosen])
        info = got[4]
    for bad in [chosen.astype(int), chosen[:2], [True] * n]:
        with pytest.raises(TypeError, match="reset_mask"):
            envs.reset(options={"reset_mask": bad})
    with pytest.raises(ValueError, match="at least one"):
        envs.reset(options={"reset_mask": np.zeros(n, dtype=bool)})


def first_legal(game, state):
    return game.legal_actions(state)[0]


def last_legal_seen(observation, mask):
    return int(np.flatnonzero(mask)[-1])


def test_callable_opponents_by_state_or_by_observation():
    by_state = SolvedGymEnv("tictactoe", opponent=lambda g, s: g.legal_actions(s)[-1])
    by_obs = SolvedGymEnv("tictactoe", opponent=ObservationPolicy(last_legal_seen))
    seen = []

    def spy(observation, mask):
        seen.append((observation.dtype, observation.shape, mask.dtype))
        return last_legal_seen(observation, mask)

    spied = SolvedGymEnv("tictactoe", seat="o", opponent=ObservationPolicy(spy))
    spied.reset(seed=0)
    assert seen == [(np.float32, (27,), np.bool_)]
    for seed in range(5):
        a, ia = by_state.reset(seed=seed)
        b, ib = by_obs.reset(seed=seed)
        done = False
        while not done:
            np.testing.assert_array_equal(a, b)
            action = int(np.flatnonzero(ia["action_mask"])[0])
            a, ra, ta, ua, ia = by_state.step(action)
            b, rb, tb, ub, ib = by_obs.step(action)
            assert (ra, ta, ua) == (rb, tb, ub)
            done = ta or ua


def test_a_callable_that_fails_raises_from_the_step_and_the_episode_is_over():
    def boom(game, state):
        raise KeyError("boom")

    env = SolvedGymEnv("tictactoe", opponent=boom)
    env.reset(seed=0)
    with pytest.raises(KeyError, match="boom"):
        env.step(4)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    # The second seat's opponent moves first: the reset asks it.
    with pytest.raises(KeyError, match="boom"):
        SolvedGymEnv("tictactoe", seat="o", opponent=boom).reset(seed=0)
    illegal = SolvedGymEnv("tictactoe", opponent=lambda g, s: 4)
    illegal.reset(seed=0)
    with pytest.raises(solvedgym.IllegalActionError, match="legal actions"):
        illegal.step(4)  # the opponent answers 4, taken
    silent = SolvedGymEnv("tictactoe", opponent=lambda g, s: None)  # forgot to return
    silent.reset(seed=0)
    with pytest.raises(TypeError):
        silent.step(4)
    obs, info = illegal.reset(seed=1)
    assert info["action_mask"].sum() == 9
    with pytest.raises(TypeError, match="ObservationPolicy"):
        ObservationPolicy(3)
    with pytest.raises(TypeError, match="opponent"):
        SolvedGymEnv("tictactoe", opponent=3)


def play(env, actions_rng, steps):
    out = []
    for _ in range(steps):
        mask = env.action_masks()
        obs, r, te, tr, info = env.step(int(actions_rng.choice(np.flatnonzero(mask))))
        out.append((obs.tolist(), r, te, tr))
        if te or tr:
            obs, info = env.reset()
            out.append((obs.tolist(), 0.0, False, False))
    return out


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(game="hase-und-igel", players=2, board="CHCHIHC2H", max_rounds=6),
        dict(game="tictactoe", opponent=first_legal),
        dict(game="hexapawn", opponent=ObservationPolicy(last_legal_seen), seat="black"),
    ],
    ids=["chance", "callable", "observation-policy"],
)
def test_a_deepcopy_mid_episode_goes_on_identically_and_independently(kwargs):
    env = SolvedGymEnv(**kwargs)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    play(env, rng, 3)
    twin = copy.deepcopy(env)
    np.testing.assert_array_equal(twin.action_masks(), env.action_masks())
    assert twin.state == env.state
    a = play(env, np.random.default_rng(7), 40)
    b = play(twin, np.random.default_rng(7), 40)
    assert a == b
    # Independent: stepping one leaves the other where it was.
    before = twin.state
    play(env, np.random.default_rng(8), 5)
    assert twin.state == before
    # Pickled, mid-episode too, where the opponent pickles (a module's function does).
    again = pickle.loads(pickle.dumps(twin))
    assert play(again, np.random.default_rng(9), 30) == play(twin, np.random.default_rng(9), 30)


def test_pickles_of_fresh_environments_and_of_the_vector_env():
    env = pickle.loads(pickle.dumps(SolvedGymEnv("hexapawn", seat="black", opponent="optimal")))
    a, _ = env.reset(seed=3)
    b, _ = SolvedGymEnv("hexapawn", seat="black", opponent="optimal").reset(seed=3)
    np.testing.assert_array_equal(a, b)
    made = gymnasium.make("solvedgym/Tictactoe-v0")
    copy.deepcopy(made).reset(seed=1)
    with pytest.raises(Exception):
        pickle.dumps(SolvedGymEnv("tictactoe", opponent=lambda g, s: 0))
    for autoreset in [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP]:
        envs = SolvedGymVectorEnv(3, game="dice-race", players=3, autoreset_mode=autoreset)
        obs, info = envs.reset(seed=1)
        rng = np.random.default_rng(1)
        for _ in range(4):
            masks = info["action_mask"]
            obs, *_, info = envs.step((rng.random(masks.shape) * masks).argmax(axis=1))
        copies = [copy.deepcopy(envs), pickle.loads(pickle.dumps(envs))]
        actions = [(rng.random(masks.shape) * masks).argmax(axis=1) for _ in range(30)]
        runs = []
        for e in [envs, *copies]:
            info = {"action_mask": e.action_masks()}
            out = []
            for a in actions:
                masks = info["action_mask"]
                a = np.where(masks[np.arange(3), a], a, masks.argmax(axis=1))
                obs, r, te, tr, info = e.step(a)
                out.append((obs.tolist(), r.tolist(), te.tolist(), tr.tolist()))
            runs.append(out)
        assert runs[0] == runs[1] == runs[2]


@pytest.fixture(scope="module")
def resigning_agent(tmp_path_factory):
    """Gardner's HER playing White, the side that loses Hexapawn, after 20 games against
    perfect play: the bead of every lost game's last move confiscated, so its boxes empty, the
    first one included, and an empty box resigns."""
    pytest.importorskip("polars", reason="solvedgym.run's curves are a polars DataFrame")
    config = {
        "name": "resigning",
        "episodes": 20,
        "eval_interval": 20,
        "seeds": 1,
        "game": {"name": "hexapawn"},
        "learners": [{"kind": "matchbox", "scheme": "her", "label": "HER", "seat": "white"}],
        "opponents": [{"name": "optimal black", "policy": "optimal"}],
    }
    result = solvedgym.run(config, out=tmp_path_factory.mktemp("runs"), progress=False)
    (path,) = (result.dir / "agents").iterdir()
    return solvedgym.load_agent(path)


def test_a_resigning_computer_ends_the_episode_alike_in_the_single_and_the_vector_env(resigning_agent):
    """HER as the opponent (White) resigns, at its first move too (before the learner has
    moved: the reset shows the episode's last observation, every action legal, and the next
    step reports the end, whatever its action). Both envs play the same episodes from a seed."""
    kwargs = dict(game="hexapawn", seat="black", opponent=resigning_agent)
    game = solvedgym.make("hexapawn")
    resigned = at_start = 0
    for seed in range(6):
        single = single_run(kwargs, seed, 150, wild=False)
        assert len(single) > 150
        same_rows(single, vector_run(kwargs, seed, 150, wild=False))
        # Count HER's resignations in the single env's own episodes: an end (Black's reward
        # +1) at a position where White still had moves.
        env = SolvedGymEnv(**kwargs)
        rng = np.random.default_rng(seed)
        _, info = env.reset(seed=seed)
        first = True
        for _ in range(150):
            before = env.state
            _, reward, terminated, truncated, info = env.step(pick(rng, info["action_mask"], False))
            if terminated or truncated:
                if reward == 1 and not game.is_terminal(env.state):
                    resigned += 1
                    at_start += first and env.state == before
                _, info = env.reset()
                first = True
            else:
                first = False
    assert resigned > 20 and at_start > 0, (resigned, at_start)
    # The vector env in both autoreset modes: the end at a reset comes at the next step.
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        envs = SolvedGymVectorEnv(16, autoreset_mode=mode, **kwargs)
        _, info = envs.reset(seed=3)
        rng = np.random.default_rng(3)
        wins = 0
        for _ in range(200):
            actions = [pick(rng, m, False) for m in info["action_mask"]]
            _, rewards, terminated, truncated, info = envs.step(actions)
            wins += int(((rewards == 1) & terminated).sum())
        assert wins > 50
