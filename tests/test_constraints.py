"""Loop constraints and constrained dynamics (Kim 2012 §3) on the four-bar, the piston-crank and random trees."""

import numpy as np
import pytest
import sympy as sp

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
    LoopConstraint,
    constraint_bias,
    constraint_jacobian,
    constraint_residual,
    dependent_motion,
    project_configuration,
)
from dynlib.multibody.mechanisms import body_outlines, four_bar, piston_crank, prescribed_motion

from conftest import assert_close, assert_exact, random_state

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
    with pytest.raises(ValueError, match=r"passive joints cannot follow these accelerations: .* the passive columns "
                                         r"A_p of the constraint Jacobian have rank 2 for 3 passive coordinates"):
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


def test_projection_holds_fixed_coordinates_exactly(mechanism, rng):
    model, constraints, q0 = mechanism
    for _ in range(5):
        nudged = q0 + 0.2 * rng.normal(size=model.nq)
        q = project_configuration(model, nudged, constraints, fixed=[0])
        assert q[0] == nudged[0]
        assert np.abs(constraint_residual(model, q, constraints)).max() < 1e-11


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


def test_four_bar_constraint_by_hand_exactly():
    """The loop equations of the four-bar written by hand, and their Jacobian, equal the library's (sympy)."""
    model, constraints, _ = four_bar(lengths=(2.0, 0.75, 2.25, 1.5))
    t = sp.symbols("theta1:4", real=True)
    q = np.array(t, dtype=object)
    a, b, c, g = sp.Rational(3, 4), sp.Rational(9, 4), sp.Rational(3, 2), 2
    phi = sp.Matrix([a * sp.cos(t[0]) + b * sp.cos(t[0] + t[1]) - g - c * sp.cos(t[2]),
                     a * sp.sin(t[0]) + b * sp.sin(t[0] + t[1]) - c * sp.sin(t[2])])
    assert_exact(constraint_residual(model, q, constraints), np.array(phi, dtype=object).ravel())
    assert_exact(constraint_jacobian(model, q, constraints), np.array(phi.jacobian(t), dtype=object))
    td = sp.symbols("thetadot1:4", real=True)
    rate = phi.jacobian(t) * sp.Matrix(td)
    bias = rate.jacobian(t) * sp.Matrix(td)  # d(A qd)/dt at qdd = 0
    library = constraint_bias(model, q, np.array(td, dtype=object), constraints)
    assert_exact(library, np.array(bias, dtype=object).ravel())


def test_constrained_forward_dynamics_solves_the_kkt_system(mechanism, rng):
    """[H A^T; A 0][qdd; -lam] = [tau - C; -dA/dt qd], solved densely, with and without Baumgarte terms."""
    model, constraints, q0 = mechanism
    q = dl.integrate(model, q0, 1e-3 * rng.normal(size=model.nv))  # slightly off the constraints
    qd, tau = rng.normal(size=model.nv), rng.normal(size=model.nv)
    A = constraint_jacobian(model, q, constraints)
    H, C = dl.crba(model, q), dl.bias_forces(model, q, qd)
    for gains in (None, (3.0, 4.0)):
        c = -constraint_bias(model, q, qd, constraints)
        if gains:
            c -= 2 * gains[0] * A @ qd + gains[1] ** 2 * constraint_residual(model, q, constraints)
        kkt = np.block([[H, A.T], [A, np.zeros((2, 2))]])
        x = np.linalg.solve(kkt, np.r_[tau - C, c])
        qdd, lam = constrained_forward_dynamics(model, q, qd, tau, constraints, baumgarte=gains)
        assert_close(qdd, x[:3], rtol=1e-9)
        assert_close(lam, -x[3:], rtol=1e-9)


def test_stacked_form_equals_aba_on_random_trees(tree, rng):
    q, qd, _ = random_state(tree, rng)
    tau, f_ext = rng.normal(size=tree.nv), rng.normal(size=(tree.n_bodies, 6))
    res = stacked_forward_dynamics(tree, q, qd, tau, f_ext)
    assert_close(res.qdd, dl.aba(tree, q, qd, tau, f_ext), rtol=1e-8)
    kin = dl.forward_kinematics(tree, q, qd, res.qdd)
    assert_close(res.a, kin.a, rtol=1e-8)
    # each body's Newton-Euler equation with the joint wrenches, and s_i^T f_i = tau_i
    I = dl.world_inertias(tree, kin)
    net = res.f + f_ext + dl.gravity_wrenches(tree, kin)
    for i in range(tree.n_bodies):
        for j in tree.children[i]:
            net[i] -= res.f[j]
        assert_close(net[i], I[i] @ res.a[i] + dl.cross_force(kin.v[i], I[i] @ kin.v[i]), rtol=1e-8,
                     scale=np.abs(res.f).max())
        assert_close(kin.s[i].T @ res.f[i], tau[tree.v_slices[i]], rtol=1e-8, scale=np.abs(res.f).max())
    K, rhs = stacked_system(tree, q, qd, tau, f_ext)
    assert K.shape == (12 * tree.n_bodies + tree.nv,) * 2 and len(rhs) == K.shape[0]
    assert_close(K.toarray(), K.T.toarray(), rtol=1e-12)  # symmetric


def test_stacked_joint_wrenches_agree_with_pinocchio(rng):
    import pinocchio_bridge as pin_bridge

    pin = pin_bridge.pin
    model = dl.random_tree(7, 11, kinds=["revolute", "prismatic", "spherical", "helical", "free"], branching=0.5)
    pm = pin_bridge.to_pinocchio(model)
    data = pm.createData()
    q, qd, _ = random_state(model, rng)
    tau = rng.normal(size=model.nv)
    res = stacked_forward_dynamics(model, q, qd, tau)
    assert_close(res.qdd, pin.aba(pm, data, q, qd, tau), rtol=1e-9)
    pin.rnea(pm, data, q, qd, res.qdd)  # fills data.f: joint wrenches in each joint's child frame
    kin = dl.forward_kinematics(model, q)
    for i in range(model.n_bodies):
        f_world = dl.force_transform(kin.R[i], kin.p[i]) @ data.f[i + 1].vector
        assert_close(res.f[i], f_world, rtol=1e-8, scale=np.abs(res.f).max())


def test_stacked_form_with_loops_equals_constrained_forward_dynamics(mechanism, rng):
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=model.nv), constraints)
    tau = rng.normal(size=model.nv)
    res = stacked_forward_dynamics(model, q0, qd, tau, constraints=constraints)
    qdd, lam = constrained_forward_dynamics(model, q0, qd, tau, constraints)
    assert_close(res.qdd, qdd, rtol=1e-9)
    assert_close(res.lam, lam, rtol=1e-9)


def test_piston_pin_force_by_newton(rng):
    """The multiplier is the pin force on the rod; the piston's own Newton equation along x gives it back."""
    model, constraints, q0 = piston_crank()
    qd = project_velocity(model, q0, rng.normal(size=3), constraints)
    tau = np.array([1.5, 0.0, 0.4])
    qdd, lam = constrained_forward_dynamics(model, q0, qd, tau, constraints)
    m_piston = model.mass[2]
    # lam is the force on body a (the rod) at the pin; the piston feels -lam: m xdd = -lam_x + tau_piston
    assert_close(m_piston * qdd[2], -lam[0] + tau[2], rtol=1e-9)
    # the guide carries the rest: vertical joint force = m g - (-lam_y) (piston at rest vertically)
    res = stacked_forward_dynamics(model, q0, qd, tau, constraints=constraints)
    assert_close(res.f[2, 1], -m_piston * model.gravity[1] + lam[1], rtol=1e-9)


# --- singular configurations and dependent constraints ------------------------------------------


def stretched_truss():
    """Two links whose tip is pinned to the world at full reach, (2, 0): a structure at its singular
    configuration.  A = [[0, 0], [2, 1]] has rank 1: the tip cannot move along x to first order, and
    the middle joint can sag (qd proportional to (1, -2)) without moving the tip."""
    chain = dl.planar_chain(2)
    pin = LoopConstraint(1, -1, point_a=[1.0, 0, 0], point_b=[2.0, 0, 0], linear_axes=PLANAR_POINT_AXES)
    return chain, [pin], np.zeros(2)


DEPENDENT = (r"constraint Jacobian A has rank 1, expected 2 \(one per constraint row; smallest singular value below "
             r"1e-10 of the largest\): the constraints are dependent")


def test_a_singular_configuration_is_explained_where_it_must_be_solved():
    model, constraints, q = stretched_truss()
    A = constraint_jacobian(model, q, constraints)
    assert np.linalg.matrix_rank(A) == 1
    # at rest it sags under gravity: the dependent row asks for nothing, and the least-norm multipliers do
    qdd, lam = constrained_forward_dynamics(model, q, np.zeros(2), np.zeros(2), constraints)
    assert_close(A @ qdd, np.zeros(2), scale=np.abs(qdd).max())
    H, C = dl.crba(model, q), dl.bias_forces(model, q, np.zeros(2))
    assert_close(H @ qdd + C, A.T @ lam, rtol=1e-12)
    assert qdd[0] < 0 and qdd[1] == pytest.approx(-2 * qdd[0]) and lam[0] == 0.0
    # sagging with speed, the pinned tip would have to accelerate along the chain: no finite pin force
    with pytest.raises(ValueError, match=DEPENDENT + ".*conflicting accelerations"):
        constrained_forward_dynamics(model, q, np.array([1.0, -2.0]), np.zeros(2), constraints)
    # coordinate partitioning: with no freedom left, the dependent block is A itself
    with pytest.raises(ValueError, match=DEPENDENT + ".*so the dependent rates are not determined"):
        dependent_motion(model, q, constraints, [], [])


def test_a_dead_point_of_the_input_is_explained():
    """The four-bar driven by its rocker when crank and coupler are in line: A has full rank, A_d does not."""
    model, constraints, q0 = four_bar()
    q = project_configuration(model, np.array([q0[0], 0.0, q0[2]]), constraints, fixed=[1])  # coupler in line
    assert abs(q[1]) < 1e-12
    with pytest.raises(ValueError, match=r"dependent block A_d of the constraint Jacobian \(columns \[0, 1\]\) has "
                                         r"rank 1, expected 2 .*: the independent coordinates \[2\] cannot drive"):
        dependent_motion(model, q, constraints, [2], [1.0], [0.0])
    qd, _ = dependent_motion(model, q, constraints, [0], [1.0], [0.0])  # the crank can: the rocker stops there
    assert abs(qd[2]) < 1e-12


def test_redundant_constraints_give_the_same_motion_and_least_norm_multipliers(mechanism, rng):
    model, constraints, q0 = mechanism
    qd = project_velocity(model, q0, rng.normal(size=3), constraints)
    tau = rng.normal(size=3)
    qdd, lam = constrained_forward_dynamics(model, q0, qd, tau, constraints)
    qdd_twice, lam_twice = constrained_forward_dynamics(model, q0, qd, tau, constraints * 2)
    assert_close(qdd_twice, qdd, rtol=1e-9)
    assert_close(lam_twice, np.concatenate([lam, lam]) / 2, rtol=1e-9)  # the load shared equally


def test_stacked_form_refuses_dependent_loops_and_massless_subtrees():
    model, constraints, q0 = four_bar()
    with pytest.raises(ValueError, match=r"loop-constraint Jacobian A has rank 2, expected 4 .*the stacked matrix "
                                         r"needs independent loop constraints"):
        stacked_forward_dynamics(model, q0, np.zeros(3), np.zeros(3), constraints=constraints * 2)
    truss, pin, q = stretched_truss()
    with pytest.raises(ValueError, match="loop-constraint Jacobian A has rank 1, expected 2"):
        stacked_forward_dynamics(truss, q, np.zeros(2), np.zeros(2), constraints=pin)
    chain = dl.planar_chain(2)
    inertias = np.stack([chain.inertias[0], np.zeros((6, 6))])
    massless = dl.Model(chain.parent, chain.joints, chain.placements, inertias)
    with pytest.raises(ValueError, match=r"stacked matrix is singular; the mass matrix H has rank 1, expected 2 "
                                         r"\(smallest eigenvalue below 1e-12 of the largest\): a joint moves"):
        stacked_forward_dynamics(massless, np.zeros(2), np.zeros(2), np.zeros(2))


def test_dependent_motion_satisfies_the_constraints(mechanism, rng):
    model, constraints, q0 = mechanism
    qd, qdd = dependent_motion(model, q0, constraints, [0], [1.3], [-0.7])
    assert qd[0] == 1.3 and qdd[0] == -0.7
    A = constraint_jacobian(model, q0, constraints)
    assert_close(A @ qd, np.zeros(2), scale=np.abs(A).max() * np.abs(qd).max())
    assert_close(A @ qdd + constraint_bias(model, q0, qd, constraints), np.zeros(2), scale=np.abs(A @ qdd).max())
    qd_only, none = dependent_motion(model, q0, constraints, [0], [1.3])
    assert none is None and np.array_equal(qd_only, qd)
    with pytest.raises(ValueError, match="independent must name 1 distinct velocity indices"):
        dependent_motion(model, q0, constraints, [0, 1], [1.0, 2.0])


def test_prescribed_piston_crank_matches_the_closed_form():
    """Slider position, velocity and acceleration against the classical slider-crank formulas."""
    r, l = 0.5, 1.5
    theta = np.linspace(0, 2 * np.pi, 25)
    w, alpha = 3.0, 2.0
    q, qd, qdd = prescribed_motion(piston_crank(crank=r, rod=l), theta, np.full(25, w), np.full(25, alpha))
    root = np.sqrt(l**2 - (r * np.sin(theta)) ** 2)
    x = r * np.cos(theta) + root
    dx = -r * np.sin(theta) * (1 + r * np.cos(theta) / root)  # dx / dtheta
    ddx = -r * np.cos(theta) - r**2 * (np.cos(2 * theta) * root**2 + (r * np.sin(theta) * np.cos(theta)) ** 2) / root**3
    assert_close(q[:, 2], x, rtol=1e-10)
    assert_close(qd[:, 2], dx * w, rtol=1e-9)
    assert_close(qdd[:, 2], ddx * w**2 + dx * alpha, rtol=1e-9)


def test_prescribed_motion_input_errors():
    with pytest.raises(ValueError, match="one length"):
        prescribed_motion(four_bar(), [0.1, 0.2], [1.0], [0.0, 0.0])
    ball = np.array([dl.spatial_inertia(1.0, [0, 0, 0], np.eye(3))])
    free = dl.Model((-1,), (dl.spherical(),), np.array([np.eye(4)]), ball)
    with pytest.raises(ValueError, match="nq = nv"):
        prescribed_motion((free, [LoopConstraint(0, -1)], np.array([0, 0, 0, 1.0])), [0.0], [0.0], [0.0])


def test_body_outlines_close_the_loop(mechanism):
    model, constraints, q0 = mechanism
    outlines = body_outlines(model, q0, constraints)
    kin = dl.forward_kinematics(model, q0)
    assert len(outlines) == model.n_bodies
    for i, points in enumerate(outlines):
        assert_close(points[0], kin.p[i], scale=1.0)
    assert_close(outlines[1][-1], outlines[2][-1], scale=1.0)  # the pin: the rod/coupler end meets body 2
    assert_close(outlines[0][1], kin.p[1], scale=1.0)  # the crank's outboard joint carries body 1
