"""solvedgym.sb3 with stable-baselines3 and sb3-contrib: the adapter plays what the model's own
`predict` plays, position by position, the callback logs the exact figures to SB3's logger, and
a CleanRL-style loop in plain torch records its curves with `solvedgym.Recorder`.

The environments are Gymnasium's single `solvedgym/<Name>-v0` in SB3's own `DummyVecEnv`.
"""

import contextlib
import io
import re
import time
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("stable_baselines3")
sb3_contrib = pytest.importorskip("sb3_contrib")
gymnasium = pytest.importorskip("gymnasium")
pd = pytest.importorskip("pandas")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3 import A2C, DQN, PPO  # noqa: E402
from stable_baselines3.common.logger import configure  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

import solvedgym  # noqa: E402
import solvedgym.sb3  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NUMBER = re.compile(r"[-+]?\d+\.\d+")

torch.set_num_threads(1)


@pytest.fixture(scope="module", params=["tictactoe", "hexapawn"])
def solved(request):
    game = solvedgym.make(request.param)
    return game, game.solve()


def vec_env(game, **kwargs):
    name = solvedgym.gym.env_name(game.name)
    return DummyVecEnv([lambda: gymnasium.make(f"solvedgym/{name}-v0", **kwargs)])


def make_model(kind, env, seed=0):
    small = dict(net_arch=[16])
    if kind is DQN:
        return DQN("MlpPolicy", env, seed=seed, policy_kwargs=small, learning_starts=64, buffer_size=2000)
    if kind is A2C:
        return A2C("MlpPolicy", env, seed=seed, policy_kwargs=small, n_steps=16)
    return kind("MlpPolicy", env, seed=seed, policy_kwargs=small, n_steps=256, batch_size=64)


def positions(sol):
    """Every reachable position where a player moves, by seat: (seat, ids, observations, masks)."""
    players = sol.players()
    legal, _ = sol.masks()
    for seat in sorted(set(players[players >= 0].tolist())):
        ids = np.flatnonzero(players == seat)
        yield seat, ids, sol.observations(ids, seat), legal[ids]


@pytest.mark.parametrize("kind", [MaskablePPO, PPO, A2C, DQN], ids=lambda k: k.__name__)
def test_the_adapter_plays_what_predict_plays(solved, kind):
    """At every reachable position of either seat, the adapter's batched move is the model's own
    `predict(obs, deterministic=True)` of that one position (with its mask for MaskablePPO), and
    `evaluate` of the adapter is `evaluate` of the table of those moves."""
    game, sol = solved
    model = make_model(kind, vec_env(game, illegal="lose"), seed=3)
    play = solvedgym.sb3.policy(model)
    assert play.masked == (kind is MaskablePPO)
    table = np.zeros((len(sol), game.num_distinct_actions))
    for seat, ids, obs, masks in positions(sol):
        moves = play.actions(obs, masks)
        if kind is MaskablePPO:
            want = [model.predict(o, deterministic=True, action_masks=m)[0] for o, m in zip(obs, masks)]
        else:
            want = [model.predict(o, deterministic=True)[0] for o, m in zip(obs, masks)]
        assert moves.tolist() == [int(a) for a in want], (kind.__name__, seat)
        table[ids, moves] = 1.0
        if kind is MaskablePPO:
            assert masks[np.arange(len(ids)), moves].all()
    for seat in range(game.num_players):
        direct = sol.evaluate(table, seats=[seat], illegal="lose")
        assert sol.evaluate(play, seats=[seat], illegal="lose") == direct


@pytest.mark.parametrize("kind", [MaskablePPO, PPO, DQN], ids=lambda k: k.__name__)
def test_the_play_as_it_trains(solved, kind):
    """`deterministic=False`: the distribution `predict(obs, deterministic=False)` draws from.
    Its mode is the greedy move; MaskablePPO puts nothing on an illegal move; DQN's is
    epsilon-greedy, and the frequencies of SB3's own sampling match it."""
    game, sol = solved
    model = make_model(kind, vec_env(game, illegal="lose"), seed=5)
    if kind is DQN:
        model.exploration_rate = 0.3
    play = solvedgym.sb3.policy(model, deterministic=False)
    greedy = solvedgym.sb3.policy(model)
    for seat, ids, obs, masks in positions(sol):
        probs = play(obs, masks)
        assert np.allclose(probs.sum(axis=1), 1, atol=1e-6)
        assert (probs.argmax(axis=1) == greedy.actions(obs, masks)).all()
        if kind is MaskablePPO:
            assert (probs[~masks] == 0).all()
        if kind is DQN:
            rest = 0.3 / game.num_distinct_actions
            assert np.allclose(np.sort(probs, axis=1)[:, :-1], rest)
    # SB3's own sampling at one position, 4,000 draws: within 4 standard errors.
    _, ids, obs, masks = next(positions(sol))
    np.random.seed(0)
    model.set_random_seed(0)
    kwargs = {"action_masks": masks[0]} if kind is MaskablePPO else {}
    draws = [int(model.predict(obs[0], deterministic=False, **kwargs)[0]) for _ in range(4000)]
    freq = np.bincount(draws, minlength=game.num_distinct_actions) / len(draws)
    p = play(obs[:1], masks[:1])[0]
    assert (np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / len(draws)) + 1e-3).all(), (freq, p)


def test_an_illegal_greedy_move_counts_as_the_evaluator_says(solved):
    game, sol = solved
    # A PPO whose greedy move is illegal somewhere: found among a few random initialisations.
    for seed in range(20):
        play = solvedgym.sb3.policy(make_model(PPO, vec_env(game, illegal="lose"), seed=seed))
        if any((~m[np.arange(len(m)), play.actions(o, m)]).any() for _, _, o, m in positions(sol)):
            break
    else:
        pytest.fail("no initialisation plays an illegal move")
    with pytest.raises(ValueError, match="illegal|legal"):
        sol.evaluate(play)
    lose = sol.evaluate(play, illegal="lose")
    for r in lose["against_perfect"]:
        assert abs(r["win"] + r["draw"] + r["loss"] - 1) < 1e-9


def test_the_whole_game_is_evaluated_in_well_under_a_second(solved):
    game, sol = solved
    play = solvedgym.sb3.policy(make_model(MaskablePPO, vec_env(game)))
    sol.evaluate(play)  # the first call tabulates perfect and random play once
    start = time.perf_counter()
    sol.evaluate(play)
    assert time.perf_counter() - start < 0.5


def test_the_env_observation_is_the_one_the_evaluator_passes():
    game = solvedgym.make("tictactoe")
    sol = game.solve()
    env = gymnasium.make("solvedgym/Tictactoe-v0", seat="o", opponent="random")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        at = sol.index(env.unwrapped.state)
        assert np.array_equal(obs, sol.observations([at], 1)[0])
        assert np.array_equal(info["action_mask"].astype(bool), sol.masks()[0][at])
        obs, _, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


def test_bad_models_are_refused():
    with pytest.raises(TypeError, match="stable-baselines3 model"):
        solvedgym.sb3.policy(object())
    game = solvedgym.make("hexapawn")
    other = solvedgym.make("tictactoe").solve()
    play = solvedgym.sb3.policy(make_model(MaskablePPO, vec_env(game)))
    with pytest.raises(ValueError, match="observations of shape"):
        other.evaluate(play)


def test_maskable_ppo_logs_the_exact_figures(tmp_path):
    """MaskablePPO trains 2,048 steps on tic-tac-toe against random play; the callback's figures
    land in SB3's CSV, the first is a direct evaluation of the untrained model, and the last the
    final model's."""
    game = solvedgym.make("tictactoe")
    sol = game.solve()
    model = make_model(MaskablePPO, vec_env(game, seat="x", opponent="random"), seed=0)
    before = sol.evaluate(solvedgym.sb3.policy(model), seats=[0])
    model.set_logger(configure(str(tmp_path), ["csv"]))
    recorder = solvedgym.Recorder(game, out=tmp_path, name="maskable", learner="MaskablePPO", solution=sol)
    callback = solvedgym.sb3.ExactEvalCallback(sol, eval_freq=512)
    also = solvedgym.sb3.ExactEvalCallback(sol, eval_freq=1024, recorder=recorder)
    model.learn(2048, callback=[callback, also])

    log = pd.read_csv(tmp_path / "progress.csv")
    rows = log.dropna(subset=["exact/optimal_rate_faced"])
    assert rows["time/total_timesteps"].tolist()[:5] == [0, 0, 512, 1024, 1024]
    first = rows.iloc[0]
    assert first["exact/optimal_rate_faced"] == before["moves"]["optimal_rate_faced"]
    assert first["exact/win_prob_vs_optimal"] == before["against_perfect"][0]["win"]
    assert first["exact/worst_case_return"] == before["against_best_response"][0]["expected_return"]
    for name in ["optimal_rate_all", "optimal_rate_faced", "optimal_rate_optimal_play", "win_prob_vs_optimal",
                 "loss_prob_vs_optimal", "win_prob_vs_random", "win_prob_vs_opponent", "loss_prob_vs_opponent"]:
        assert ((rows[f"exact/{name}"] >= 0) & (rows[f"exact/{name}"] <= 1)).all(), name
    assert (rows["exact/value_error"] >= 0).all()
    # The env's opponent is random play: the figures against it are those against random play.
    assert np.allclose(rows["exact/win_prob_vs_opponent"], rows["exact/win_prob_vs_random"], atol=1e-12)

    steps = [s for s, _ in callback.history]
    assert steps == [0, 512, 1024, 1536, 2048]
    after = sol.evaluate(solvedgym.sb3.policy(model), seats=[0])
    assert callback.last["optimal_rate_faced"] == after["moves"]["optimal_rate_faced"]
    # The recorder's file: the same figures at its steps, read as a run's curves.
    curves = pd.read_parquet(recorder.dir / "curves.parquet")
    assert sorted(curves.episode.unique()) == [0, 1024, 2048]
    at = curves[(curves.episode == 0) & (curves.metric == "optimal_rate_faced")].value.tolist()
    assert at == [before["moves"]["optimal_rate_faced"]]


def test_behaviour_and_greedy_as_a_rust_run_names_them(tmp_path):
    game = solvedgym.make("tictactoe")
    sol = game.solve()
    model = make_model(MaskablePPO, vec_env(game, seat="o"), seed=2)
    model.set_logger(configure(str(tmp_path), ["csv"]))
    callback = solvedgym.sb3.ExactEvalCallback(sol, eval_freq=10_000, behaviour=True)
    model.learn(256, callback=callback)
    assert callback.seat == 1 and [s for s, _ in callback.history] == [0, 256]
    figures = callback.last
    stochastic = sol.evaluate(solvedgym.sb3.policy(model, deterministic=False), seats=[1])
    greedy = sol.evaluate(solvedgym.sb3.policy(model), seats=[1])
    assert figures["optimal_rate_faced"] == stochastic["moves"]["optimal_rate_faced"]
    assert figures["return_vs_optimal"] == stochastic["against_perfect"][0]["expected_return"]
    assert figures["greedy_optimal_rate_faced"] == greedy["moves"]["optimal_rate_faced"]
    assert figures["greedy_return_vs_optimal"] == greedy["against_perfect"][0]["expected_return"]


@pytest.mark.parametrize("kind", [PPO, DQN], ids=lambda k: k.__name__)
def test_ppo_and_dqn_with_illegal_lose(tmp_path, kind):
    game = solvedgym.make("hexapawn")
    sol = game.solve()
    model = make_model(kind, vec_env(game, seat="black", illegal="lose"), seed=1)
    model.set_logger(configure(str(tmp_path), ["csv"]))
    callback = solvedgym.sb3.ExactEvalCallback(sol, eval_freq=500)
    # A recorder made with the default illegal="raise": the callback's "lose" is what counts.
    recorder = solvedgym.Recorder(game, out=tmp_path, name=kind.__name__, seat="black", solution=sol)
    also = solvedgym.sb3.ExactEvalCallback(sol, eval_freq=500, recorder=recorder)
    model.learn(1500, callback=[callback, also])
    assert [f for _, f in also.history] == [f for _, f in callback.history]
    assert callback.seat == 1
    # PPO trains whole rollouts of 256 steps: it stops at 1,536, where the end evaluates it.
    assert [s for s, _ in callback.history] == [0, 500, 1000, model.num_timesteps]
    for _, figures in callback.history:
        assert 0 <= figures["optimal_rate_faced"] <= 1
        assert -1 <= figures["return_vs_optimal"] <= 1
        assert figures["value_error"] >= 0
    log = pd.read_csv(tmp_path / "progress.csv")
    assert log["exact/optimal_rate_all"].notna().sum() == 2 * len(callback.history)  # both callbacks log


def test_the_callback_refuses_bad_settings():
    sol = solvedgym.make("tictactoe").solve()
    with pytest.raises(ValueError, match="eval_freq"):
        solvedgym.sb3.ExactEvalCallback(sol, eval_freq=0)
    with pytest.raises(ValueError, match="illegal"):
        solvedgym.sb3.ExactEvalCallback(sol, illegal="ignore")
    with pytest.raises(TypeError, match="solution"):
        solvedgym.sb3.ExactEvalCallback("tictactoe")


def page_block(heading):
    """The ```python long block under `heading` in docs/python.md and the ```text block after it."""
    text = (ROOT / "docs" / "python.md").read_text()
    section = text[text.index(heading) :]
    code = section[section.index("```python long\n") + len("```python long\n") :]
    shown = section[section.index("```text\n") + len("```text\n") :]
    return code[: code.index("```")], shown[: shown.index("```")]


@pytest.mark.parametrize("heading", ["## With stable-baselines3", "## With CleanRL"])
def test_the_pages_examples_print_what_the_page_says(tmp_path, monkeypatch, heading):
    monkeypatch.chdir(tmp_path)
    code, shown = page_block(heading)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"docs/python.md ({heading})", "exec"), {"__name__": "example"})
    printed = out.getvalue()
    assert NUMBER.sub("#", printed) == NUMBER.sub("#", shown), printed
    for got, want in zip(NUMBER.findall(printed), NUMBER.findall(shown)):
        assert abs(float(got) - float(want)) <= 0.002, (got, want, printed)
    assert (tmp_path / "runs").is_dir()
