"""Hostile input from Python (issue 38): every input below raises a clean Python exception whose
message says what was wrong in a user's words (no Rust type names, at most ~100 characters of
what was given), or gives the right answer. Inputs that once killed the interpreter run in a
subprocess, which must end with a Python traceback (return code 1), not a signal."""

import math
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import solvedgym

MEGA = "x" * 1_000_000

#: Words that belong to Rust, not to a Python user's message.
RUST_WORDS = re.compile(
    r"\b(usize|isize|u8|u16|u32|u64|u128|i8|i16|i32|i64|i128|f32|f64)\b"
    r"|invalid type|invalid value|untagged enum|Option<|\bVec\b|String\b|\bPy[A-Z][a-z]+|panicked"
)


def clean(message: str, *wanted: str, longest: int = 3000) -> str:
    """Checks a message: short, no Rust words, and holding every one of `wanted`."""
    assert len(message) <= longest, f"{len(message)} characters: {message[:300]}..."
    assert not RUST_WORDS.search(message), message
    for w in wanted:
        assert w in message, f"{w!r} not in {message!r}"
    return message


def raises(kinds, call, *wanted, longest=3000):
    with pytest.raises(kinds) as info:
        call()
    return clean(str(info.value), *wanted, longest=longest)


def in_subprocess(code: str, timeout: float = 120):
    """Runs `code` in a fresh interpreter: the result (the test checks its return code)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_traceback(done, *wanted):
    """A Python exception ended the subprocess (return code 1, a traceback), not a signal."""
    assert done.returncode == 1, f"return code {done.returncode}: {done.stderr[-2000:]}"
    assert "Traceback (most recent call last)" in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    clean(last, *wanted)


# ---------------------------------------------------------------- nesting (item 4)


def nested_list(depth):
    return f"v = 1\nfor _ in range({depth}):\n    v = [v]\n"


def nested_dict(depth):
    return f"v = 1\nfor _ in range({depth}):\n    v = {{'a': v}}\n"


def nested_tuple(depth):
    return f"v = 1\nfor _ in range({depth}):\n    v = (v,)\n"


RUN_BASE = (
    "base = {'name': 'deep', 'episodes': 2, 'eval_interval': 1, 'seeds': 1, "
    "'game': {'name': 'hexapawn'}, "
    "'learners': [{'kind': 'matchbox', 'scheme': 'her', 'label': 'HER', 'seat': 'black'}], "
    "'opponents': [{'policy': 'random'}]}\n"
)

DEEP_CALLS = {
    "make-list": (nested_list, "solvedgym.make('hexapawn', rows=v)", "rows"),
    "make-dict": (nested_dict, "solvedgym.make('hase-und-igel', deck=v)", "deck"),
    "make-tuple": (nested_tuple, "solvedgym.make('fox-hounds', size=v)", "size"),
    "make-unknown-key": (nested_list, "solvedgym.make('tictactoe', board=v)", "board"),
    "gym-make": (
        nested_list,
        "import gymnasium\ngymnasium.make('solvedgym/Hexapawn-v0', rows=v)",
        "rows",
    ),
    "pettingzoo-env": (
        nested_dict,
        "from solvedgym.pettingzoo import env\nenv('hase-und-igel', deck=v)",
        "deck",
    ),
    "vector-env": (
        nested_list,
        "from solvedgym.vector import SolvedGymVectorEnv\nSolvedGymVectorEnv(2, game='hexapawn', cols=v)",
        "cols",
    ),
    "run-game-list": (
        nested_list,
        RUN_BASE + "base['game']['rows'] = v\nsolvedgym.run(base, out=OUT, progress=False)",
        "game.rows",
    ),
    "run-game-dict": (
        nested_dict,
        RUN_BASE + "base['game']['deck'] = v\nsolvedgym.run(base, out=OUT, progress=False)",
        "game.deck",
    ),
    "run-top-level": (
        nested_list,
        RUN_BASE + "base['extra'] = v\nsolvedgym.run(base, out=OUT, progress=False)",
        "extra",
    ),
    "run-learners": (
        nested_dict,
        RUN_BASE + "base['learners'] = [v]\nsolvedgym.run(base, out=OUT, progress=False)",
        "learners[0]",
    ),
}


@pytest.mark.parametrize("case", sorted(DEEP_CALLS))
def test_nesting_20000_deep_is_an_exception_not_a_crash(case, tmp_path):
    make_value, call, path = DEEP_CALLS[case]
    code = f"import solvedgym\nOUT = {str(tmp_path)!r}\n" + make_value(20_000) + call
    done = in_subprocess(code)
    assert_traceback(done, "ValueError", path, "64")


@pytest.mark.parametrize("depth", [64, 65, 100, 1000])
def test_nesting_is_bounded_at_64_levels(depth):
    v = 1
    for _ in range(depth):
        v = [v]
    if depth <= 64:
        # Deep enough to convert: refused by the game for being a list, not for its depth.
        message = raises(ValueError, lambda: solvedgym.make("hexapawn", rows=v), "rows")
        assert "64" not in message
    else:
        message = raises(ValueError, lambda: solvedgym.make("hexapawn", rows=v), "rows[0][0]", "64")
        assert "nested more than 64" in message


def test_a_list_that_holds_itself_is_refused():
    v = []
    v.append(v)
    raises(ValueError, lambda: solvedgym.make("hexapawn", rows=v), "64")
    d = {}
    d["d"] = d
    raises(ValueError, lambda: solvedgym.make("hase-und-igel", deck=d), "deck.d.d", "64")


# ---------------------------------------------------------------- huge and odd strings (item 6)

TTT = solvedgym.make("tictactoe")
START = TTT.initial_state()


def huge_cases():
    return {
        "make-name": lambda: solvedgym.make(MEGA),
        "make-key": lambda: solvedgym.make("hexapawn", **{MEGA: 1}),
        "make-key-tictactoe": lambda: solvedgym.make("tictactoe", **{MEGA: 1}),
        "make-text-value": lambda: solvedgym.make("hexapawn", rows=MEGA),
        "make-hackenbush-graph": lambda: solvedgym.make("hackenbush", graph=MEGA),
        "string-to-action": lambda: TTT.string_to_action(START, MEGA),
        "computer": lambda: TTT.computer(MEGA),
        "computer-settings": lambda: solvedgym.make("fox-hounds").computer("depth=" + "9" * 1_000_000),
        "computer-agent": lambda: TTT.computer("agent=" + MEGA),
        "read-position": lambda: TTT.read_position(MEGA),
        "read-state-key": lambda: TTT.read_state_key(MEGA),
        "value": lambda: solvedgym.value(MEGA),
        "digits-as-action-text": lambda: TTT.string_to_action(START, "9" * 1_000_000),
    }


@pytest.mark.parametrize("case", sorted(huge_cases()))
def test_a_megabyte_input_is_quoted_short(case):
    with pytest.raises((ValueError, TypeError, OSError)) as info:
        huge_cases()[case]()
    message = clean(str(info.value), longest=5000)
    assert "x" * 200 not in message and "9" * 200 not in message, message[:500]


HUGE_RUNS = {
    "name": lambda base: dict(base, name=MEGA),
    "game-name": lambda base: dict(base, game={"name": MEGA}),
    "unknown-key": lambda base: dict(base, **{MEGA: 1}),
    "game-key": lambda base: dict(base, game={"name": "hexapawn", MEGA: 1}),
    "learner-kind": lambda base: dict(base, learners=[{"kind": MEGA}]),
    "opponent-policy": lambda base: dict(base, opponents=[{"policy": MEGA}]),
}

BASE_RUN = {
    "name": "hostile",
    "episodes": 2,
    "eval_interval": 1,
    "seeds": 1,
    "game": {"name": "hexapawn"},
    "learners": [{"kind": "matchbox", "scheme": "her", "label": "HER", "seat": "black"}],
    "opponents": [{"policy": "random"}],
}


@pytest.mark.parametrize("case", sorted(HUGE_RUNS))
def test_a_megabyte_config_value_is_quoted_short(case, tmp_path):
    config = HUGE_RUNS[case](BASE_RUN)
    with pytest.raises((ValueError, TypeError)) as info:
        solvedgym.run(config, out=tmp_path, progress=False)
    message = clean(str(info.value), longest=5000)
    assert "x" * 200 not in message, message[:500]


EMPTY_AND_UNICODE = {
    "make-empty": (lambda: solvedgym.make(""), ValueError, "unknown game"),
    "make-unicode": (lambda: solvedgym.make("ħexapawn"), ValueError, "did you mean `hexapawn`"),
    "make-emoji": (lambda: solvedgym.make("🎲"), ValueError, "unknown game `🎲`"),
    "make-nul": (lambda: solvedgym.make("tic\x00tactoe"), ValueError, "unknown game"),
    "make-empty-key": (lambda: solvedgym.make("hexapawn", **{"": 3}), ValueError, "unknown field ``"),
    "make-unicode-key": (lambda: solvedgym.make("hexapawn", **{"rоws": 3}), ValueError, "did you mean `rows`"),
    "action-empty": (lambda: TTT.string_to_action(START, ""), solvedgym.IllegalActionError, "legal actions"),
    "action-unicode": (lambda: TTT.string_to_action(START, "ａ3"), solvedgym.IllegalActionError, "legal actions"),
    "action-combining": (lambda: TTT.string_to_action(START, "a3\u0301"), solvedgym.IllegalActionError, "a3"),
    "computer-empty": (lambda: TTT.computer(""), ValueError, ""),
    "computer-unicode": (lambda: TTT.computer("ðepth=3"), ValueError, "ðepth"),
    "position-empty": (lambda: TTT.read_position(""), ValueError, ""),
    "position-unicode": (lambda: TTT.read_position("✗✗✗/.../..."), ValueError, ""),
    "value-empty": (lambda: solvedgym.value(""), ValueError, ""),
    "value-unicode": (lambda: solvedgym.value("{½|}"), ValueError, ""),
    "surrogate-name": (lambda: solvedgym.make("\ud800"), UnicodeEncodeError, ""),
    "surrogate-value": (lambda: solvedgym.make("hackenbush", graph="\ud800"), UnicodeEncodeError, ""),
}


@pytest.mark.parametrize("case", sorted(EMPTY_AND_UNICODE))
def test_empty_and_unicode_text(case):
    call, kind, wanted = EMPTY_AND_UNICODE[case]
    raises(kind, call, wanted)


# ---------------------------------------------------------------- actions (item 6)

BAD_ACTIONS = {
    "2^70": (2**70, ValueError, "out of range", "1180591620717411303424", "0 to 8"),
    "-2^70": (-(2**70), ValueError, "out of range", "0 to 8"),
    "2^64": (2**64, ValueError, "out of range"),
    "-1": (-1, solvedgym.IllegalActionError, '"-1"', "legal actions"),
    "9": (9, solvedgym.IllegalActionError, '"9"', "legal actions"),
    "2^40": (2**40, solvedgym.IllegalActionError, "legal actions"),
    "1.5": (1.5, TypeError, "an action is an integer", "1.5"),
    "4.0": (4.0, TypeError, "an action is an integer"),
    "nan": (float("nan"), TypeError, "nan"),
    "inf": (float("inf"), TypeError, "inf"),
    "True": (True, TypeError, "True"),
    "None": (None, TypeError, "NoneType"),
    "str": ("a3", TypeError, "str"),
    "list": ([4], TypeError, "list"),
    "np.uint64-max": (np.uint64(2**64 - 1), ValueError, "out of range"),
    "np.float64": (np.float64(4.0), TypeError, "an action is an integer"),
}


@pytest.mark.parametrize("case", sorted(BAD_ACTIONS))
@pytest.mark.parametrize("call", ["apply", "action_to_string"])
def test_bad_actions_are_refused(case, call):
    action, kind, *wanted = BAD_ACTIONS[case]
    raises(kind, lambda: getattr(TTT, call)(START, action), *wanted)


@pytest.mark.parametrize("case", ["2^70", "-2^70", "1.5", "None", "True", "str"])
def test_bad_actions_in_the_aec_environment(case):
    from solvedgym.pettingzoo import env

    action, kind, *wanted = BAD_ACTIONS[case]
    e = env("tictactoe")
    e.reset(seed=1)
    raises(kind, lambda: e.step(action), *wanted)


@pytest.mark.parametrize("case", ["2^70", "1.5", "None", "str"])
def test_bad_actions_in_the_vector_environment(case):
    from solvedgym._solvedgym import VectorCore

    action, kind, *wanted = BAD_ACTIONS[case]
    core = VectorCore(TTT, 2, 0, "random")
    core.reset([1, 2])
    raises(kind, lambda: core.step([4, action]), *wanted)


def test_good_actions_of_other_integer_types():
    assert TTT.apply(START, np.int64(4)) == TTT.apply(START, 4)
    assert TTT.apply(START, np.uint8(4)) == TTT.apply(START, 4)
    assert TTT.action_to_string(START, np.int32(0)) == "a3"


@pytest.mark.parametrize("num_envs", [1.5, "2", True, None, 0, -1, 2**70])
def test_num_envs_is_a_whole_number(num_envs):
    from solvedgym.vector import SolvedGymVectorEnv

    raises((TypeError, ValueError), lambda: SolvedGymVectorEnv(num_envs, game="tictactoe"), "num_envs")


def wrong_arguments():
    from solvedgym._solvedgym import VectorCore
    from solvedgym.pettingzoo import env

    sol = TTT.solve()
    core = VectorCore(TTT, 2, 0, "random")
    aec = env("tictactoe")
    random_player = TTT.computer("random")
    return {
        "make-None": lambda: solvedgym.make(None),
        "make-bytes": lambda: solvedgym.make(b"tictactoe"),
        "make-param-object": lambda: solvedgym.make("hexapawn", rows=object()),
        "make-param-set": lambda: solvedgym.make("hexapawn", rows={3}),
        "make-param-complex": lambda: solvedgym.make("hexapawn", rows=3j),
        "make-param-bytes": lambda: solvedgym.make("hexapawn", rows=b"3"),
        "string-to-action-int": lambda: TTT.string_to_action(START, 5),
        "read-position-None": lambda: TTT.read_position(None),
        "computer-None": lambda: TTT.computer(None),
        "computer-fuzz-text": lambda: TTT.computer("random", fuzz="a"),
        "computer-fuzz-nan": lambda: TTT.computer("random", fuzz=float("nan")),
        "computer-fuzz-2": lambda: TTT.computer("random", fuzz=2.0),
        "choose-seed-fraction": lambda: random_player.choose(START, seed=1.5),
        "choose-seed-negative": lambda: random_player.choose(START, seed=-1),
        "value-int": lambda: solvedgym.value(3),
        "observations-text": lambda: sol.observations("abc", 0),
        "observations-fractions": lambda: sol.observations([1.5], 0),
        "observations-out-of-range": lambda: sol.observations([10**6], 0),
        "observations-player": lambda: sol.observations([0], 7),
        "evaluate-seats-text": lambda: sol.evaluate(lambda o, m: m, seats="ab"),
        "evaluate-seats-missing": lambda: sol.evaluate(lambda o, m: m, seats=[5]),
        "evaluate-seats-empty": lambda: sol.evaluate(lambda o, m: m, seats=[]),
        "evaluate-batch-0": lambda: sol.evaluate(lambda o, m: m, batch_size=0),
        "evaluate-not-a-policy": lambda: sol.evaluate("uniform"),
        "evaluate-table-shape": lambda: sol.evaluate(np.ones((3, 9))),
        "state-out-of-range": lambda: sol.state(len(sol)),
        "moves-out-of-range": lambda: sol.moves(10**9),
        "vector-seeds-text": lambda: core.reset("ab"),
        "vector-seeds-count": lambda: core.reset([1]),
        "vector-opponent-None": lambda: VectorCore(TTT, 2, 0, None),
        "vector-opponent-unknown": lambda: VectorCore(TTT, 2, 0, "optimul"),
        "vector-seat": lambda: VectorCore(TTT, 2, 5, "random"),
        "aec-seed-negative": lambda: aec.reset(seed=-1),
        "aec-seed-fraction": lambda: aec.reset(seed=1.5),
        "aec-observe-nobody": lambda: aec.observe("nobody"),
        "player-huge": lambda: TTT.observation_tensor(START, 2**70),
        "player-missing": lambda: TTT.observation_tensor(START, 2),
    }


WRONG_ARGUMENTS = sorted(wrong_arguments())


@pytest.mark.parametrize("case", WRONG_ARGUMENTS)
def test_wrong_arguments_raise_in_python_words(case):
    with pytest.raises((ValueError, TypeError, OverflowError)) as info:
        wrong_arguments()[case]()
    clean(str(info.value))


# ---------------------------------------------------------------- misspellings (item 6)

MISSPELT_GAMES = {
    "hexapwan": "hexapawn",
    "octopawn": "octapawn",
    "foxhunds": "fox-hounds",
    "tictacto": "tictactoe",
    "tic-tak-toe": "tictactoe",
    "hasenspeil": "hasenspiel",
    "hackenbosh": "hackenbush",
    "dice-rice": "dice-race",
    "hase-und-igle": "hase-und-igel",
}


@pytest.mark.parametrize("typed", sorted(MISSPELT_GAMES))
def test_a_misspelt_game_gets_a_suggestion(typed):
    raises(ValueError, lambda: solvedgym.make(typed), f"did you mean `{MISSPELT_GAMES[typed]}`?", typed)


@pytest.mark.parametrize("typed", ["chess", "go", "x" * 200])
def test_a_game_far_from_every_name_gets_none(typed):
    message = raises(ValueError, lambda: solvedgym.make(typed), "unknown game", "the games are")
    assert "did you mean" not in message


MISSPELT_PARAMS = [
    ("fox-hounds", "sise", "size"),
    ("hexapawn", "row", "rows"),
    ("hexapawn", "colls", "cols"),
    ("hase-und-igel", "player", "players"),
]


@pytest.mark.parametrize("game,typed,meant", MISSPELT_PARAMS)
def test_a_misspelt_parameter_gets_a_suggestion(game, typed, meant):
    raises(ValueError, lambda: solvedgym.make(game, **{typed: 3}), f"`{typed}`", f"did you mean `{meant}`?")


def test_a_misspelt_game_in_a_config(tmp_path):
    config = dict(BASE_RUN, game={"name": "hexapwan"})
    raises(ValueError, lambda: solvedgym.run(config, out=tmp_path, progress=False), "did you mean `hexapawn`?")


# ---------------------------------------------------------------- every parameter of every game

WRONG_VALUES = {
    "list": [3],
    "dict": {"a": 3},
    "None": None,
    "object": object(),
    "2^70": 2**70,
    "nan": float("nan"),
    "bool": True,
}


def parameters():
    for info in solvedgym.games():
        for key, (_help, default) in info["params"].items():
            yield info["name"], key, default


PARAMETERS = list(parameters())


def wrong_types():
    """Every parameter of every game with each value of a kind it does not take."""
    for game, key, default in PARAMETERS:
        for wrong, value in sorted(WRONG_VALUES.items()):
            if isinstance(default, bool) and wrong == "bool":
                continue  # a flag
            if isinstance(default, dict) and wrong == "dict":
                continue  # a table: its unknown keys are tested below
            if isinstance(default, type(value)) and not isinstance(value, bool):
                continue  # the right kind
            yield pytest.param(game, key, value, id=f"{game}.{key}={wrong}")


@pytest.mark.parametrize("game,key,value", list(wrong_types()))
def test_a_wrong_type_for_any_parameter_is_refused(game, key, value):
    with pytest.raises((ValueError, TypeError)) as info:
        solvedgym.make(game, **{key: value})
    message = clean(str(info.value))
    assert key in message, message


WHOLE_NUMBER_PARAMETERS = [
    pytest.param(g, k, id=f"{g}.{k}")
    for g, k, d in PARAMETERS
    if isinstance(d, int) and not isinstance(d, bool)
]


@pytest.mark.parametrize("game,key", WHOLE_NUMBER_PARAMETERS)
def test_a_whole_number_parameter_refuses_a_fraction(game, key):
    message = raises(ValueError, lambda: solvedgym.make(game, **{key: 1.5}), key, "1.5")
    assert "whole number" in message, message


@pytest.mark.parametrize("value", [-1, -(2**40)])
@pytest.mark.parametrize("game,key", WHOLE_NUMBER_PARAMETERS)
def test_a_whole_number_parameter_refuses_a_negative_number(game, key, value):
    raises(ValueError, lambda: solvedgym.make(game, **{key: value}), key, str(value))


# ---------------------------------------------------------------- weights in evaluate (item 3)


@pytest.fixture(scope="module")
def ttt_solution():
    return TTT.solve()


@pytest.mark.parametrize("scale", [1.0, 1e308, 5e-324, 2.0**-1074, 2.0**1000, 1e-300])
def test_a_scaled_uniform_policy_scores_the_same(ttt_solution, scale):
    reference = ttt_solution.evaluate(lambda o, m: m * 1.0)
    scaled = ttt_solution.evaluate(lambda o, m: m * scale)
    assert scaled == reference
    assert reference["moves"]["states_faced"] == 4520


@pytest.mark.parametrize("scale", [2.0**-900, 2.0**1000, 2.0**1020])
def test_a_scaled_uneven_policy_scores_the_same(ttt_solution, scale):
    legal, keeps = ttt_solution.masks()
    table = (legal * 0.25 + keeps * 0.5).astype(np.float64)
    assert ttt_solution.evaluate(table * scale) == ttt_solution.evaluate(table)


def test_the_1e308_policy_is_scored_over_every_position_it_faces(ttt_solution):
    """The report's figures: 0.189 over 1 state before; the uniform policy's 0.580 over 4,520."""
    moves = ttt_solution.evaluate(lambda o, m: m * 1e308)["moves"]
    assert moves["states_faced"] == 4520
    assert round(moves["optimal_rate_faced"], 3) == 0.580


BAD_WEIGHTS = {
    "nan": (math.nan, "nan"),
    "inf": (math.inf, "inf"),
    "-inf": (-math.inf, "-inf"),
    "negative": (-1.0, "-1"),
    "tiny-negative": (-5e-324, "-5e-324"),
    "overflowing": (1e308 * 10, "inf"),
}


@pytest.mark.parametrize("case", sorted(BAD_WEIGHTS))
@pytest.mark.parametrize("form", ["callable", "table"])
def test_bad_weights_name_the_position_and_action(ttt_solution, case, form):
    weight, shown = BAD_WEIGHTS[case]
    legal, _ = ttt_solution.masks()
    table = legal.astype(np.float64)
    table[0, 4] = weight  # position 0 (the start), action 4 (b2)
    start = ttt_solution.observations([0], 0)[0]

    def at_the_start(o, m):
        out = m.astype(np.float64)
        out[(o == start).all(axis=1), 4] = weight
        return out

    policy = table if form == "table" else at_the_start
    message = raises(ValueError, lambda: ttt_solution.evaluate(policy), "position 0", "action 4 (b2)", longest=1000)
    assert shown.lower() in message.lower(), message


@pytest.mark.parametrize("form", ["callable", "table"])
def test_all_zero_weights_on_legal_moves_are_refused(ttt_solution, form):
    legal, _ = ttt_solution.masks()
    table = legal.astype(np.float64)
    table[0, :] = 0.0
    table[0, 0] = 0.0
    zeros = lambda o, m: np.zeros(m.shape)  # noqa: E731
    policy = table if form == "table" else zeros
    message = raises(ValueError, lambda: ttt_solution.evaluate(policy), "position 0", "weight 0", longest=1000)
    assert "a3" in message, message


def test_weights_on_illegal_moves_only_are_refused(ttt_solution):
    legal, _ = ttt_solution.masks()
    table = (~legal).astype(np.float64)
    raises(ValueError, lambda: ttt_solution.evaluate(table), "weight 0")


@pytest.mark.parametrize("returned", ["strings", "ragged", "scalar", "3-d", "None"])
def test_a_policy_returning_no_array_is_refused(ttt_solution, returned):
    out = {
        "strings": lambda o, m: [["a"] * m.shape[1]] * m.shape[0],
        "ragged": lambda o, m: [[1.0]] + [[1.0, 2.0]] * (m.shape[0] - 1),
        "scalar": lambda o, m: 1.0,
        "3-d": lambda o, m: np.ones((m.shape[0], m.shape[1], 1)),
        "None": lambda o, m: None,
    }[returned]
    with pytest.raises((ValueError, TypeError)) as info:
        ttt_solution.evaluate(out)
    clean(str(info.value))


# ---------------------------------------------------------------- config values through run()

BAD_CONFIG_VALUES = {
    "episodes-fraction": ("episodes", 1.5, "episodes"),
    "episodes-negative": ("episodes", -1, "episodes"),
    "episodes-text": ("episodes", "ten", "episodes"),
    "episodes-huge": ("episodes", 2**70, "episodes"),
    "seeds-fraction": ("seeds", 2.5, "seeds"),
    "seeds-bool": ("seeds", True, "seeds"),
    "seeds-nested": ("seeds", [[1]], "seeds"),
    "seeds-dict": ("seeds", {"a": 1}, "seeds"),
    "eval-nan": ("eval_interval", float("nan"), "eval_interval"),
    "name-number": ("name", 3, "name"),
    "name-empty": ("name", "", "name"),
    "key-number": (7, 1, "7"),
    "game-none": ("game", None, "game"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIG_VALUES))
def test_bad_config_values_name_the_key_in_plain_words(case, tmp_path):
    key, value, wanted = BAD_CONFIG_VALUES[case]
    config = dict(BASE_RUN)
    config[key] = value
    with pytest.raises((ValueError, TypeError)) as info:
        solvedgym.run(config, out=tmp_path, progress=False)
    clean(str(info.value), wanted)


# ---------------------------------------------------------------- a study of 1000 runs (item 1)


def test_a_study_of_1000_seeds_ends(tmp_path):
    """This used to overflow a rayon worker's stack and kill the interpreter (SIGSEGV)."""
    code = f"""
        import solvedgym
        config = {{
            "name": "many", "episodes": 10, "eval_interval": 10, "seeds": 1000,
            "game": {{"name": "hexapawn"}},
            "learners": [{{"kind": "matchbox", "scheme": "her", "label": "HER", "seat": "black"}}],
            "opponents": [{{"policy": "random"}}],
        }}
        result = solvedgym.run(config, out={str(tmp_path)!r}, progress=False)
        print("ok", result.dir)
    """
    done = in_subprocess(code, timeout=600)
    assert done.returncode == 0, f"return code {done.returncode}: {done.stderr[-3000:]}"
    assert "ok" in done.stdout
