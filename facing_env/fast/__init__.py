"""The batched array engine (in progress: docs/design.md, "Speed").

N battles of one scenario held as arrays (:mod:`facing_env.fast.state`) and stepped by
numba kernels, one concern each. The object engine (:class:`~facing_env.rules.battle.Battle`,
:mod:`facing_env.rules.engine`, :mod:`facing_env.rules`) stays the readable reference: every
kernel is compared with it on random states of every scenario before it is used.

This package imports no gymnasium or pettingzoo.
"""
