"""Pinocchio as an independent oracle for rnea, crba and aba on random trees."""

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close, random_state
from pinocchio_bridge import pin, to_pinocchio

KINDS = ["revolute", "prismatic", "spherical", "helical", "translational", "free"]
CASES = [(0, 1, 0.0), (1, 5, 0.0), (2, 9, 0.5), (3, 14, 0.9), (4, 20, 0.3)]


@pytest.mark.parametrize("seed, n, branching", CASES)
def test_rnea_crba_aba_agree_with_pinocchio(seed, n, branching):
    # Pinocchio's crba needs depth-first numbering (see the tooling notes); ours does not
    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching, depth_first=True)
    pm = to_pinocchio(model)
    data = pm.createData()
    q, qd, qdd = random_state(model, np.random.default_rng(seed))
    tau = np.random.default_rng(seed + 100).normal(size=model.nv)
    assert_close(dl.rnea(model, q, qd, qdd), pin.rnea(pm, data, q, qd, qdd))
    H = pin.crba(pm, data, q)
    assert_close(dl.crba(model, q), np.triu(H) + np.triu(H, 1).T)
    assert_close(dl.aba(model, q, qd, tau), pin.aba(pm, data, q, qd, tau), rtol=1e-9)


@pytest.mark.parametrize("seed", [5, 6])
def test_rnea_and_aba_agree_on_trees_not_numbered_depth_first(seed):
    model = dl.random_tree(12, seed, kinds=KINDS, branching=0.7)
    pm = to_pinocchio(model)
    data = pm.createData()
    q, qd, qdd = random_state(model, np.random.default_rng(seed))
    assert_close(dl.rnea(model, q, qd, qdd), pin.rnea(pm, data, q, qd, qdd))
    tau = dl.rnea(model, q, qd, qdd)
    assert_close(pin.aba(pm, data, q, qd, tau), qdd, rtol=1e-9)
