"""The same answers wherever the robot stands: every algorithm, on random trees and on real robots, moved
up to 1e6 m from the world origin, against the same system at the origin and against Pinocchio.

The moves and inputs are those of ``benchmarks/far_from_origin.py``: root positions and external wrenches
are dyadic numbers and the moves whole metres, so that the far system is exactly the near one moved and
any difference is the algorithms' own.  The kernels take their moments about the origin of body 0's frame
(``dynlib.kernels.reference_point``), so that nothing cancels far from the world origin.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dynlib as dl

from conftest import assert_close
from pinocchio_bridge import pin, to_pinocchio

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import far_from_origin as far  # noqa: E402

RTOL = 1e-12  # relative change allowed, far from the origin against at it
DISTANCES = (1e2, 1e4, 1e6)
KINDS = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]


def state_of(model, rng):
    model, q = far.exactly_movable(model, dl.random_configuration(model, rng))
    qd, qdd, tau = (far.dyadic(dl.random_velocity(model, rng)) for _ in range(3))
    return model, q, qd, qdd, tau, far.dyadic(rng.normal(size=(model.n_bodies, 6)))


def worst_change(model, q, qd, qdd, tau, f_ext, distances=DISTANCES):
    """The largest relative change of each algorithm's results over the moves, and the results at the origin."""
    near = far.results(model, q, qd, qdd, tau, f_ext, np.zeros(3))
    worst = dict.fromkeys(near, 0.0)
    for distance in distances:
        moved = far.results(model, q, qd, qdd, tau, f_ext, np.round(distance * far.DIRECTION))
        for name in near:
            worst[name] = max(worst[name], far.relative_change(moved[name], near[name]))
    return worst, near


def solo12():
    return dl.load_urdf(Path(dl.__file__).parent / "multibody" / "data" / "solo12.urdf", floating_base=True)


@pytest.mark.parametrize("system", ["solo12", "iiwa14"])
def test_every_algorithm_gives_the_same_answers_on_a_robot_far_from_the_origin(system):
    model = solo12() if system == "solo12" else dl.kuka_iiwa14()
    worst, near = worst_change(*state_of(model, np.random.default_rng(3)))
    assert len(near) >= 17  # rnea ... contact_impulse: every algorithm of the list
    bad = {name: change for name, change in worst.items() if not change <= RTOL}
    assert not bad, f"moved up to 1e6 m, these changed by more than {RTOL}: {bad}"


@settings(max_examples=12, deadline=None, derandomize=True)
@given(n=st.integers(1, 9), seed=st.integers(0, 10**6), branching=st.sampled_from([0.0, 0.5, 1.0]),
       distance=st.sampled_from(DISTANCES))
def test_every_algorithm_gives_the_same_answers_on_random_trees_far_from_the_origin(n, seed, branching, distance):
    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching)
    worst, _ = worst_change(*state_of(model, np.random.default_rng(seed)), distances=(distance,))
    bad = {name: change for name, change in worst.items() if not change <= RTOL}
    assert not bad, f"moved by {distance:g} m, these changed by more than {RTOL}: {bad}"


def test_far_from_the_origin_dynlib_agrees_with_pinocchio():
    """Pinocchio, in joint frames, loses nothing far away either: the two agree there as at the origin."""
    rng = np.random.default_rng(8)
    for model in (solo12(), dl.random_tree(8, 5, kinds=KINDS, branching=0.5)):
        model, q, qd, qdd, tau, _ = state_of(model, rng)
        moved, q_far = far.moved(model, q, np.round(1e6 * far.DIRECTION))
        pm = to_pinocchio(moved)
        data = pm.createData()
        H = pin.crba(pm, data, q_far)
        rtol = 1e-9 * np.linalg.cond(dl.crba(moved, q_far))  # the forward solve: as conditioned as H
        assert_close(dl.rnea(moved, q_far, qd, qdd), pin.rnea(pm, data, q_far, qd, qdd), rtol=1e-9)
        assert_close(dl.crba(moved, q_far), np.triu(H) + np.triu(H, 1).T, rtol=1e-9)
        assert_close(dl.aba(moved, q_far, qd, tau), pin.aba(pm, data, q_far, qd, tau), rtol=rtol)


def test_what_the_caller_asked_for_about_the_origin_is_about_the_origin():
    """Spatial results come back about the world origin: moving the system moves them as a Plücker transform."""
    model, q, qd, qdd, tau, _ = state_of(dl.random_tree(6, 2, kinds=KINDS, branching=0.5), np.random.default_rng(4))
    d = np.array([3.0, -2.0, 5.0])
    moved, q_far = far.moved(model, q, d)
    near, there = dl.forward_kinematics(model, q, qd, qdd), dl.forward_kinematics(moved, q_far, qd, qdd)
    X = dl.motion_transform(np.eye(3), d)  # twists about the old origin -> about the new one
    assert_close(there.p, near.p + d)
    assert_close(there.v, near.v @ X.T)
    assert_close(there.a, near.a @ X.T)
    assert_close(there.I, dl.transform_inertia(X, near.I))
    mobility_near, mobility_far = dl.articulated_mobility(model.first_bodies(1), q[: model.first_bodies(1).nq]), \
        dl.articulated_mobility(moved.first_bodies(1), q_far[: moved.first_bodies(1).nq])
    assert_close(mobility_far.Lambda_inv, X @ mobility_near.Lambda_inv @ X.T)
