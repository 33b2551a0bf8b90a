"""Objects that cross processes: every exception the extension raises, `Game`, `State`,
`Solution`, `Computer` and `Agent` pickle (protocol 2 to the highest) and copy, for every
registered game; a round trip is checked against the original object's own answers (its
legal moves, observations, returns, choices, solved values), never against its pickle. Then
real processes: multiprocessing's spawn context, and a Gymnasium `AsyncVectorEnv` whose worker
meets an illegal action (run in a subprocess with a time limit, so that a hang fails)."""

import copy
import multiprocessing
import os
import pickle
import random
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import solvedgym

PROTOCOLS = [2, pickle.HIGHEST_PROTOCOL]
GAMES = [info["name"] for info in solvedgym.games()]

# Every registered game with its defaults, and variants whose states the defaults do not reach:
# a deal by nature before play (Hackenbush), a round cap (Hase und Igel), other board sizes.
VARIANTS = [(name, {}) for name in GAMES] + [
    ("hexapawn", {"rows": 4, "cols": 3}),
    ("fox-hounds", {"size": 6}),
    ("dice-race", {"players": 2, "goal": 4}),
    ("hackenbush", {"random": 3, "edges": 6, "seed": 5}),
    ("hase-und-igel", {"players": 2, "max_rounds": 2}),
]

# A game of each registered name small enough to solve in a test: the defaults where they solve
# in well under a second, a smaller board where they do not; None where none does.
SMALL = {
    "fox-hounds": {"size": 6},
    "hasenspiel": None,  # 778,341 positions, 1.3 s: solved once, in its own test below
    "hase-und-igel": None,  # billions of positions even with a round cap: refused
}


def ids(case):
    name, params = case
    return name + "".join(f"-{k}={v}" for k, v in params.items())


def round_trip(obj, protocol):
    return pickle.loads(pickle.dumps(obj, protocol))


def playouts(game, seeds=3, plies=300):
    """The states of `seeds` seeded random games (chance drawn by its probabilities), from
    the start to the end or `plies` moves."""
    states = []
    for seed in range(seeds):
        rng = random.Random(seed)
        s = game.initial_state()
        states.append(s)
        for _ in range(plies):
            if game.is_terminal(s):
                break
            if game.is_chance_node(s):
                outcomes = game.chance_outcomes(s)
                a = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            else:
                a = rng.choice(game.legal_actions(s))
            s = game.apply(s, a)
            states.append(s)
    return states


def answers(game, s):
    """What the rules say about `s`, for comparing a state with its copy."""
    return (
        game.current_player(s),
        game.legal_actions(s),
        game.chance_outcomes(s),
        game.returns(s),
        game.is_truncated(s),
        [game.observation_tensor(s, p).tolist() for p in range(game.num_players)],
        game.render(s),
        game.write_state_key(s),
    )


# Exceptions.


def raised(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the exception itself is what is tested
        return e
    raise AssertionError("nothing raised")


def extension_exceptions():
    """Every exception class the extension module defines."""
    return [
        v for v in vars(solvedgym._solvedgym).values() if isinstance(v, type) and issubclass(v, BaseException)
    ]


def test_every_exception_class_is_found_by_its_module_and_name():
    classes = extension_exceptions()
    assert {c.__name__ for c in classes} >= {"IllegalActionError", "ForeignStateError"}
    for cls in classes:
        module = sys.modules[cls.__module__]
        assert getattr(module, cls.__qualname__) is cls, cls
        assert issubclass(cls, ValueError), cls
        for protocol in PROTOCOLS:
            assert round_trip(cls, protocol) is cls


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_exceptions_raised_by_the_rules_pickle_as_themselves(protocol):
    ttt, hexapawn = solvedgym.make("tictactoe"), solvedgym.make("hexapawn")
    taken = ttt.apply(ttt.initial_state(), 4)
    cases = [
        (solvedgym.IllegalActionError, lambda: ttt.apply(taken, 4)),
        (solvedgym.IllegalActionError, lambda: ttt.string_to_action(taken, "b2")),
        (solvedgym.ForeignStateError, lambda: ttt.legal_actions(hexapawn.initial_state())),
    ]
    for cls, call in cases:
        e = raised(call)
        assert type(e) is cls
        e.add_note("a note added on the way")
        e.attempt = 3  # an attribute a user set
        back = round_trip(e, protocol)
        assert type(back) is cls and isinstance(back, ValueError)
        assert str(back) == str(e) and back.args == e.args
        assert back.__notes__ == e.__notes__ and back.attempt == 3
    assert "legal actions" in str(raised(cases[0][1]))


# Games and states.


@pytest.mark.parametrize("case", VARIANTS, ids=ids)
def test_games_and_their_states_round_trip(case):
    name, params = case
    game = solvedgym.make(name, **params)
    states = playouts(game)
    assert len(states) > 3
    for protocol in PROTOCOLS:
        back = round_trip(game, protocol)
        assert back == game and hash(back) == hash(game) and back is not game
        assert repr(back) == repr(game) and back.params == game.params
        # One pickle of many states; each comes back equal, and usable with the original game.
        copies = round_trip(states, protocol)
        for s, c in zip(states, copies, strict=True):
            assert c == s and hash(c) == hash(s)
            assert answers(game, c) == answers(game, s)
            assert answers(back, c) == answers(back, s)
    # A terminal state and a chance node are among them where the game has them.
    assert game.is_terminal(states[-1]) or name == "hase-und-igel" and not params
    if game.has_chance:
        assert any(game.is_chance_node(s) for s in states)


def test_a_game_pickles_by_the_name_and_parameters_it_was_made_with():
    # The registered name, not the alias, and not the game's own name (octapawn is a hexapawn
    # of another size: made by either name, its states belong to that name's game).
    for name, params in [("octapawn", {}), ("hotchpotch", {}), ("hexapawn", {"rows": 4, "cols": 4})]:
        game = solvedgym.make(name, **params)
        for protocol in PROTOCOLS:
            back = round_trip(game, protocol)
            assert back == game
            state = back.apply(back.initial_state(), back.legal_actions(back.initial_state())[0])
            assert game.legal_actions(state) == back.legal_actions(state)
    assert len(pickle.dumps(solvedgym.make("tictactoe"))) < 200
    assert solvedgym.make("hexapawn") != solvedgym.make("hexapawn", rows=4)
    assert solvedgym.make("hexapawn") != "hexapawn"
    assert len({solvedgym.make("hexapawn"), solvedgym.make("hexapawn", cols=3)}) == 1


@pytest.mark.parametrize("name", GAMES)
def test_copies_are_independent(name):
    game = solvedgym.make(name)
    states = playouts(game, seeds=1, plies=12)
    before = [answers(game, s) for s in states]
    for make_copy in (copy.copy, copy.deepcopy):
        game_copy = make_copy(game)
        assert game_copy == game and game_copy is not game
        for s in states:
            c = make_copy(s)
            assert c == s and c is not s
            # Stepping the copy makes a new state; the original stays what it was.
            if game_copy.legal_actions(c):
                stepped = game_copy.apply(c, game_copy.legal_actions(c)[-1])
                assert stepped != s
                assert answers(game, stepped) == answers(game_copy, stepped)
        assert [answers(game, s) for s in states] == before
    # deepcopy keeps what is shared shared.
    holder = {"game": game, "states": [states[0], states[0]]}
    deep = copy.deepcopy(holder)
    assert deep["states"][0] is deep["states"][1] and deep["game"] == game


# Solutions.


def small_game(name):
    params = SMALL.get(name, {})
    return None if params is None else solvedgym.make(name, **params)


def same_solution(a, b):
    assert len(a) == len(b) and a.start_value == b.start_value
    assert (a.players() == b.players()).all()
    for x, y in zip(a.masks(), b.masks(), strict=True):
        assert (x == y).all()
    ids = range(len(a)) if len(a) < 3000 else random.Random(1).sample(range(len(a)), 3000)
    for i in ids:
        assert a.state(i) == b.state(i) and a.value(i) == b.value(i), i
    pa, pb = a.win_probabilities(), b.win_probabilities()
    assert (pa is None and pb is None) or (pa == pb).all()
    assert a.cgt_values() == b.cgt_values()


@pytest.mark.parametrize("name", GAMES)
def test_solutions_are_solved_again_when_unpickled(name):
    game = small_game(name)
    if game is None:
        pytest.skip("too big to solve in a test (Hasenspiel's is, once, below)")
    sol = game.solve()
    for protocol in PROTOCOLS:
        data = pickle.dumps(sol, protocol)
        assert len(data) < 1000  # the game and the bound, not the tables
        back = pickle.loads(data)
        same_solution(sol, back)
        # Its states are the original game's; the original's states are its.
        assert sol.index(back.state(len(back) - 1)) == len(sol) - 1
        assert back.index(game.initial_state()) == 0
    for make_copy in (copy.copy, copy.deepcopy):
        c = make_copy(sol)
        assert c is not sol
        same_solution(sol, c)
    uniform = sol.masks()[0].astype(np.float64)
    assert round_trip(sol, 2).evaluate(uniform) == sol.evaluate(uniform)


def test_a_solution_solved_under_a_bound_is_solved_again_under_it():
    game = solvedgym.make("tictactoe")
    sol = game.solve(max_states=6000)
    assert sol.__reduce__()[1][1] == 6000
    same_solution(sol, round_trip(sol, 5))
    with pytest.raises(ValueError):
        game.solve(max_states=5000)


def test_a_big_solution_pickles_small():
    game = solvedgym.make("hasenspiel")
    sol = game.solve()
    data = pickle.dumps(sol, pickle.HIGHEST_PROTOCOL)
    assert len(sol) > 700_000 and len(data) < 1000
    same_solution(sol, pickle.loads(data))


# Computer players.


def computers(game, solvable):
    """The computer players a game makes, of every kind it takes (some refuse some kinds:
    tic-tac-toe has no heuristic for search)."""
    made = []
    specs = ["random", "depth=2", "mcts,sims=16", "greedy"] + (["optimal"] if solvable else [])
    for spec in specs:
        for fuzz in (0.0, 0.3):
            try:
                made.append(game.computer(spec, fuzz))
            except ValueError:
                continue
    return made


@pytest.mark.parametrize("name", GAMES)
def test_computers_round_trip_and_choose_alike(name):
    # Perfect play where the game solves in a test (it is solved again when unpickled).
    game = small_game(name)
    solvable = game is not None
    game = game or solvedgym.make(name)
    made = computers(game, solvable)
    assert {c.name.split("(")[0] for c in made} >= {"random", "fuzzy"}
    states = [s for s in playouts(game, seeds=1, plies=30) if game.current_player(s) >= 0][:8]
    for computer in made:
        for protocol in PROTOCOLS:
            back = round_trip(computer, protocol)
            assert back.name == computer.name and repr(back) == repr(computer)
            for s in states:
                for seed in (0, 1, 2):
                    assert back.choose(s, seed) == computer.choose(s, seed), (computer.name, seed)
        c = copy.deepcopy(computer)
        assert c is not computer and c.choose(states[0], 5) == computer.choose(states[0], 5)


# Saved agents.


@pytest.fixture(scope="module")
def agent_file(tmp_path_factory):
    pytest.importorskip("polars", reason="solvedgym.run's curves are a polars DataFrame")
    config = {
        "name": "procs-agent",
        "episodes": 400,
        "eval_interval": 400,
        "seeds": 1,
        "game": {"name": "tictactoe"},
        "learners": [{"kind": "q-learning", "label": "Q", "seat": "o"}],
        "opponents": [{"name": "random", "policy": "random"}],
    }
    result = solvedgym.run(config, out=tmp_path_factory.mktemp("runs"), progress=False)
    (path,) = (result.dir / "agents").iterdir()
    return path


def same_agent(a, b, sol):
    assert (a.kind, a.label, a.seats, a.episodes, a.config, a.header) == (
        b.kind,
        b.label,
        b.seats,
        b.episodes,
        b.config,
        b.header,
    )
    assert a.game == b.game
    assert (a.table(sol) == b.table(sol)).all()


def test_an_agent_pickles_by_its_contents(agent_file, tmp_path):
    sol = solvedgym.make("tictactoe").solve()
    path = tmp_path / "mine.parquet"
    shutil.copy(agent_file, path)
    agent = solvedgym.load_agent(path)
    size = os.path.getsize(path)
    for protocol in PROTOCOLS:
        data = pickle.dumps(agent, protocol)
        # Protocol 2 has no bytes: they go as a latin-1 text, up to 2 bytes a byte.
        assert size < len(data) < (2 if protocol == 2 else 1) * size + 1000
        # Where the file is still there as it was: opened from it.
        back = pickle.loads(data)
        assert back.path == agent.path and back.spec == agent.spec
        same_agent(agent, back, sol)
    c = copy.deepcopy(agent)
    assert c is not agent and c.path == agent.path
    same_agent(agent, c, sol)
    ttt = solvedgym.make("tictactoe")
    states = [s for s in playouts(ttt, seeds=2) if ttt.current_player(s) >= 0]
    computer = agent.computer(fuzz=0.25)
    fuzzy_moves = [computer.choose(s, 11) for s in states]
    moves = [agent.computer().choose(s, 3) for s in states]
    computer_data = pickle.dumps(computer)
    data = pickle.dumps(agent)

    # Where it is not (another machine): from a copy of the contents, which stays for `spec`.
    os.remove(path)
    back = pickle.loads(data)
    assert back.path != agent.path and os.path.exists(back.path)
    same_agent(agent, back, sol)
    assert [ttt.computer(back.spec).choose(s, 3) for s in states] == moves
    assert pickle.loads(data).path == back.path  # the same copy, not another one

    # Where another file took its place: the contents pickled, not the file now there.
    with open(path, "wb") as f:
        f.write(b"not an agent")
    back = pickle.loads(data)
    assert back.path != agent.path
    same_agent(agent, back, sol)

    # A computer player made from the agent carries it too.
    played = pickle.loads(computer_data)
    assert played.name == computer.name
    assert [played.choose(s, 11) for s in states] == fuzzy_moves


def test_hostile_pickles_are_refused_with_errors():
    restore = solvedgym._solvedgym
    ttt = solvedgym.make("tictactoe")
    with pytest.raises(ValueError):
        restore._restore_game("chess", {})
    with pytest.raises(ValueError):
        restore._restore_game("tictactoe", {"size": 4})
    for key in ["", "x" * 100_000, "xxxxxxxxxx", "\0"]:
        with pytest.raises(ValueError):
            restore._restore_state(ttt, key)
    with pytest.raises(ValueError):
        restore._restore_solution(ttt, 10)
    with pytest.raises(ValueError):
        restore._restore_computer(ttt, "chess-master", 0.0)
    with pytest.raises(ValueError):
        restore._restore_computer(ttt, "random", 2.0)
    with pytest.raises(ValueError):
        restore._restore_agent("/nonexistent/agent.parquet", b"not an agent")
    with pytest.raises(ValueError):
        restore._restore_agent("../" * 50 + "x" * 300, b"")


# Real processes.


def in_worker(payload):
    """Run in a spawned process: answers about the objects it was sent, and new objects made
    from them, sent back."""
    game, states, sol, computer = payload
    out = [(game.legal_actions(s), sol.index(s), computer.choose(s, 9)) for s in states]
    moved = [game.apply(s, game.legal_actions(s)[0]) for s in states]
    return out, moved, game, sol.start_value


def illegal_in_worker(game):
    return game.apply(game.apply(game.initial_state(), 4), 4)


def test_objects_cross_a_spawned_process():
    game = solvedgym.make("hexapawn")
    sol = game.solve()
    computer = game.computer("optimal", 0.2)
    states = [s for s in playouts(game, seeds=4) if game.current_player(s) >= 0]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(1) as pool:
        out, moved, game_back, start = pool.apply_async(in_worker, ((game, states, sol, computer),)).get(timeout=120)
        assert out == [(game.legal_actions(s), sol.index(s), computer.choose(s, 9)) for s in states]
        assert moved == [game.apply(s, game.legal_actions(s)[0]) for s in states]
        assert game_back == game and start == sol.start_value
        # The states made there are this game's.
        assert [game.current_player(s) for s in moved] == [game_back.current_player(s) for s in moved]
        ttt = solvedgym.make("tictactoe")
        with pytest.raises(solvedgym.IllegalActionError) as there:
            pool.apply_async(illegal_in_worker, (ttt,)).get(timeout=120)
        here = raised(lambda: illegal_in_worker(ttt))
        assert str(there.value) == str(here)


def aec_in_worker(env):
    import random

    import numpy as np

    rng, seen = random.Random(5), []
    for agent in env.agent_iter(200):
        observation, reward, termination, truncation, info = env.last()
        seen.append((agent, observation["observation"].tolist(), reward, termination, truncation))
        env.step(None if termination or truncation else rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
    return seen


def test_a_pettingzoo_env_crosses_a_spawned_process_mid_episode():
    pytest.importorskip("pettingzoo")
    import solvedgym.pettingzoo

    env = solvedgym.pettingzoo.env("hase-und-igel", players=3, board="CHCHIHC2H", max_rounds=6)
    env.reset(seed=21)
    for _ in range(4):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        there = pool.apply_async(aec_in_worker, (env,)).get(timeout=120)
    assert there == aec_in_worker(env) and len(there) > 10


ASYNC_ILLEGAL = """
import gymnasium, numpy as np, solvedgym

def make():
    import solvedgym.gym  # registers solvedgym/<Name>-v0 where a spawned worker runs this

    return gymnasium.make("solvedgym/Tictactoe-v0")

# The reference: the same illegal action in this process.
env = make()
env.reset(seed=0)
env.step(4)
try:
    env.step(4)
except solvedgym.IllegalActionError as e:
    here = str(e)

# Two workers (seeded 0 and 1): the first plays its taken square again, the second a legal move.
envs = gymnasium.vector.AsyncVectorEnv([make, make], context="{context}")
envs.reset(seed=0)
_, _, _, _, infos = envs.step(np.array([4, 4]))
legal = int(np.flatnonzero(infos["action_mask"][1])[0])
try:
    envs.step(np.array([4, legal]))
except solvedgym.IllegalActionError as e:
    print("RAISED", type(e).__module__, type(e).__qualname__, str(e) == here, flush=True)
finally:
    envs.close(terminate=True)
"""


@pytest.mark.parametrize("context", ["spawn", "fork"])
def test_an_illegal_action_in_an_async_vector_env_raises_in_the_parent(context):
    pytest.importorskip("gymnasium")
    if context not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {context} start method here")
    script = textwrap.dedent(ASYNC_ILLEGAL).format(context=context)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert "RAISED solvedgym IllegalActionError True" in done.stdout, done.stderr[-3000:]


SPAWNED_WITHOUT_IMPORT = """
import gymnasium, numpy as np

# Workers started by spawn import nothing of ours: each way below must get them the environment.
ways = {
    # Gymnasium's own: the spec, entry point "solvedgym.gym:SolvedGymEnv", travels and is imported.
    "make_vec": lambda: gymnasium.make_vec(
        "solvedgym.gym:solvedgym/Tictactoe-v0", num_envs=2, vectorization_mode="async",
        vector_kwargs={"context": "spawn"}),
    # A function of the caller's, the module named in the id ("module:id", Gymnasium's form).
    "module:id": lambda: gymnasium.vector.AsyncVectorEnv(
        [lambda: gymnasium.make("solvedgym.gym:solvedgym/Tictactoe-v0")] * 2, context="spawn"),
}
for name, make in ways.items():
    envs = make()
    _, info = envs.reset(seed=0)
    _, rewards, _, _, info = envs.step(info["action_mask"].argmax(axis=1))
    print("STEPPED", name, info["action_mask"].shape, flush=True)
    envs.close()
# The plain id in a spawned worker that imported nothing: Gymnasium's NamespaceNotFound there.
envs = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make("solvedgym/Tictactoe-v0")], context="spawn")
"""


def test_spawned_workers_make_the_env_by_the_module_in_its_id():
    pytest.importorskip("gymnasium")
    done = subprocess.run([sys.executable, "-c", SPAWNED_WITHOUT_IMPORT], capture_output=True, text=True, timeout=120)
    assert "STEPPED make_vec (2, 9)" in done.stdout and "STEPPED module:id (2, 9)" in done.stdout, done.stderr[-3000:]
    assert done.returncode != 0 and "NamespaceNotFound" in done.stderr, "the plain id needs the import"


def test_an_agent_copy_is_never_written_through_a_link(agent_file, tmp_path):
    """The copy of an agent whose file is gone goes to the temporary folder, which is anyone's:
    a `solvedgym-agents` there that links elsewhere is refused, and nothing is written there."""
    import subprocess
    import sys

    path = tmp_path / "gone.parquet"
    shutil.copy(agent_file, path)
    data = pickle.dumps(solvedgym.load_agent(path))
    os.remove(path)
    tmp, elsewhere = tmp_path / "tmp", tmp_path / "elsewhere"
    tmp.mkdir()
    elsewhere.mkdir()
    (tmp / "solvedgym-agents").symlink_to(elsewhere, target_is_directory=True)
    blob = tmp_path / "agent.pickle"
    blob.write_bytes(data)
    code = "import pickle, sys, solvedgym; pickle.loads(open(sys.argv[1], 'rb').read())"
    run = subprocess.run(
        [sys.executable, "-c", code, str(blob)],
        env={**os.environ, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "is not a folder (a link is not followed)" in run.stderr, run.stderr
    assert list(elsewhere.iterdir()) == []
