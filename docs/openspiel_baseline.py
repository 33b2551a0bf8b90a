"""The baseline of `solvedgym bench learn`: OpenSpiel's tabular Q-learner in self-play on
tic-tac-toe, as in OpenSpiel's own tabular_qlearner example (two learners, one per seat).

    pip install open_spiel
    python3 docs/openspiel_baseline.py [episodes]
"""
import sys
import time

from open_spiel.python import rl_environment
from open_spiel.python.algorithms import tabular_qlearner

episodes = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
env = rl_environment.Environment("tic_tac_toe")
num_actions = env.action_spec()["num_actions"]
agents = [tabular_qlearner.QLearner(player_id=i, num_actions=num_actions) for i in range(2)]
start = time.perf_counter()
for _ in range(episodes):
    time_step = env.reset()
    while not time_step.last():
        player = time_step.observations["current_player"]
        time_step = env.step([agents[player].step(time_step).action])
    for agent in agents:
        agent.step(time_step)
seconds = time.perf_counter() - start
print(f"OpenSpiel tabular Q-learning, tic-tac-toe self-play: {episodes} episodes "
      f"in {seconds:.2f} s = {episodes / seconds:,.0f} episodes/s")
