"""Training helpers: one learner's Gymnasium view of a battle (:mod:`.team_env`) and its
batched twin for stable-baselines3 (:mod:`.team_vec_env`), the opponent league
(:mod:`.league`), behaviour cloning (:mod:`.imitation`), the policy networks
(:mod:`.policies`) and the route to Ray RLlib (:mod:`.rllib`).

``train.py`` and ``train_rllib.py`` at the repository's top are the command lines over
these. Torch, stable-baselines3 and Ray are imported only by the modules that need them.
"""
