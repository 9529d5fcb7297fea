"""Pinocchio as an independent oracle: forward kinematics and Jacobians of random trees."""

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close, random_state
from pinocchio_bridge import pin, to_pinocchio

KINDS = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]


@pytest.mark.parametrize("seed, n, branching", [(0, 1, 0.0), (1, 6, 0.0), (2, 10, 0.5), (3, 15, 0.9)])
def test_forward_kinematics_and_jacobians_agree_with_pinocchio(seed, n, branching):
    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching)
    pm = to_pinocchio(model)
    data = pm.createData()
    q, qd, qdd = random_state(model, np.random.default_rng(seed))
    pin.forwardKinematics(pm, data, q, qd, qdd)
    pin.computeJointJacobians(pm, data, q)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    for i in range(n):
        oMi = data.oMi[i + 1]
        assert_close(kin.R[i], oMi.rotation)
        assert_close(kin.p[i], oMi.translation)
        assert_close(dl.body_jacobian(model, q, i), pin.getJointJacobian(pm, data, i + 1, pin.WORLD))
        assert_close(dl.body_jacobian(model, q, i, "local"), pin.getJointJacobian(pm, data, i + 1, pin.LOCAL))
        # Pinocchio stores body-frame twists and spatial accelerations; ours are world-frame
        X = dl.motion_transform(kin.R[i], kin.p[i])
        assert_close(kin.v[i], X @ data.v[i + 1].vector)
        assert_close(kin.a[i], X @ data.a[i + 1].vector)
