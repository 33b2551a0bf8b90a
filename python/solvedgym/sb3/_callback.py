"""`ExactEvalCallback`: an SB3 callback that evaluates the model exactly as it trains.

Every `eval_freq` environment steps it gives the model's greedy play (`solvedgym.sb3.policy`)
to `Solution.evaluate` at the learner's seat and records the figures in SB3's logger under
`exact/<metric>`, with a Rust run's metric names (`exact/optimal_rate_faced`,
`exact/win_prob_vs_optimal`, `exact/worst_case_return`, `exact/value_error`, ...), so they
appear in TensorBoard, CSV and stdout beside SB3's own; with a `solvedgym.Recorder` it also
writes them as a run's curves (`curves.parquet`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from stable_baselines3.common.callbacks import BaseCallback

from .._solvedgym import Computer, Solution
from ..recorder import Recorder, evaluation_metrics, value_error
from ._policy import policy as sb3_policy

__all__ = ["ExactEvalCallback"]


class ExactEvalCallback(BaseCallback):
    """Evaluates the model exactly every `eval_freq` steps and logs the figures.

    solution
        the game's solution (`game.solve()`), of the game the model trains on.
    eval_freq
        environment steps between evaluations, counted as SB3's `num_timesteps` counts them
        (every environment of a vector environment counts). The model is also evaluated before
        it trains (step 0) and, with `final=True` (the default), when training ends, after its
        last update (an evaluation due at the last step waits for it).
    seat
        the learner's seat (a number); by default the training environment's `seat`.
    opponent
        the policy its training opponent plays, for `exact/*_vs_opponent`: anything
        `Solution.evaluate` takes as an opponent (a computer player, a saved agent, a table, a
        callable). By default the training environment's computer opponent where it has one
        (`gymnasium.make("solvedgym/...-v0", opponent="random")`); none for a callable
        opponent. The figures against perfect and uniformly random play are always logged.
    illegal
        what an illegal greedy move counts as (`Solution.evaluate`'s `illegal`): `"lose"`
        (the default) as the environment made with `illegal="lose"` plays it; `"raise"`
        refuses it. A masked model (MaskablePPO) never plays one.
    values
        also log `exact/value_error`: the mean absolute error of the model's value estimate
        (an actor-critic's value head, a Q-network's largest legal Q) over every position of
        its seat, against the solver's +1 / 0 / -1 (games of win/draw/loss truth).
    behaviour
        also evaluate the model's play as it trains (`policy(model, deterministic=False)`: the
        probabilities it draws its moves from) and log it as a Rust run logs a learner's
        behaviour policy: its figures under the plain names (`exact/optimal_rate_faced`, ...)
        and the greedy play's as `exact/greedy_optimal_rate_all`, `_faced`, `_optimal_play`
        and `exact/greedy_return_vs_optimal`. Off by default: the plain names hold the greedy
        play's figures.
    recorder
        a `solvedgym.Recorder` that also writes every evaluation as a run's curves; its seat
        and opponent are then the ones used (`illegal` stays the callback's).
    preprocess
        passed to `solvedgym.sb3.policy` (the normalisation of a `VecNormalize`).

    `history` holds `(num_timesteps, figures)` for every evaluation, `last` the latest figures.
    """

    def __init__(
        self,
        solution: Solution,
        eval_freq: int = 1000,
        *,
        seat: Optional[int] = None,
        opponent: Any = None,
        illegal: str = "lose",
        values: bool = True,
        behaviour: bool = False,
        recorder: Optional[Recorder] = None,
        final: bool = True,
        preprocess: Any = None,
        verbose: int = 0,
    ):
        super().__init__(verbose)
        if not isinstance(solution, Solution):
            raise TypeError(f"ExactEvalCallback takes a solution (game.solve()); got {type(solution).__name__}")
        if isinstance(eval_freq, bool) or not isinstance(eval_freq, int) or eval_freq < 1:
            raise ValueError(f"eval_freq={eval_freq!r}: a whole number of steps, at least 1")
        if illegal not in ("raise", "lose", "renormalize"):
            raise ValueError(f"illegal={illegal!r}: 'raise', 'lose' or 'renormalize'")
        self.solution = solution
        self.eval_freq = eval_freq
        self.seat = seat
        self.opponent = opponent
        self.illegal = illegal
        self.values = values
        self.behaviour = behaviour
        self.recorder = recorder
        self.final = final
        self.preprocess = preprocess
        self.history: List[Tuple[int, Dict[str, float]]] = []
        self.last: Dict[str, float] = {}
        self._next = 0

    def _init_callback(self) -> None:
        if self.recorder is not None:
            return
        if self.seat is None:
            self.seat = self._env_attr("seat")
            if self.seat is None:
                raise ValueError(
                    "ExactEvalCallback: the training environment has no `seat`; give seat=..."
                )
        if self.opponent is None:
            found = self._env_attr("opponent_player")
            self.opponent = found if isinstance(found, Computer) else None

    def _env_attr(self, name: str) -> Any:
        env = self.training_env
        try:
            return env.get_attr(name)[0] if env is not None else None
        except (AttributeError, NotImplementedError, IndexError):
            return None

    def _on_training_start(self) -> None:
        self._next = self.num_timesteps
        self._evaluate_if_due()

    def _on_step(self) -> bool:
        self._evaluate_if_due()
        return True

    def _on_training_end(self) -> None:
        if self.final and (not self.history or self.history[-1][0] != self.num_timesteps):
            self.evaluate()

    def _evaluate_if_due(self) -> None:
        total = getattr(self.model, "_total_timesteps", None)
        if self.final and total and self.num_timesteps >= total:
            # The last step comes before the model's last update: the end evaluates it after.
            return
        if self.num_timesteps >= self._next:
            self.evaluate()
            while self._next <= self.num_timesteps:
                self._next += self.eval_freq

    def evaluate(self) -> Dict[str, float]:
        """Evaluates the model now, logs the figures (and dumps the logger at this step, as
        SB3's `EvalCallback` does) and returns them."""
        greedy = sb3_policy(self.model, self.preprocess)
        if self.behaviour:
            play, also = sb3_policy(self.model, self.preprocess, deterministic=False), greedy
        else:
            play, also = greedy, None
        values = greedy.values if self.values and _has_values(self.model) else None
        step = int(self.num_timesteps)
        if self.recorder is not None:
            figures = self.recorder.record(step, play, greedy=also, values=values, illegal=self.illegal)
        else:
            seats = [int(self.seat)]
            report = self.solution.evaluate(play, seats=seats, illegal=self.illegal, opponent=self.opponent)
            figures = evaluation_metrics(report)
            if also is not None:
                report = self.solution.evaluate(also, seats=seats, illegal=self.illegal)
                figures.update(evaluation_metrics(report, greedy=True))
            if values is not None:
                error = value_error(self.solution, int(self.seat), values)
                if error is not None:
                    figures["value_error"] = error
        for name, value in figures.items():
            self.logger.record(f"exact/{name}", value)
        self.logger.record("time/total_timesteps", step, exclude="tensorboard")
        self.logger.dump(step)
        self.history.append((step, figures))
        self.last = figures
        if self.verbose >= 1:
            print(
                f"exact evaluation at {step} steps: optimal moves {figures['optimal_rate_faced']:.3f}, "
                f"return vs perfect {figures['return_vs_optimal']:+.3f}, "
                f"worst case {figures['worst_case_return']:+.3f}"
            )
        return figures


def _has_values(model: Any) -> bool:
    policy = getattr(model, "policy", None)
    return hasattr(policy, "predict_values") or hasattr(policy, "q_net")
