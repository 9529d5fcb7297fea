"""Loop constraints and constrained dynamics (Kim 2012 §3) on the four-bar, the piston-crank and random trees."""

import numpy as np
import pytest

import dynlib as dl
from dynlib.constrained_dynamics import constrained_forward_dynamics, constrained_inverse_dynamics
from dynlib.constraints import (
    PLANAR_POINT_AXES,
    LoopConstraint,
    constraint_bias,
    constraint_jacobian,
    constraint_residual,
    project_configuration,
    project_velocity,
)
from dynlib.mechanisms import four_bar, piston_crank

from conftest import assert_close

MECHANISMS = {"four_bar": four_bar, "piston_crank": piston_crank}


@pytest.fixture(params=list(MECHANISMS))
def mechanism(request):
    return MECHANISMS[request.param]()


def spatial_loop(rng):
    """A random tree whose last body is welded (point and orientation) to a world frame."""
    model = dl.random_tree(6, 31, kinds=["revolute", "spherical", "prismatic", "helical"], branching=0.3)
    q = dl.random_configuration(model, rng)
    kin = dl.forward_kinematics(model, q)
    body = model.n_bodies - 1
    weld = LoopConstraint(body, -1, point_a=[0.1, 0.2, 0.0], point_b=kin.p[body] + kin.R[body] @ [0.1, 0.2, 0.0],
                          angular_axes=np.eye(3), rotation_ab=kin.R[body].T)
    return model, [weld], q


def test_mechanisms_are_assembled(mechanism):
    model, constraints, q0 = mechanism
    assert_close(constraint_residual(model, q0, constraints), np.zeros(2), scale=1.0)
    assert np.linalg.matrix_rank(constraint_jacobian(model, q0, constraints)) == 2


def test_jacobian_and_bias_are_derivatives_of_the_residual(rng):
    model, constraints, q = spatial_loop(rng)
    qd, qdd = dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    h = 1e-5

    def phi(t):
        return constraint_residual(model, dl.integrate(model, q, qd, t), constraints)

    A = constraint_jacobian(model, q, constraints)
    assert_close(A @ qd, (phi(h) - phi(-h)) / (2 * h), rtol=1e-7)

    def rate(t):
        q_t = dl.integrate(model, q, qd, t)
        return constraint_jacobian(model, q_t, constraints) @ (qd + t * qdd)

    second = (rate(h) - rate(-h)) / (2 * h)
    assert_close(A @ qdd + constraint_bias(model, q, qd, constraints), second, rtol=1e-6)


def test_constrained_forward_dynamics_satisfies_constraints_and_equations(mechanism, rng):
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    tau = rng.normal(size=model.nv)
    qdd, lam = constrained_forward_dynamics(model, q0, qd, tau, constraints)
    A = constraint_jacobian(model, q0, constraints)
    assert_close(A @ qdd + constraint_bias(model, q0, qd, constraints), np.zeros(2), scale=np.abs(qdd).max())
    assert_close(dl.crba(model, q0) @ qdd + dl.bias_forces(model, q0, qd), tau + A.T @ lam, rtol=1e-9)


def test_constraint_forces_do_no_work(mechanism, rng):
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    _, lam = constrained_forward_dynamics(model, q0, qd, np.zeros(model.nv), constraints)
    A = constraint_jacobian(model, q0, constraints)
    assert abs(qd @ A.T @ lam) < 1e-10 * np.abs(A.T @ lam).max() * np.abs(qd).max()


def test_inverse_dynamics_with_passive_joints_recovers_the_driving_torque(mechanism, rng):
    """One actuated joint, m = n_p: the multipliers and the actuator torque are unique (eqs. 57-58)."""
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    tau = np.zeros(model.nv)
    tau[0] = 2.5
    qdd, lam = constrained_forward_dynamics(model, q0, qd, tau, constraints)
    tau_back, lam_back = constrained_inverse_dynamics(model, q0, qd, qdd, constraints, [True, False, False])
    assert_close(tau_back, tau, rtol=1e-8)
    assert_close(lam_back, lam, rtol=1e-8)


def test_redundant_actuation_minimum_force_and_minimum_torque(mechanism, rng):
    """All joints actuated (m > n_p): eqs. 59-66; both answers move the system as asked."""
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    qdd, _ = constrained_forward_dynamics(model, q0, qd, rng.normal(size=model.nv), constraints)
    tau_f, lam_f = constrained_inverse_dynamics(model, q0, qd, qdd, constraints, [True] * 3)
    tau_t, lam_t = constrained_inverse_dynamics(model, q0, qd, qdd, constraints, [True] * 3, minimize="torque")
    for tau in (tau_f, tau_t):
        assert_close(constrained_forward_dynamics(model, q0, qd, tau, constraints)[0], qdd, rtol=1e-8)
    assert np.linalg.norm(lam_f) <= np.linalg.norm(lam_t) * (1 + 1e-12)
    assert np.linalg.norm(tau_t) <= np.linalg.norm(tau_f) * (1 + 1e-12)
    # eqs. 65-66: tau = (1 - A^T (A A^T)^-1 A) tau_r
    A = constraint_jacobian(model, q0, constraints)
    tau_r = dl.rnea(model, q0, qd, qdd)
    assert_close(tau_t, tau_r - A.T @ np.linalg.solve(A @ A.T, A @ tau_r), rtol=1e-9)


def test_two_actuators_on_a_one_dof_loop_minimum_torque(mechanism, rng):
    """Two actuated joints, one passive (m = 2 > n_p = 1): a one-parameter family of solutions."""
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    qdd, _ = constrained_forward_dynamics(model, q0, qd, rng.normal(size=model.nv), constraints)
    tau_f, _ = constrained_inverse_dynamics(model, q0, qd, qdd, constraints, [True, False, True])
    tau_t, _ = constrained_inverse_dynamics(model, q0, qd, qdd, constraints, [True, False, True], minimize="torque")
    assert tau_f[1] == 0 and tau_t[1] == 0
    for tau in (tau_f, tau_t):
        assert_close(constrained_forward_dynamics(model, q0, qd, tau, constraints)[0], qdd, rtol=1e-8)
    assert np.linalg.norm(tau_t) <= np.linalg.norm(tau_f) * (1 + 1e-12)


def test_an_under_actuated_request_is_refused(mechanism, rng):
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    with pytest.raises(ValueError, match="passive joints cannot follow"):
        constrained_inverse_dynamics(model, q0, qd, rng.normal(size=3), constraints, [False, False, False])


def test_projections_restore_the_constraints(rng):
    model, constraints, q = spatial_loop(rng)
    nudged = dl.integrate(model, q, 1e-2 * rng.normal(size=model.nv))
    q_back = project_configuration(model, nudged, constraints)
    assert np.abs(constraint_residual(model, q_back, constraints)).max() < 1e-10
    qd = project_velocity(model, q_back, rng.normal(size=model.nv), constraints)
    assert_close(constraint_jacobian(model, q_back, constraints) @ qd, np.zeros(6), scale=np.abs(qd).max())


def test_simulated_mechanisms_keep_their_constraints(mechanism):
    model, constraints, q0 = mechanism
    for options in (dict(), dict(baumgarte=(10.0, 10.0)), dict(project=True)):
        tr = dl.simulate(model, q0, np.zeros(model.nv), 1.0, 0.005, constraints=constraints, **options)
        residual = max(np.abs(constraint_residual(model, q, constraints)).max() for q in tr.q)
        assert residual < 1e-5, options
        assert abs(tr.energy[-1] - tr.energy[0]) < 1e-4 * np.abs(tr.energy).max() + 1e-6


def test_constraint_input_errors():
    model = dl.planar_chain(2)
    with pytest.raises(ValueError, match="two different bodies"):
        LoopConstraint(1, 1)
    with pytest.raises(ValueError, match="body_b must be a body index or -1"):
        LoopConstraint(1, -2)
    with pytest.raises(ValueError, match=r"point_a must have shape \(3,\)"):
        LoopConstraint(1, -1, point_a=[0, 0])
    with pytest.raises(ValueError, match=r"linear_axes must have shape \(k, 3\)"):
        LoopConstraint(1, -1, linear_axes=[1.0, 0.0])
    with pytest.raises(ValueError, match="at least one linear or angular axis"):
        LoopConstraint(1, -1, linear_axes=np.zeros((0, 3)))
    with pytest.raises(ValueError, match="constraint body 4 does not exist"):
        constraint_jacobian(model, [0, 0], [LoopConstraint(4, -1)])
    with pytest.raises(ValueError, match="non-empty list"):
        constraint_jacobian(model, [0, 0], [])
    with pytest.raises(ValueError, match="minimize must be"):
        constrained_inverse_dynamics(model, [0, 0], [0, 0], [0, 0], [LoopConstraint(1, -1)], [True, True], minimize="x")
    with pytest.raises(ValueError, match="actuated must hold one flag per joint"):
        constrained_inverse_dynamics(model, [0, 0], [0, 0], [0, 0], [LoopConstraint(1, -1)], [True])
    far = LoopConstraint(1, -1, point_a=[1.0, 0, 0], point_b=[10.0, 0, 0], linear_axes=PLANAR_POINT_AXES)
    with pytest.raises(ValueError, match="loop may be unable to close"):
        project_configuration(model, [0.0, 0.0], [far], max_iterations=10)
