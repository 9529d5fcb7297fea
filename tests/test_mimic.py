"""Joint couplings ``q_j = r q_i + o`` (gears, URDF mimic joints) as constraints: their rows by finite
differences, constrained dynamics against the reduced dynamics ``(G^T H G) ydd = G^T (tau - C)`` written
independently, a mix with a loop constraint through every constrained function, and the error paths.
(URDF files with mimic joints: tests/test_urdf.py and tests/test_urdf_zoo.py.)"""

import numpy as np
import pytest

import dynlib as dl
from dynlib.algorithms.constrained_dynamics import (
    constrained_forward_dynamics,
    constrained_inverse_dynamics,
    project_velocity,
    stacked_forward_dynamics,
    stacked_system,
)
from dynlib.multibody.loops import (
    PLANAR_POINT_AXES,
    JointCoupling,
    LoopConstraint,
    constraint_bias,
    constraint_jacobian,
    constraint_residual,
    dependent_motion,
    project_configuration,
)

from conftest import assert_close

EPS = np.finfo(float).eps
ONE_DOF = ("revolute", "prismatic", "helical")


def one_dof_tree(n=7, seed=5):
    """A branched tree of revolute, prismatic and helical joints (q and qd have one entry per body)."""
    return dl.random_tree(n, seed, kinds=list(ONE_DOF), branching=0.4)


def coupling_matrix(model, couplings):
    """``G`` with ``qd = G yd`` and ``q = G y + offset`` for couplings on one-coordinate joints whose
    leaders are not coupled themselves: ``y`` holds the coordinates of the other joints, in order."""
    coupled = {c.joint: c for c in couplings}
    free = [i for i in range(model.nv) if i not in coupled]
    G, offset = np.zeros((model.nv, len(free))), np.zeros(model.nv)
    G[free, np.arange(len(free))] = 1.0
    for j, c in coupled.items():
        G[j] = c.multiplier * G[c.leader]
        offset[j] = c.offset
    return G, offset


def test_coupling_rows_are_the_residual_and_its_derivatives(rng):
    """A spatial tree welded to the world, with a coupling between two of its one-coordinate joints."""
    model = dl.random_tree(6, 31, kinds=["revolute", "spherical", "prismatic", "helical"], branching=0.3)
    axial = [i for i, joint in enumerate(model.joints) if joint.kind in ONE_DOF]
    assert len(axial) >= 2
    q = dl.random_configuration(model, rng)
    kin = dl.forward_kinematics(model, q)
    body = model.n_bodies - 1
    weld = LoopConstraint(body, -1, point_a=[0.1, 0.2, 0.0], point_b=kin.p[body] + kin.R[body] @ [0.1, 0.2, 0.0],
                          angular_axes=np.eye(3), rotation_ab=kin.R[body].T)
    gear = JointCoupling(axial[-1], axial[0], multiplier=-1.7, offset=0.3)
    constraints = [gear, weld]
    j, i = model.q_slices[gear.joint].start, model.q_slices[gear.leader].start
    phi = constraint_residual(model, q, constraints)
    assert phi[0] == q[j] + 1.7 * q[i] - 0.3
    assert np.array_equal(phi[1:], constraint_residual(model, q, [weld]))  # the weld's rows, as computed alone
    A = constraint_jacobian(model, q, constraints)
    expected = np.zeros(model.nv)
    expected[model.v_slices[gear.joint].start], expected[model.v_slices[gear.leader].start] = 1.0, 1.7
    assert np.array_equal(A[0], expected)
    # along a random motion q(t) = q (+) t qd with qd(t) = qd + t qdd: d phi/dt = A qd, d(A qd)/dt = A qdd + bias
    qd, qdd = dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    h = 1e-5

    def residual(t):
        return constraint_residual(model, dl.integrate(model, q, qd, t), constraints)

    def rate(t):
        return constraint_jacobian(model, dl.integrate(model, q, qd, t), constraints) @ (qd + t * qdd)

    # central differences err by h^2 times the third derivative (of the size of the rates cubed)
    assert_close(A @ qd, (residual(h) - residual(-h)) / (2 * h), rtol=1e-7)
    bias = constraint_bias(model, q, qd, constraints)
    assert bias[0] == 0
    assert_close(A @ qdd + bias, (rate(h) - rate(-h)) / (2 * h), rtol=1e-6)


@pytest.mark.parametrize("seed", [5, 11])
def test_coupled_forward_dynamics_is_the_reduced_dynamics(seed, rng):
    model = one_dof_tree(seed=seed)
    couplings = [JointCoupling(3, 1, multiplier=0.5, offset=0.2), JointCoupling(6, 0, multiplier=-2.0, offset=-0.1)]
    G, offset = coupling_matrix(model, couplings)
    y, yd = rng.normal(size=G.shape[1]), rng.normal(size=G.shape[1])
    q, qd, tau = G @ y + offset, G @ yd, rng.normal(size=model.nv)
    assert np.abs(constraint_residual(model, q, couplings)).max() <= 4 * EPS * max(1.0, np.abs(q).max())
    # the reduced dynamics, from dynlib's crba and rnea alone
    H = dl.crba(model, q)
    C = dl.rnea(model, q, qd, np.zeros(model.nv))
    H_reduced = G.T @ H @ G
    ydd = np.linalg.solve(H_reduced, G.T @ (tau - C))
    qdd, lam = constrained_forward_dynamics(model, q, qd, tau, couplings)
    # both solve with H (or G^T H G): their round-off is cond times eps, relative to the accelerations
    rtol = 100 * EPS * max(np.linalg.cond(H), np.linalg.cond(H_reduced))
    assert_close(qdd, G @ ydd, rtol=rtol)
    # the multipliers are the coupling torques: H qdd + C = tau + A^T lam
    A = constraint_jacobian(model, q, couplings)
    assert_close(H @ qdd + C, tau + A.T @ lam, rtol=rtol, scale=np.abs(H).max() * np.abs(qdd).max() + np.abs(tau).max())
    # the stacked form gives the same accelerations and multipliers
    stacked = stacked_forward_dynamics(model, q, qd, tau, constraints=couplings)
    assert_close(stacked.qdd, qdd, rtol=rtol)
    assert_close(stacked.lam, lam, rtol=rtol)


def mixed_system(rng):
    """A planar chain of five links whose tip is pinned to a world point, with joint 1 geared to joint 0."""
    model = dl.planar_chain(5)
    q_start = rng.normal(scale=0.5, size=model.nv)
    kin = dl.forward_kinematics(model, q_start)
    tip = kin.p[4] + kin.R[4] @ [1.0, 0.0, 0.0]
    pin = LoopConstraint(4, -1, point_a=[1.0, 0, 0], point_b=tip + [0.05, -0.05, 0.0], linear_axes=PLANAR_POINT_AXES)
    constraints = [pin, JointCoupling(1, 0, multiplier=2.0, offset=0.1)]
    return model, constraints, project_configuration(model, q_start, constraints)


def test_a_coupling_and_a_loop_together_through_every_constrained_function(rng):
    model, constraints, q = mixed_system(rng)
    scale = np.abs(q).max()
    assert np.abs(constraint_residual(model, q, constraints)).max() <= 1e-11 * scale
    A = constraint_jacobian(model, q, constraints)
    assert A.shape == (3, 5) and np.linalg.matrix_rank(A) == 3
    # the velocity projection, then dependent_motion from two independent joints, agree with A qd = 0
    qd = project_velocity(model, q, rng.normal(size=model.nv), constraints)
    assert_close(A @ qd, np.zeros(3), rtol=1e-12, scale=np.abs(A).max() * np.abs(qd).max())
    qd_dep, qdd_dep = dependent_motion(model, q, constraints, [0, 3], qd[[0, 3]], [0.3, -0.2])
    assert_close(qd_dep, qd, rtol=1e-10)
    assert_close(A @ qdd_dep + constraint_bias(model, q, qd, constraints), np.zeros(3), rtol=1e-10,
                 scale=np.abs(A).max() * np.abs(qdd_dep).max())
    # forward dynamics: the constraints hold in acceleration, and the stacked form agrees
    tau = rng.normal(size=model.nv)
    qdd, lam = constrained_forward_dynamics(model, q, qd, tau, constraints)
    bias = constraint_bias(model, q, qd, constraints)
    assert_close(A @ qdd + bias, np.zeros(3), rtol=1e-10,
                 scale=np.abs(A).max() * np.abs(qdd).max() + np.abs(bias).max())
    stacked = stacked_forward_dynamics(model, q, qd, tau, constraints=constraints)
    assert_close(stacked.qdd, qdd, rtol=1e-9)
    assert_close(stacked.lam, lam, rtol=1e-9)
    K, _ = stacked_system(model, q, qd, tau, constraints=constraints)
    assert K.shape == (12 * 5 + 5 + 3,) * 2
    # inverse dynamics with joints 0 and 3 actuated (three passive joints, three constraints): tau comes back
    tau_back, lam_back = constrained_inverse_dynamics(model, q, qd, qdd, constraints,
                                                      [True, False, False, True, False])
    assert_close(constrained_forward_dynamics(model, q, qd, tau_back, constraints)[0], qdd, rtol=1e-8)
    # a simulation projected onto the constraints keeps the coupling and the pin
    tr = dl.simulate(model, q, qd, 0.2, 0.01, tau=tau, constraints=constraints, project=True)
    assert max(np.abs(constraint_residual(model, qs, constraints)).max() for qs in tr.q) <= 1e-11 * scale
    assert all(abs(qs[1] - 2.0 * qs[0] - 0.1) <= 1e-11 * scale for qs in tr.q)
    # the outline of a body shows the loop's points and nothing of the coupling
    outlines = dl.body_outlines(model, q, constraints)
    assert [len(o) for o in outlines] == [2, 2, 2, 2, 2]


def test_a_gear_pair_moves_as_one_body():
    """Two discs on the world, the second geared to the first: the torque on the first drives both,
    with the inertia J1 + r^2 J2 (the reduced dynamics by hand)."""
    wheel = dl.spatial_inertia(1.0, [0, 0, 0], np.diag([0.25, 0.25, 0.5]))
    big = dl.spatial_inertia(4.0, [0, 0, 0], np.diag([1.0, 1.0, 2.0]))
    model = dl.Model((-1, -1), (dl.revolute([0, 0, 1]), dl.revolute([0, 0, 1])),
                     np.array([np.eye(4), dl.homogeneous(np.eye(3), [1.0, 0, 0])]), np.array([wheel, big]))
    gear = JointCoupling(1, 0, multiplier=-0.25)
    qdd, lam = constrained_forward_dynamics(model, [0.0, 0.0], [0.0, 0.0], [3.0, 0.0], [gear])
    inertia = 0.5 + 0.25**2 * 2.0
    assert_close(qdd, [3.0 / inertia, -0.25 * 3.0 / inertia], rtol=1e-14)
    assert_close(lam, [2.0 * qdd[1]], rtol=1e-14)  # the torque the gear puts on the big wheel


def test_coupling_input_errors():
    with pytest.raises(ValueError, match="a joint coupling ties two different joints, got joint 1 twice"):
        JointCoupling(1, 1)
    with pytest.raises(ValueError, match=r"joint must be a body index \(the index of its joint\), got -1"):
        JointCoupling(-1, 0)
    with pytest.raises(ValueError, match=r"leader must be a body index .* got 1.0"):
        JointCoupling(2, 1.0)
    with pytest.raises(ValueError, match=r"joint must be a body index .* got True"):
        JointCoupling(True, 0)
    with pytest.raises(TypeError, match="multiplier must be a real number, got 'x'"):
        JointCoupling(1, 0, multiplier="x")
    with pytest.raises(ValueError, match="offset must be finite"):
        JointCoupling(1, 0, offset=np.nan)
    chain = dl.planar_chain(2)
    with pytest.raises(ValueError, match=r"joint coupling joint 5 does not exist \(the model has 2 bodies\)"):
        constraint_jacobian(chain, [0.0, 0.0], [JointCoupling(5, 0)])
    ball = dl.Model((-1, 0), (dl.spherical(), dl.revolute([0, 0, 1])), np.array([np.eye(4)] * 2),
                    np.array([dl.spatial_inertia(1.0, [0, 0, 0], np.eye(3))] * 2))
    with pytest.raises(ValueError, match=r"joint coupling leader 0 \('body0'\) is a spherical joint: a coupling ties "
                                         r"one-coordinate joints \(revolute, prismatic, helical\)"):
        constrained_forward_dynamics(ball, [0, 0, 0, 1.0, 0], np.zeros(4), np.zeros(4), [JointCoupling(1, 0)])
    with pytest.raises(TypeError, match="constraints must be LoopConstraint or JointCoupling objects, got tuple"):
        constraint_residual(chain, [0.0, 0.0], [(1, 0)])
    with pytest.raises(ValueError, match="non-empty list of LoopConstraint or JointCoupling"):
        project_configuration(chain, [0.0, 0.0], [])
