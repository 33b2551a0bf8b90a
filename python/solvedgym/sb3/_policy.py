"""A stable-baselines3 model as a policy the exact evaluator takes.

`policy(model)` wraps a trained (or untrained) SB3 / sb3-contrib model with a discrete action
space — PPO, A2C, DQN, MaskablePPO — in a callable `(observations, masks) -> batch x actions`,
the form `Solution.evaluate` calls in batches: a 1 at the move the model plays greedily
(`deterministic=True`), 0 elsewhere. The whole batch goes through the network in one forward
pass (the model's own `policy.predict`), so the move at each position is the one
`model.predict(obs, deterministic=True)` gives for it, masks applied as the model applies them:

- a model whose policy takes action masks (sb3-contrib's MaskablePPO) gets the evaluator's legal
  masks, so its greedy move is the best legal one (its masked logits' argmax);
- any other model (PPO, A2C, DQN) plays the argmax over every action, as it does in its
  environment; that move may be illegal. The evaluator's `illegal` argument says what it counts
  as: `"lose"` scores it as an environment made with `illegal="lose"` plays it (the game ends,
  lost by the mover); `"raise"` (the evaluator's default) refuses the policy naming the first
  position where it happens.

`policy(model, deterministic=False)` gives the model's play as it trains instead: the
probabilities its `predict(obs, deterministic=False)` draws from (an actor-critic's softmax over
its logits, masked for MaskablePPO; DQN's epsilon-greedy: `exploration_rate` spread over every
action, the rest on its greedy move).

Imports of torch and SB3 happen inside the calls: `import solvedgym.sb3` works without them.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

import numpy as np

__all__ = ["SB3Policy", "policy"]


class SB3Policy:
    """A model's greedy play as the evaluator's callable (see the module's help).

    Calling it with a batch of observations (float32, batch x observation_size) and masks
    (bool, batch x actions) returns a float32 batch x actions array with a 1 at each row's
    greedy move. `actions(observations, masks)` gives the moves themselves (int64), and
    `values(observations, masks)` the model's own estimate of each position's value (an
    actor-critic's value head; a Q-network's largest Q over the legal moves).
    """

    def __init__(
        self,
        model: Any,
        preprocess: Optional[Callable[[np.ndarray], np.ndarray]] = None,
        deterministic: bool = True,
    ):
        policy = getattr(model, "policy", None)
        if policy is None or not hasattr(policy, "predict"):
            raise TypeError(
                f"solvedgym.sb3.policy takes a stable-baselines3 model (PPO, A2C, DQN, MaskablePPO); "
                f"got {type(model).__name__}"
            )
        space = getattr(model, "action_space", None)
        n = getattr(space, "n", None)
        if n is None:
            raise TypeError(
                f"solvedgym.sb3.policy needs a model with a discrete action space (Discrete(n)); "
                f"this one has {space}"
            )
        self.model = model
        self.deterministic = bool(deterministic)
        self.num_actions = int(n)
        self.preprocess = preprocess
        self.masked = "action_masks" in inspect.signature(policy.predict).parameters
        obs_space = getattr(model, "observation_space", None)
        self._obs_shape = tuple(getattr(obs_space, "shape", ()) or ())

    def __repr__(self) -> str:
        how = "masked" if self.masked else "over every action"
        play = "greedy" if self.deterministic else "as it trains"
        return f"SB3Policy({type(self.model).__name__}, {play}, {how})"

    def _observations(self, observations: np.ndarray) -> np.ndarray:
        obs = np.asarray(observations, dtype=np.float32)
        if self.preprocess is not None:
            obs = np.asarray(self.preprocess(obs), dtype=np.float32)
        if self._obs_shape and obs.shape[1:] != self._obs_shape:
            raise ValueError(
                f"the model takes observations of shape {self._obs_shape}; this game's are "
                f"{obs.shape[1:]} (a model trained on another game, or with other parameters?)"
            )
        return obs

    def _check_masks(self, masks: np.ndarray, rows: int) -> np.ndarray:
        masks = np.asarray(masks, dtype=bool)
        if masks.shape != (rows, self.num_actions):
            raise ValueError(
                f"the model has {self.num_actions} actions; the masks are {masks.shape} "
                f"for {rows} observations"
            )
        return masks

    def actions(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The greedy move at each row, in one forward pass (int64, batch)."""
        obs = self._observations(observations)
        masks = self._check_masks(masks, len(obs))
        if len(obs) == 0:
            return np.zeros(0, dtype=np.int64)
        if self.masked:
            actions, _ = self.model.policy.predict(obs, deterministic=True, action_masks=masks)
        else:
            actions, _ = self.model.policy.predict(obs, deterministic=True)
        return np.asarray(actions, dtype=np.int64).reshape(len(obs))

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        if not self.deterministic:
            return self.probabilities(observations, masks)
        actions = self.actions(observations, masks)
        out = np.zeros((len(actions), self.num_actions), dtype=np.float32)
        out[np.arange(len(actions)), actions] = 1.0
        return out

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The probabilities the model draws its move from in training (float64, batch x
        actions): an actor-critic's action distribution (masked for MaskablePPO), DQN's
        epsilon-greedy at its current `exploration_rate`."""
        import torch as th

        obs = self._observations(observations)
        masks = self._check_masks(masks, len(obs))
        policy = self.model.policy
        if hasattr(policy, "q_net"):
            epsilon = float(getattr(self.model, "exploration_rate", 0.0))
            greedy = self.actions(observations, masks)
            out = np.full((len(obs), self.num_actions), epsilon / self.num_actions)
            out[np.arange(len(obs)), greedy] += 1.0 - epsilon
            return out
        if not hasattr(policy, "get_distribution"):
            raise TypeError(f"{type(self.model).__name__} has no action distribution")
        policy.set_training_mode(False)
        with th.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            if self.masked:
                dist = policy.get_distribution(tensor, action_masks=masks)
            else:
                dist = policy.get_distribution(tensor)
            probs = dist.distribution.probs.cpu().numpy().astype(np.float64)
        if self.masked:
            probs = np.where(masks, probs, 0.0)  # illegal moves: exactly 0
        return probs

    def values(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's value of each position (float64, batch), from the mover's point of view:
        an actor-critic's value head (`policy.predict_values`), a Q-network's largest Q over the
        legal moves. Raises TypeError for a model with neither."""
        import torch as th

        obs = self._observations(observations)
        masks = self._check_masks(masks, len(obs))
        policy = self.model.policy
        with th.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            if hasattr(policy, "predict_values"):
                out = policy.predict_values(tensor).cpu().numpy().reshape(len(obs))
            elif hasattr(policy, "q_net"):
                q = policy.q_net(tensor).cpu().numpy().astype(np.float64)
                out = np.where(masks, q, -np.inf).max(axis=1)
            else:
                raise TypeError(f"{type(self.model).__name__} has no value head or Q-network")
        return np.asarray(out, dtype=np.float64)


def policy(
    model: Any,
    preprocess: Optional[Callable[[np.ndarray], np.ndarray]] = None,
    deterministic: bool = True,
) -> SB3Policy:
    """`model`'s greedy play as a policy `Solution.evaluate` takes (see the module's help);
    with `deterministic=False`, its play as it trains (the probabilities it draws from).

    `preprocess`, where given, is applied to each batch of observations before the model sees
    it: the normalisation a `VecNormalize` wrapper applied in training
    (`preprocess=vec_normalize.normalize_obs`).

        >>> report = solution.evaluate(solvedgym.sb3.policy(model), seats=[0], illegal="lose")  # doctest: +SKIP
    """
    return SB3Policy(model, preprocess, deterministic)
