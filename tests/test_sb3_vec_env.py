"""``facing_env.train.team_vec_env.TeamVecEnv``: the SB3 ``VecEnv`` over ``VectorEnv``.

Battle ``i`` is checked against the AEC env driven as ``TeamLearnerEnv`` drives it (the
opponent playing inside ``step``, the team's rewards summed between the learner's
actions), and the ``VecEnv`` methods ``train.py`` and sb3-contrib use are exercised."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from facing_env.agents import make_agent
from facing_env.env import raw_env
from facing_env.errors import IllegalActionError
from facing_env.train.team_env import TeamLearnerEnv
from facing_env.train.team_vec_env import TeamVecEnv


class _Reference:
    """One battle slot as ``TeamLearnerEnv`` plays it, on the AEC env: seeded ``seed``,
    later battles reset without a seed (``VectorEnv``'s contract)."""

    def __init__(self, scenario: str, seed: int, team: str, opponent: str, **kwargs) -> None:
        self.env = raw_env(scenario, **kwargs)
        self.team = team
        self.opponent = make_agent(opponent)
        self.rng = np.random.default_rng(0)  # unused by deterministic opponents
        self.env.reset(seed=seed)
        self.pending, _ = self._advance()

    def _mine(self, agent: str) -> bool:
        return self.env.teams[self.env.agent_to_id[agent]] == self.team

    def _earned(self) -> float:
        return sum(r for a, r in self.env.rewards.items() if self._mine(a))

    def _advance(self) -> tuple[float, bool]:
        env, reward = self.env, 0.0
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
            elif self._mine(agent):
                return reward, False
            else:
                o = env.observe(agent)
                env.step(int(self.opponent.act(o["observation"], o["action_mask"], self.rng)))
            reward += self._earned()
        return reward, True

    def view(self) -> dict:
        return self.env.observe(self.env.agent_selection)

    def step(self, action: int) -> tuple[float, bool, dict]:
        self.env.step(action)
        reward = self.pending + self._earned()
        self.pending = 0.0
        more, done = self._advance()
        reward += more
        info: dict = {}
        if done:
            from facing_env.rules import engine

            battle = self.env.battle
            over = engine.is_over(battle)
            first = next(a for a in self.env.possible_agents if self._mine(a))
            info = {
                "won": over and engine.winner(battle) == self.team,
                "truncated": not over,
                "terminal_observation": self.env.observe(first)["observation"].copy(),
            }
            self.env.reset()
            self.pending, _ = self._advance()
        return reward, done, info


@pytest.mark.parametrize(
    ("scenario", "team", "opponent"),
    [("duel", "blue", "aggressive"), ("skirmish", "red", "flanker"), ("duel", "red", "defensive")],
)
def test_each_battle_is_the_aec_env_played_as_team_learner_env_plays_it(scenario, team, opponent):
    """Observations, masks, rewards (exact to float32), ends, outcomes and terminal
    observations of every slot, over several battles (auto-resets included)."""
    n, seed = 3, 70
    venv = TeamVecEnv(scenario, n, opponents=[opponent], seed=seed, learner_team=team, max_rounds=3)
    assert isinstance(venv, VecEnv)
    obs = venv.reset()
    refs = [_Reference(scenario, seed + i, team, opponent, max_rounds=3) for i in range(n)]
    rng = np.random.default_rng(1)
    done_count = 0
    for t in range(150):
        masks = venv.action_masks()
        for i, ref in enumerate(refs):
            view = ref.view()
            np.testing.assert_array_equal(obs[i], view["observation"], err_msg=f"{i} {t}")
            np.testing.assert_array_equal(masks[i], view["action_mask"] != 0)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(acts)
        for i, ref in enumerate(refs):
            reward, done, info = ref.step(int(acts[i]))
            assert rewards[i] == pytest.approx(reward, abs=1e-5), (i, t)
            assert dones[i] == done, (i, t)
            assert infos[i]["team"] == team and infos[i]["opponent"] == opponent
            if done:
                done_count += 1
                assert infos[i]["won"] == info["won"]
                assert infos[i]["TimeLimit.truncated"] == info["truncated"]
                assert infos[i]["dice"] == "roll" and infos[i]["rounds"] >= 1
                np.testing.assert_array_equal(
                    infos[i]["terminal_observation"], info["terminal_observation"]
                )
    assert done_count >= 3


def test_maskable_ppo_trains_through_it_with_a_monitor():
    """sb3-contrib reads the masks through ``env_method("action_masks")`` and VecMonitor
    counts the episodes."""
    from sb3_contrib import MaskablePPO

    venv = VecMonitor(TeamVecEnv("duel", 4, opponents=["random"], seed=0, max_rounds=2))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(256)
    assert len(model.ep_info_buffer) > 0
    masks = np.stack(venv.env_method("action_masks"))
    assert masks.shape == (4, venv.action_space.n) and masks.dtype == bool
    assert venv.has_attr("action_masks")


def test_opponent_pool_weights_and_dice_per_battle():
    """Weights pick each new battle's opponent; a removed opponent is not drawn again,
    but battles under way finish against it; dice modes apply per battle."""
    venv = TeamVecEnv(
        "duel",
        4,
        opponents=["random", "aggressive"],
        seed=3,
        max_rounds=2,
        dice_modes=["expected", "roll", "roll", "expected"],
    )
    venv.reset()
    assert venv.venv.dice_modes == ["expected", "roll", "roll", "expected"]
    venv.env_method("set_opponent_weights", {"aggressive": 1.0})
    venv.env_method("add_opponent", "flanker")
    assert venv.env_method("opponent_names", indices=[0]) == [["random", "aggressive", "flanker"]]
    venv.env_method("set_dice_mode", "deck", indices=[1])
    assert venv.venv.dice_modes == ["expected", "deck", "roll", "expected"]
    rng = np.random.default_rng(0)
    seen: dict[int, set] = {i: set() for i in range(4)}
    dice: dict[int, set] = {i: set() for i in range(4)}
    for _ in range(200):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        _, _, dones, infos = venv.step(acts)
        for i in np.flatnonzero(dones):
            seen[i].add(infos[i]["opponent"])
            dice[i].add(infos[i]["dice"])
    later = set().union(*(s - {"random"} for s in seen.values()))
    assert later == {"aggressive"}  # after the first battles, only the weighted one
    assert dice[1] >= {"deck"} and dice[0] == {"expected"} and dice[2] == {"roll"}
    venv.remove_opponent("aggressive")
    assert venv.opponent_names() == ["random", "flanker"]
    for _ in range(100):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()])
        venv.step(acts)
    assert len(venv._pool) == 2  # the removed one is forgotten once no battle plays it
    with pytest.raises(ValueError, match="not in the pool"):
        venv.remove_opponent("aggressive")
    with pytest.raises(AttributeError, match="no per-battle method 'render_board'"):
        venv.env_method("render_board")


def test_both_sides_are_learnt_and_bad_input_is_named():
    venv = TeamVecEnv("duel", 8, opponents=["aggressive"], seed=5, max_rounds=1)
    venv.reset()
    teams = set()
    for _ in range(60):
        _, _, _, infos = venv.step(np.zeros(8, dtype=np.int64))  # END_TURN
        teams.update(info["team"] for info in infos)
    assert teams == {"red", "blue"}
    twin = TeamVecEnv("duel", 2, opponents=["aggressive"], seed=6)
    same = TeamVecEnv("duel", 2, opponents=["aggressive"], seed=6)
    twin.reset()
    same.reset()
    forbidden = int(np.flatnonzero(~twin.action_masks()[0])[0])
    obs, rewards, _, infos = twin.step(np.array([forbidden, 0]))
    ref_obs, ref_rewards, _, _ = same.step(np.array([0, 0]))  # END_TURN instead
    assert infos[0]["illegal_action"] == forbidden and "illegal_action" not in infos[1]
    assert rewards[0] == pytest.approx(ref_rewards[0] - 0.1) and rewards[1] == ref_rewards[1]
    np.testing.assert_array_equal(obs, ref_obs)
    strict = TeamVecEnv("duel", 2, opponents=["random"], seed=0, illegal_action="raise")
    strict.reset()
    bad = int(np.flatnonzero(~strict.action_masks()[1])[0])
    with pytest.raises(IllegalActionError, match="battle 1: action"):
        strict.step(np.array([0, bad]))
    with pytest.raises(ValueError, match="learner_team 'green'"):
        TeamVecEnv("duel", 2, learner_team="green")
    with pytest.raises(ValueError, match="dice_modes needs 2 modes"):
        TeamVecEnv("duel", 2, dice_modes=["roll"])
    with pytest.raises(ValueError, match="illegal_action must be"):
        TeamVecEnv("duel", 2, illegal_action="ignore")


@pytest.mark.parametrize("penalty", [float("nan"), float("inf"), "0.1", True])
def test_a_penalty_that_is_not_a_finite_number_is_refused(penalty):
    """Issue 33: a NaN penalty was accepted (and would poison every return)."""
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        TeamVecEnv("duel", 2, illegal_penalty=penalty)
    with pytest.raises(ValueError, match="illegal_penalty must be a finite number"):
        TeamLearnerEnv("duel", illegal_penalty=penalty)


@pytest.mark.parametrize("actions", [np.array([0.0, 0.0]), np.array([0]), np.array([[0, 0, 0]])])
def test_actions_that_are_not_one_integer_per_battle_are_refused(actions):
    """Issue 33: float actions were accepted (truncated silently)."""
    venv = TeamVecEnv("duel", 2, opponents=["aggressive"], seed=0)
    venv.reset()
    with pytest.raises(ValueError, match="actions must be 2 integers"):
        venv.step(actions)
