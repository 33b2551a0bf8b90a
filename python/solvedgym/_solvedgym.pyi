"""Type stubs of the extension module (the Rust core); see `solvedgym` for the overview."""

import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class IllegalActionError(ValueError):
    """An action that is not legal where it was played (the message lists the legal ones).
    Pickles as itself (`solvedgym.IllegalActionError`), as ForeignStateError does."""

class ForeignStateError(ValueError):
    """A state made by another game, or by the same game with other parameters."""

class State:
    """A position of a game: immutable, hashable, compared as the game compares positions.
    Pickles as its game and its state key; copies share it."""

    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> State: ...
    def __deepcopy__(self, memo: Any) -> State: ...

class Game:
    """A registered game with its parameters: the rules as functions of immutable states.
    Equal where the names and parameters are; pickles by its name and parameters."""

    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: Any) -> Game: ...

    @property
    def name(self) -> str: ...
    @property
    def params(self) -> Dict[str, Any]: ...
    @property
    def num_players(self) -> int: ...
    @property
    def player_names(self) -> List[str]: ...
    @property
    def num_distinct_actions(self) -> int: ...
    @property
    def observation_size(self) -> int: ...
    @property
    def has_chance(self) -> bool: ...
    def initial_state(self) -> State: ...
    def current_player(self, state: State) -> int:
        """A player's number, -1 for chance, -4 when the game is over."""
    def is_terminal(self, state: State) -> bool: ...
    def is_chance_node(self, state: State) -> bool: ...
    def is_truncated(self, state: State) -> bool:
        """Whether a terminal state was reached by a round cap in the rules."""
    def legal_actions(self, state: State) -> List[int]: ...
    def legal_actions_mask(self, state: State) -> npt.NDArray[np.bool_]: ...
    def chance_outcomes(self, state: State) -> List[Tuple[int, float]]: ...
    def apply(self, state: State, action: int) -> State:
        """The state after `action`; raises IllegalActionError for an illegal one."""
    def returns(self, state: State) -> List[float]: ...
    def observation_tensor(self, state: State, player: int) -> npt.NDArray[np.float32]: ...
    def observation_bounds(self) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(low, high) of every number of `observation_tensor` (inf where the rules set none)."""
    def action_to_string(self, state: State, action: int) -> str: ...
    def string_to_action(self, state: State, text: str) -> int: ...
    def render(self, state: State) -> str: ...
    def render_rgb(self, state: State) -> npt.NDArray[np.uint8]:
        """The state as a picture: shape (height, width, 3), dtype uint8 (RGB)."""
    def write_position(self, state: State) -> str: ...
    def read_position(self, text: str) -> State: ...
    def write_state_key(self, state: State) -> str:
        """The key naming the state exactly (a saved agent's `position`): the notation, and in
        Hackenbush the board, standing edges and mover after ` @ `."""
    def read_state_key(self, text: str) -> State: ...
    def solve(self, max_states: int = 50_000_000) -> "Solution":
        """Every reachable position with its exact truth (refused with the numbers where too big)."""
    def computer(self, ai: str = "random", fuzz: float = 0.0) -> "Computer":
        """A computer player: "optimal", "greedy", "random", MCTS ("mcts,sims=500"), a saved agent ("agent=PATH") or search settings ("depth=3")."""

def games() -> List[Dict[str, Any]]:
    """The registered games: name, aliases, summary and params (name -> (help, default))."""

def make(name: str, **params: Any) -> Game:
    """The game `name` with the command line's parameter names and defaults."""

class Computer:
    """A computer player of one game (`Game.computer(...)`). Pickles as its game, what it plays
    and its fuzz (made again when unpickled)."""

    def __copy__(self) -> Computer: ...
    def __deepcopy__(self, memo: Any) -> Computer: ...

    @property
    def name(self) -> str: ...
    def choose(self, state: State, seed: int = 0) -> Optional[int]:
        """Its move at `state`, drawn with `seed`; None where it resigns."""

PolicyLike = Union[
    npt.NDArray[np.float64], Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], Any], "Agent", "Computer"
]

class Solution:
    """Every reachable position of a game, numbered from 0 (the start), with its exact truth.
    Pickles as its game and bound, and is solved again when unpickled; copies share it."""

    def __copy__(self) -> Solution: ...
    def __deepcopy__(self, memo: Any) -> Solution: ...

    def __len__(self) -> int: ...
    @property
    def start_value(self) -> str: ...
    def state(self, id: int) -> State: ...
    def index(self, state: State) -> Optional[int]: ...
    def players(self) -> npt.NDArray[np.int64]:
        """Who acts at each position: a player, -1 for chance, -4 at the end."""
    def moves(self, id: int) -> List[Tuple[int, bool]]:
        """Position `id`'s actions, each with whether it keeps the mover's value."""
    def value(self, id: int) -> Optional[Tuple[Optional[int], int]]:
        """(winner or None for a draw, plies); None where the truth is expected results."""
    def masks(self) -> Tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
        """(legal, keeps): positions x actions."""
    def win_probabilities(self) -> Optional[npt.NDArray[np.float64]]:
        """Each seat's exact win probability per position (positions x players) where chance moves."""
    def cgt_values(self) -> Optional[List[Optional[str]]]:
        """Hackenbush: every position's value in CGSuite's notation."""
    def columns(self) -> Dict[str, Any]:
        """One row per position: id, player, position, legal/optimal actions, values."""
    def to_polars(self) -> Any:
        """`columns()` as a polars DataFrame."""
    def observations(self, ids: List[int], player: int) -> npt.NDArray[np.float32]: ...
    def evaluate(
        self,
        policy: PolicyLike,
        seats: Optional[List[int]] = None,
        batch_size: int = 4096,
        illegal: str = "raise",
        output: str = "probabilities",
        opponent: Optional[PolicyLike] = None,
    ) -> Dict[str, Any]:
        """The exact evaluation of a policy (a positions x actions table, a batched callable, a
        saved agent or a computer player), each seat alone against perfect, random and
        best-response play, and against `opponent` where one is given. `illegal`: "raise"
        (refuse mass on an illegal action), "lose" (it loses the game, as the environments'
        illegal="lose" plays it) or "renormalize" (drop it). `output`: "probabilities"
        (weights at least 0) or "logits" (a softmax over the row)."""
    def best_response(
        self,
        opponent: Union[str, PolicyLike],
        seat: int,
        batch_size: int = 4096,
        illegal: str = "raise",
        output: str = "probabilities",
    ) -> Dict[str, Any]:
        """The best any policy achieves at `seat` against `opponent` ("random", "perfect" or a
        policy) at every other seat: `win`, `draw`, `loss`, `expected_return` and `policy`
        (a positions x actions table, 1 at the move it plays)."""

class Agent:
    """A saved agent (`load_agent(path)`), usable wherever a policy or an opponent is. Pickles
    by its file's contents, so that it needs no file where it is unpickled."""

    def __copy__(self) -> Agent: ...
    def __deepcopy__(self, memo: Any) -> Agent: ...

    @property
    def path(self) -> str: ...
    @property
    def game(self) -> Game: ...
    @property
    def kind(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def config(self) -> str:
        """Every key of its learner's config, as TOML."""
    @property
    def seats(self) -> List[str]: ...
    @property
    def seat_numbers(self) -> List[int]: ...
    @property
    def episodes(self) -> int: ...
    @property
    def origin(self) -> Optional[Dict[str, Any]]:
        """run, opponent, seed, episodes, condition, config_hash, config (its run's resolved config)."""
    @property
    def header(self) -> Dict[str, Any]: ...
    @property
    def spec(self) -> str:
        """Its name as a computer player: "agent=PATH"."""
    def computer(self, fuzz: float = 0.0) -> Computer: ...
    def table(self, solution: Solution) -> npt.NDArray[np.float64]:
        """The probabilities of its moves at every position of `solution`."""
    def evaluate(self, progress: bool = False) -> Dict[str, Any]:
        """Its run's figures made again, as `solvedgym evaluate PATH --json` makes them."""

def load_agent(path: str) -> Agent:
    """Opens an agent a run saved (`<run folder>/agents/*.parquet`)."""

VectorStep = Tuple[
    npt.NDArray[np.float32],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
    Optional[npt.NDArray[np.float32]],
]
EpisodeRecord = Tuple[int, Optional[int], List[int], List[int], bool, bool]

class VectorCore:
    """Environments of one game stepped in one call: the engine of `solvedgym.vector` and of
    `solvedgym.gym` (one environment, autoreset "off")."""

    def __init__(
        self,
        game: Game,
        num_envs: int,
        seat: int,
        opponent: Union[str, Callable[..., int]],
        fuzz: float = 0.0,
        illegal_loses: bool = False,
        autoreset: str = "next_step",
        sees_observation: bool = False,
    ) -> None:
        """`opponent` a computer player by name or a callable, `f(game, state)` or, with
        `sees_observation`, `f(observation, mask)`; `autoreset` "next_step", "same_step" or "off"."""
    @property
    def num_envs(self) -> int: ...
    def set_threads(self, threads: Optional[int] = None) -> None:
        """Lets a step take up to `threads` threads (None: the process's cores), each with
        2,048 environments or more; the results are the same whatever the number."""
    @property
    def threads(self) -> int:
        """The threads a step takes."""
    def reset(self, seeds: List[Optional[int]], mask: Optional[List[bool]] = None) -> VectorStep:
        """Environment i started with seeds[i] (its seed's next episode where None), only where
        `mask` is True when given: (observations, rewards, terminated, truncated, masks,
        illegal, final observations or None)."""
    def step(self, actions: Any) -> VectorStep:
        """(observations, rewards, terminated, truncated, masks, illegal, final observations in
        the same-step mode or None) after actions[i] in environment i."""
    def sample_legal(self, draw: int) -> np.ndarray:
        """A uniformly random legal action of every environment, int64 (0 where an episode is
        over): draw `draw` of a stream apart from the environments' own."""
    def state(self, i: int) -> State:
        """The position of environment i."""
    def snapshot(self) -> List[EpisodeRecord]:
        """Every environment's episode as (seed, episode, moves, answers, ended, broken)."""
    def restore(self, records: List[EpisodeRecord]) -> None:
        """Plays a snapshot again (environments of the same game, seat and opponents)."""

def _sb3_infos(
    terminated: np.ndarray, truncated: np.ndarray, illegal: np.ndarray, finals: np.ndarray
) -> Tuple[np.ndarray, List[Dict[str, Any]]]:
    """SB3's dones and info dicts of a same-step `VectorCore.step` (`solvedgym.sb3`)."""

class AecBase:
    """The Rust half of `solvedgym.pettingzoo.SolvedGymAEC`: the episode and PettingZoo's dicts."""

    agents: List[str]
    agent_selection: str
    rewards: Dict[str, float]
    terminations: Dict[str, bool]
    truncations: Dict[str, bool]
    infos: Dict[str, Dict[str, Any]]
    def _bind(self, game: Game, agents: List[str]) -> None: ...
    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None: ...
    def observe(self, agent: str) -> Dict[str, Any]: ...
    def last(self, observe: bool = True) -> Tuple[Any, float, bool, bool, Dict[str, Any]]: ...
    def step(self, action: Optional[int]) -> None: ...
    @property
    def state(self) -> State: ...

def value(expression: str) -> Dict[str, Any]:
    """A combinatorial game in CGSuite's notation analysed, as `solvedgym value --json`."""

def _run(
    config: Union[str, os.PathLike, Mapping[str, Any]],
    out: Union[str, os.PathLike],
    fresh: bool = False,
    csv: bool = False,
    progress: bool = False,
    observer: Optional[Callable[[int, int], Any]] = None,
) -> List[Dict[str, Any]]:
    """`solvedgym.run`'s engine: one dict per game (`name`, `dir`, `written`); `progress` draws
    the command line's bar on stderr, `observer(done, total)` is told the episodes trained at
    most every 100 ms; Ctrl-C or an exception from `observer` stops the study."""
