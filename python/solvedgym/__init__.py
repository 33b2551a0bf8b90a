"""solvedgym: small board games solved exactly, for reinforcement learning.

The games of the `solvedgym` command line, on the same Rust core: every rule, notation and
check is the command line's own, reached through the extension module `solvedgym._solvedgym`.

    >>> import solvedgym
    >>> game = solvedgym.make("tictactoe")
    >>> state = game.apply(game.initial_state(), 4)
    >>> game.legal_actions(state)
    [0, 1, 2, 3, 5, 6, 7, 8]

`solvedgym.games()` lists the games and their parameters; `make(name, **params)` takes the
same parameter names and defaults as the command line and the configs. An illegal action raises
`IllegalActionError` (a `ValueError`), which lists the legal ones. `run(config)` runs an
experiment config (a path or a dict) as `solvedgym run` does and returns its curves and summary;
`load_agent(path)` opens an agent a run saved, usable wherever a policy or an opponent is.
Games, states, solutions, computer players, agents and the exceptions pickle and copy, so they
cross processes (multiprocessing, vector environments' workers): docs/python.md, "Across
processes".
"""

from ._solvedgym import (
    Agent,
    Computer,
    ForeignStateError,
    Game,
    IllegalActionError,
    Solution,
    State,
    __version__,
    games,
    load_agent,
    make,
    value,
)
from .experiments import RunResult, run
from .recorder import Recorder

#: OpenSpiel's numbers for who acts where no player does.
CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4

__all__ = [
    "Agent",
    "CHANCE_PLAYER",
    "Computer",
    "TERMINAL_PLAYER",
    "ForeignStateError",
    "Game",
    "IllegalActionError",
    "Recorder",
    "RunResult",
    "Solution",
    "State",
    "__version__",
    "games",
    "load_agent",
    "make",
    "run",
    "value",
]

try:  # Gymnasium environments are registered where Gymnasium is installed.
    import gymnasium as _gymnasium  # noqa: F401
except ImportError:  # pragma: no cover
    pass
else:
    from . import gym as _gym  # noqa: F401
