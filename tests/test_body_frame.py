"""Kim's body-frame recursions (Tables 2 and 3) against the world-frame algorithms, Pinocchio and sympy."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl
from dynlib.algorithms.body_frame import aba_body_frame, rnea_body_frame

from conftest import assert_close, assert_exact, random_state


def body_frame_data(model, q, rng):
    """World-to-body motion transforms X_i0 of every body, and random wrenches in both frames."""
    kin = dl.forward_kinematics(model, q)
    X_0i = [dl.motion_transform(kin.R[i], kin.p[i]) for i in range(model.n_bodies)]
    f_world = rng.normal(size=(model.n_bodies, 6))
    f_body = np.array([X.T @ f for X, f in zip(X_0i, f_world)])  # X*_i0 = X_0i^T
    return X_0i, f_world, f_body


def test_rnea_body_frame_equals_rnea(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    _, f_world, f_body = body_frame_data(tree, q, rng)
    assert_close(rnea_body_frame(tree, q, qd, qdd, f_body).tau, dl.rnea(tree, q, qd, qdd, f_world), rtol=1e-9)


def test_body_frame_quantities_are_world_quantities_seen_from_the_body(tree, rng):
    """V_i = X_i0 v_i, dV_i = X_i0 (a_i - [g; 0]), F_i = X*_i0 f_i (f_i: the world joint force)."""
    q, qd, qdd = random_state(tree, rng)
    X_0i, f_world, f_body = body_frame_data(tree, q, rng)
    res = rnea_body_frame(tree, q, qd, qdd, f_body)
    kin = dl.forward_kinematics(tree, q, qd, qdd)
    a = kin.a - dl.gravity_acceleration(tree)  # the base accelerates upwards at -g
    I = dl.world_inertias(tree, kin)
    body_force = [I[j] @ a[j] + dl.crf(kin.v[j]) @ I[j] @ kin.v[j] - f_world[j] for j in range(tree.n_bodies)]
    for i, X in enumerate(X_0i):
        X_i0 = dl.inverse_transform(X)
        assert_close(res.V[i], X_i0 @ kin.v[i], rtol=1e-10, scale=np.abs(kin.v).max())
        assert_close(res.Vdot[i], X_i0 @ a[i], rtol=1e-10, scale=np.abs(a).max())
        f_joint = sum(body_force[j] for j in tree.subtree(i))
        assert_close(res.F[i], X.T @ f_joint, rtol=1e-9, scale=np.abs(f_joint).max())


def test_aba_body_frame_equals_aba_and_inverts_rnea_body_frame(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    _, f_world, f_body = body_frame_data(tree, q, rng)
    tau = rnea_body_frame(tree, q, qd, qdd, f_body).tau
    res = aba_body_frame(tree, q, qd, tau, f_body)
    assert_close(res.qdd, qdd, rtol=1e-8)
    assert_close(res.qdd, dl.aba(tree, q, qd, tau, f_world), rtol=1e-9)
    assert_close(res.F, rnea_body_frame(tree, q, qd, qdd, f_body).F, rtol=1e-8)


def test_articulated_inertias_in_body_and_world_frames_are_congruent(tree, rng):
    """I_hat_i = X_0i^T IA_i X_0i and B_hat_i = X_0i^T pA_i: one object, two coordinate systems."""
    q, qd, tau = random_state(tree, rng)
    X_0i, f_world, f_body = body_frame_data(tree, q, rng)
    res = aba_body_frame(tree, q, qd, tau, f_body)
    art = dl.articulated_bodies(tree, q, qd, tau, f_world)
    for i, X in enumerate(X_0i):
        assert_close(res.I_hat[i], X.T @ art.IA[i] @ X, rtol=1e-10)
        assert_close(res.B_hat[i], X.T @ art.pA[i], rtol=1e-9)
        assert_close(res.I_hat[i], res.I_hat[i].T, rtol=1e-12)


def test_body_frame_algorithms_are_exact_with_symbols():
    m, L, g = sp.symbols("m L g", positive=True)
    t2, w1, w2, a1, a2, Q = sp.symbols("theta2 w1 w2 a1 a2 Q", real=True)
    model = dl.alexiou_two_link(m, L, gravity=(0, -g, 0))
    q, qd = [sp.Rational(1, 3), t2], [w1, w2]
    assert_exact(rnea_body_frame(model, q, qd, [a1, a2]).tau, dl.rnea(model, q, qd, [a1, a2]))
    q_pi3 = [0, sp.pi / 3]
    difference = aba_body_frame(model, q_pi3, qd, [Q, 0]).qdd - dl.aba(model, q_pi3, qd, [Q, 0])
    assert_exact([sp.numer(sp.together(x)) for x in difference], [0, 0])


def test_body_frame_input_errors(rng):
    model = dl.planar_chain(2)
    z = np.zeros(2)
    with pytest.raises(ValueError, match=r"f_ext must have shape \(n_bodies, 6\) = \(2, 6\)"):
        rnea_body_frame(model, z, z, z, f_ext=np.zeros(6))
    with pytest.raises(ValueError, match=r"tau must have shape"):
        aba_body_frame(model, z, z, np.zeros(3))
    inertias = model.inertias.copy()
    inertias[1] = 0.0
    massless_tip = dl.Model(model.parent, model.joints, model.placements, inertias)
    with pytest.raises(ValueError, match="S\\^T I_hat S of joint 1"):
        aba_body_frame(massless_tip, z, z, z)


KINDS = ["revolute", "prismatic", "spherical", "helical", "translational", "free"]


@pytest.mark.parametrize("seed, n, branching", [(0, 1, 0.0), (1, 5, 0.0), (2, 9, 0.5), (3, 12, 0.9)])
def test_body_frame_algorithms_agree_with_pinocchio(seed, n, branching):
    """Pinocchio works in the same body frames (its LOCAL convention), linear part first."""
    from pinocchio_bridge import pin, to_pinocchio

    model = dl.random_tree(n, seed, kinds=KINDS, branching=branching)
    pm = to_pinocchio(model)
    data = pm.createData()
    rng = np.random.default_rng(seed)
    q, qd, qdd = random_state(model, rng)
    inverse = rnea_body_frame(model, q, qd, qdd)
    assert_close(inverse.tau, pin.rnea(pm, data, q, qd, qdd), rtol=1e-9)
    for i in range(n):
        assert_close(inverse.V[i], data.v[i + 1].vector, rtol=1e-10)
        assert_close(inverse.F[i], data.f[i + 1].vector, rtol=1e-9)
    forward = aba_body_frame(model, q, qd, inverse.tau)
    assert_close(forward.qdd, pin.aba(pm, data, q, qd, inverse.tau, pin.Convention.LOCAL), rtol=1e-8)
    for i in range(n):  # Pinocchio keeps the full I_hat at roots and the passed-on Pi elsewhere
        S, I_hat = model.joints[i].S, forward.I_hat[i]
        Pi = I_hat - I_hat @ S @ np.linalg.solve(S.T @ I_hat @ S, S.T @ I_hat)
        assert_close(data.Yaba[i + 1], I_hat if model.parent[i] < 0 else Pi, rtol=1e-9,
                     scale=np.abs(I_hat).max())  # Pi of a free joint is zero
