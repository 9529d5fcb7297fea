"""Compile every kernel now, before timing or fuzzing, instead of when each is first used often.

Compiled code is cached on disk, so after the first session this only loads it.

Chapter: *Inverse dynamics* (cost section) and the performance page.
"""

from __future__ import annotations

import numpy as np

from ..core.compile import COMPILED, compile_now
from ..multibody.builders import random_tree
from ..multibody.kinematics import forward_kinematics
from ..multibody.model import random_configuration, random_velocity
from ..spatial.screws import line_coordinates
from .articulated import aba, articulated_bodies, hybrid_dynamics
from .derivatives import rnea_derivatives
from .impulse import impulse_propagation
from .inverse_dynamics import rnea
from .mass_matrix import crba
from .mobility import articulated_mobility, split_chain_dynamics
from .regressor import energy_regressor, joint_torque_regressor

__all__ = ["compile_kernels"]


def compile_kernels():
    """Compile every kernel: run every algorithm once on a small chain with every kind of joint (one state
    and a batch), each kernel compiled at its first call, as every kernel is from now on.

    Without it a kernel runs as Python (about a millisecond a call) for its first ``HOT`` calls,
    so that a session that calls it a few times never waits for the compiler.

    Returns
    -------
    bool
        True when the kernels are compiled (numba installed), False when they run as Python.
    """
    compile_now()
    chain = random_tree(7, 0, kinds=["revolute", "prismatic", "helical", "spherical", "translational", "free", "fixed"],
                        branching=0.0)
    rng = np.random.default_rng(0)
    q, qd, tau = random_configuration(chain, rng), random_velocity(chain, rng), random_velocity(chain, rng)
    batch = np.stack([q, q]), np.stack([qd, qd]), np.stack([tau, tau])
    f_ext = rng.normal(size=(chain.n_bodies, 6))
    for args in ((q, qd, tau), batch):
        forward_kinematics(chain, args[0], args[1], args[2])
        rnea(chain, *args)
        rnea(chain, *args, f_ext)  # with external wrenches: the reference point too
        crba(chain, args[0])
        aba(chain, *args)
        articulated_bodies(chain, *args)
    hybrid_dynamics(chain, q, qd, tau, tau, [True, False] * 3 + [True])
    articulated_mobility(chain, q, qd, tau)
    split_chain_dynamics(chain, q, qd, tau, 3)
    impulse_propagation(chain, q, qd, line_coordinates([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]), 0.5)
    for args in ((q, qd, tau), batch):
        rnea_derivatives(chain, *args)
        joint_torque_regressor(chain, *args)
        energy_regressor(chain, *args[:2])
    return COMPILED
