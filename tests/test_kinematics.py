"""Kinematics: Jacobians and accelerations against differentiation, markers against exact calculus,
and Alexiou's chain recursion re-implemented independently."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact, random_state


def body_poses(model, q):
    kin = dl.forward_kinematics(model, q)
    return [dl.homogeneous(kin.R[i], kin.p[i]) for i in range(model.n_bodies)]


def test_jacobians_equal_finite_differences_of_forward_kinematics(tree, rng):
    q, qd, _ = random_state(tree, rng)
    h = 1e-6
    plus = body_poses(tree, dl.integrate(tree, q, qd, h))
    minus = body_poses(tree, dl.integrate(tree, q, qd, -h))
    kin = dl.forward_kinematics(tree, q, qd)
    for i, T in enumerate(body_poses(tree, q)):
        dT = (plus[i] - minus[i]) / (2 * h)
        v_world = dl.vee(dT @ dl.homogeneous_inverse(T))
        assert_close(dl.body_jacobian(tree, q, i) @ qd, v_world, rtol=1e-7)
        assert_close(kin.v[i], v_world, rtol=1e-7)
        v_local = dl.vee(dl.homogeneous_inverse(T) @ dT)
        assert_close(dl.body_jacobian(tree, q, i, frame="local") @ qd, v_local, rtol=1e-7)


def test_point_jacobian_equals_finite_differences(tree, rng):
    q, qd, _ = random_state(tree, rng)
    point, body, h = rng.normal(size=3), tree.n_bodies - 1, 1e-6

    def position(q_):
        return dl.marker_motion(dl.forward_kinematics(tree, q_), body, point)[0]

    x_dot = (position(dl.integrate(tree, q, qd, h)) - position(dl.integrate(tree, q, qd, -h))) / (2 * h)
    assert_close(dl.point_jacobian(tree, q, body, point) @ qd, x_dot, rtol=1e-7)
    _, velocity, _ = dl.marker_motion(dl.forward_kinematics(tree, q, qd), body, point)
    assert_close(velocity, x_dot, rtol=1e-7)


def test_accelerations_are_time_derivatives_of_twists(tree, rng):
    """a_i = d/dt v_i along a motion with joint velocity qd and acceleration qdd."""
    q, qd, qdd = random_state(tree, rng)
    h = 1e-5

    def twists(t):
        return dl.forward_kinematics(tree, dl.integrate(tree, q, qd, t), qd + t * qdd).v

    kin = dl.forward_kinematics(tree, q, qd, qdd)
    assert_close(kin.a, (twists(h) - twists(-h)) / (2 * h), rtol=1e-6)


def test_marker_velocity_and_acceleration_by_finite_differences(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    point, body, h = rng.normal(size=3), tree.n_bodies - 1, 1e-5

    def marker(t):
        return dl.marker_motion(dl.forward_kinematics(tree, dl.integrate(tree, q, qd, t), qd + t * qdd), body, point)

    x, xd, xdd = dl.marker_motion(dl.forward_kinematics(tree, q, qd, qdd), body, point)
    assert_close(xdd, (marker(h)[1] - marker(-h)[1]) / (2 * h), rtol=1e-6)
    u, ud, udd = dl.direction_marker_motion(dl.forward_kinematics(tree, q, qd, qdd), body, point)

    def direction(t):
        kin = dl.forward_kinematics(tree, dl.integrate(tree, q, qd, t), qd + t * qdd)
        return dl.direction_marker_motion(kin, body, point)

    assert_close(udd, (direction(h)[1] - direction(-h)[1]) / (2 * h), rtol=1e-6)


def mixed_chain():
    """Revolute about z, then a prismatic slider along the rotating x axis, a helical joint,
    a 3-dof translational joint and a spherical joint, with offsets between them."""
    joints = [dl.revolute([0, 0, 1]), dl.prismatic([1, 0, 0]), dl.helical([0, 1, 0], pitch=sympy.Rational(1, 5)),
              dl.translational(), dl.spherical()]
    offset = dl.homogeneous(dl.rotation_about_axis([1, 0, 0], sympy.pi / 2), [1, 0, 0])
    placements = [np.eye(4, dtype=int)] + [offset] * 4
    inertia = dl.spatial_inertia(1, [0, 0, 0], np.eye(3, dtype=int))
    return dl.Model(tuple(range(-1, 4)), tuple(joints), np.array(placements), np.array([inertia] * 5))


def test_marker_accelerations_equal_exact_differentiation():
    """Every Coriolis and centripetal term of the Joint Motion note eqs. 11-19, by sympy."""
    t = sympy.Symbol("t", real=True)
    angles = [sympy.Function(f"q{k}")(t) for k in range(4)]
    x, y, z = (sympy.Function(n)(t) for n in "xyz")
    psi = sympy.Function("psi")(t)
    # the spherical joint turns about its z axis by 2 psi(t): quaternion (0, 0, sin psi, cos psi),
    # body angular velocity (0, 0, 2 psi')
    q = np.array([angles[0], angles[1], angles[2], x, y, z, 0, 0, sympy.sin(psi), sympy.cos(psi)], dtype=object)
    rates = [sympy.diff(e, t) for e in [angles[0], angles[1], angles[2], x, y, z]]
    qd = np.array(rates + [0, 0, 2 * sympy.diff(psi, t)], dtype=object)
    qdd = np.array([sympy.diff(e, t) for e in qd], dtype=object)
    model = mixed_chain()
    kin = dl.forward_kinematics(model, q, qd, qdd)
    point = np.array([sympy.Rational(1, 2), -1, 2], dtype=object)
    for body in range(model.n_bodies):
        position, velocity, acceleration = dl.marker_motion(kin, body, point)
        assert_exact(velocity, [sympy.diff(e, t) for e in position])
        assert_exact(acceleration, [sympy.diff(e, t, 2) for e in position])
        u, u_dot, u_ddot = dl.direction_marker_motion(kin, body, point)
        assert_exact(u_ddot, [sympy.diff(e, t, 2) for e in u])


def test_eq_11_prismatic_joint_acceleration_with_its_coriolis_term(rng):
    """Joint Motion eq. 11, JT = 1: the slider's origin accelerates by
    eta_p'' + alpha_p x d + g delta'' + w_p x (w_p x d) + 2 w_p x g delta'."""
    model = dl.random_tree(2, 11, kinds=["revolute"])
    joints = (model.joints[0], dl.prismatic(rng.normal(size=3)))
    model = dl.Model(model.parent, joints, model.placements, model.inertias)
    q, qd, qdd = random_state(model, rng)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    eta_p, eta_p_dot, eta_p_ddot = dl.marker_motion(kin, 0, np.zeros(3))
    w_p, alpha_p = kin.v[0, 3:], kin.a[0, 3:]
    g = kin.R[1] @ model.joints[1].axis  # slider axis, world coordinates
    d = kin.p[1] - eta_p  # includes the slider displacement, as d-bar of eq. 8
    coriolis = 2 * np.cross(w_p, g) * qd[1]
    eq_11 = eta_p_ddot + np.cross(alpha_p, d) + g * qdd[1] + np.cross(w_p, np.cross(w_p, d)) + coriolis
    assert_close(dl.marker_motion(kin, 1, np.zeros(3))[2], eq_11)
    # eq. 8 with the rate (not the displacement) of the slider, d-bar measured from the parent joint
    eq_8 = eta_p_dot + np.cross(w_p, d) + g * qd[1]
    assert_close(dl.marker_motion(kin, 1, np.zeros(3))[1], eq_8)


def alexiou_recursion(masses, com_offsets, lengths, axes, q):
    """Alexiou (2023) eqs. 1-6 written out independently (with the corrected length index)."""
    R, r, s, com = np.eye(3), np.zeros(3), [], []
    for i in range(len(masses)):
        if i > 0:
            r = r + R @ np.array([lengths[i - 1], 0, 0])  # eq. 2, joint i located by the previous link
        z = axes[i] / np.linalg.norm(axes[i])
        R = R @ dl.rotation_about_axis(z, q[i])  # eq. 1
        com.append(r + R @ np.array([com_offsets[i], 0, 0]))  # eq. 3
        s.append(np.concatenate([np.cross(r, R @ z), R @ z]))  # eq. 6, z_i in world coordinates
    return np.array(s), np.array(com)


def test_serial_chain_matches_an_independent_implementation_of_note_000(rng):
    n = 5
    masses, com_offsets, lengths = rng.uniform(0.5, 2, n), rng.uniform(0, 1, n), rng.uniform(0.5, 1.5, n)
    axes = rng.normal(size=(n, 3))
    model = dl.serial_chain(masses, com_offsets, lengths, [np.eye(3) * 0.1] * n, axes=axes)
    q, qd = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n)
    s, com = alexiou_recursion(masses, com_offsets, lengths, axes, q)
    kin = dl.forward_kinematics(model, q, qd)
    assert_close(np.array([si[:, 0] for si in kin.s]), s)
    assert_close(dl.centres_of_mass(model, kin), com)
    assert_close(kin.v, np.cumsum(s * qd[:, None], axis=0))  # eq. 7


def test_planar_chain_twists_are_the_2d_formulas(rng):
    model = dl.planar_chain(4, length=0.7)
    q, qd, qdd = random_state(model, rng)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    for i in range(4):
        x, y, _ = kin.p[i]
        assert_close(dl.planar_components(kin.s[i][:, 0]), [y, -x, 1.0])  # r x z for r in the plane
        assert np.all(np.delete(kin.s[i][:, 0], [0, 1, 5]) == 0)
        assert np.all(np.abs(np.delete(kin.v[i], [0, 1, 5])) == 0)
        assert np.all(np.abs(np.delete(kin.a[i], [0, 1, 5])) == 0)
    # planar acceleration recursion a_i = a_{i-1} + s_i qdd_i + v_i x s_i qd_i in 3 components
    a = np.zeros(3)
    for i in range(4):
        s2, v2 = dl.planar_components(kin.s[i][:, 0]), dl.planar_components(kin.v[i])
        w = v2[2]
        v_cross_s = np.array([-w * s2[1] + v2[1] * s2[2], w * s2[0] - v2[0] * s2[2], 0.0]) * qd[i]
        a = a + s2 * qdd[i] + v_cross_s
        assert_close(dl.planar_components(kin.a[i]), a)


def test_note_000_example_kinematics_are_exact():
    """Alexiou (2023) eq. 31: s_1, s_2, v_1, v_2 of the horizontal two-link chain."""
    model = dl.alexiou_two_link()
    L = sympy.Symbol("L", positive=True)
    w1, w2 = sympy.symbols("thetadot1 thetadot2")
    kin = dl.forward_kinematics(model, [0, 0], np.array([w1, w2], dtype=object))
    assert_exact(dl.planar_components(kin.s[0][:, 0]), [0, 0, 1])
    assert_exact(dl.planar_components(kin.s[1][:, 0]), [0, -L, 1])
    assert_exact(dl.planar_components(kin.v[0]), [0, 0, w1])
    assert_exact(dl.planar_components(kin.v[1]), [0, -L * w2, w1 + w2])


def test_symbolic_and_numeric_kinematics_agree(rng):
    model = dl.random_tree(4, 5, kinds=["revolute", "prismatic", "helical"])
    q = sympy.symbols("q0:4", real=True)
    kin = dl.forward_kinematics(model, np.array(q, dtype=object))
    values = rng.uniform(-1, 1, 4)
    subs = dict(zip(q, values))
    numeric = dl.forward_kinematics(model, values)
    evaluated = np.array([[float(sympy.N(e.subs(subs))) for e in row] for row in kin.p])
    assert_close(evaluated, numeric.p, rtol=1e-9)


def test_kinematics_input_errors():
    model = dl.planar_chain(2)
    with pytest.raises(ValueError, match="qdd needs qd"):
        dl.forward_kinematics(model, [0, 0], None, [0, 0])
    with pytest.raises(ValueError, match=r"body must be an index in \[0, 2\)"):
        dl.body_jacobian(model, [0, 0], 2)
    with pytest.raises(ValueError, match="frame must be 'world' or 'local'"):
        dl.body_jacobian(model, [0, 0], 1, frame="body")
    with pytest.raises(ValueError, match=r"point must have shape \(3,\)"):
        dl.marker_motion(dl.forward_kinematics(model, [0, 0]), 1, [1, 2])
