"""Articulated inertia: what it is (a floating subtree's response), its bounds, its projective form,
its closed form for the planar two-link, Pinocchio's values, and hybrid dynamics against Kim eq. 34."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import assert_close, assert_exact, random_state

KINDS = ["revolute", "prismatic", "spherical", "helical", "translational"]


def passed_inertia(IA, s):
    """What joint s passes to its parent: IA - IA s (s^T IA s)^-1 s^T IA."""
    return IA - IA @ s @ np.linalg.solve(s.T @ IA @ s, s.T @ IA)


def test_articulated_inertia_of_a_floating_root_is_the_inverse_of_J_Hinv_JT(rng):
    """With a free joint at the root, a wrench on the root gives it the acceleration IA^-1 f."""
    for seed in range(4):
        tree = dl.random_tree(6, seed, kinds=KINDS, branching=0.5)
        model = dl.Model(tree.parent, (dl.free(),) + tree.joints[1:], tree.placements, tree.inertias)
        q = dl.random_configuration(model, rng)
        IA = dl.articulated_bodies(model, q, np.zeros(model.nv), np.zeros(model.nv)).IA[0]
        J = dl.body_jacobian(model, q, 0)
        assert_close(IA @ J @ np.linalg.solve(dl.crba(model, q), J.T), np.eye(6), rtol=1e-9)
        # and the same by pushing: zero gravity and velocity, a wrench f on the root only
        still = dl.Model(model.parent, model.joints, model.placements, model.inertias, gravity=(0, 0, 0))
        f_ext = np.zeros((model.n_bodies, 6))
        f_ext[0] = rng.normal(size=6)
        zero = np.zeros(model.nv)
        a_root = dl.forward_kinematics(still, q, zero, dl.aba(still, q, zero, zero, f_ext)).a[0]
        assert_close(IA @ a_root, f_ext[0], rtol=1e-9)


def test_articulated_inertia_lies_between_the_body_and_the_locked_subtree(tree, rng):
    """I_i <= IA_i <= sum of the subtree's inertias, in the positive semi-definite order."""
    q, qd, tau = random_state(tree, rng)
    kin = dl.forward_kinematics(tree, q)
    I = dl.world_inertias(tree, kin)
    IA = dl.articulated_bodies(tree, q, qd, tau).IA
    for i in range(tree.n_bodies):
        composite = sum(I[j] for j in tree.subtree(i))
        size = np.abs(composite).max()
        assert np.linalg.eigvalsh(IA[i] - I[i]).min() > -1e-10 * size
        assert np.linalg.eigvalsh(composite - IA[i]).min() > -1e-10 * size
        if not tree.children[i]:
            assert_close(IA[i], I[i])


def test_passed_inertia_is_the_reactive_part_of_the_decomposition(rng):
    """IA - IA s D^-1 s^T IA = R (R^T IA^-1 R)^-1 R^T = R U^T IA, of rank 6 - k, and it annihilates s."""
    for seed in range(5):
        chain = dl.random_tree(5, seed, kinds=KINDS, branching=0.0)
        q, qd, tau = random_state(chain, rng)
        art = dl.articulated_bodies(chain, q, qd, tau)
        for i in range(1, chain.n_bodies):
            s, IA = art.s[i], art.IA[i]
            Ia = passed_inertia(IA, s)
            dec = dl.subspace_decomposition(s, IA)
            assert_close(Ia, dec.R @ dec.U.T @ IA, rtol=1e-9)
            assert_close(Ia, dec.R @ np.linalg.solve(dec.R.T @ np.linalg.solve(IA, dec.R), dec.R.T), rtol=1e-9)
            assert_close(Ia @ s, np.zeros_like(s), scale=np.abs(IA).max() * np.abs(s).max())
            assert np.linalg.matrix_rank(Ia, tol=1e-9 * np.abs(Ia).max()) == 6 - s.shape[1]


def test_projected_equations_with_articulated_inertia_give_the_aba_motion(rng):
    """Alexiou (1999) "Recursive Accelerations" and "Recursive Forces": the projected equations of
    a body with IA_i, pA_i in place of I_i, p_i and no outboard force reproduce a_i and f_i."""
    for seed in range(4):
        chain = dl.random_tree(5, seed + 10, kinds=KINDS, branching=0.0)
        q, qd, tau = random_state(chain, rng)
        art = dl.articulated_bodies(chain, q, qd, tau)
        qdd = dl.aba(chain, q, qd, tau)
        a = dl.forward_kinematics(chain, q, qd, qdd).a - dl.gravity_acceleration(chain)
        a_prev = -dl.gravity_acceleration(chain)
        for i in range(chain.n_bodies):
            dec = dl.subspace_decomposition(art.s[i], art.IA[i])
            Q = tau[chain.v_slices[i]]
            args = (dec, art.IA[i], a_prev, art.c[i], Q, art.pA[i], np.zeros(6))
            assert_close(dl.projected_acceleration(*args), a[i], rtol=1e-9)
            assert_close(dl.projected_force(*args), art.IA[i] @ a[i] + art.pA[i], rtol=1e-9)
            a_prev = a[i]


def test_two_link_articulated_inertia_in_closed_form():
    """In the plane, the free second link loads the first like a point at the elbow whose mass is
    m along the link and m/4 across it (the planar blocks; out of the plane the elbow is rigid)."""
    m, L = sp.symbols("m L", positive=True)
    t1, t2 = sp.symbols("theta1 theta2", real=True)
    model = dl.alexiou_two_link(m, L)
    zero = np.zeros(2, dtype=object)
    IA = dl.articulated_bodies(model, [t1, t2], zero, zero).IA
    I = dl.world_inertias(model, dl.forward_kinematics(model, [t1, t2]))
    along = np.array([sp.cos(t1 + t2), sp.sin(t1 + t2)], dtype=object)
    across = np.array([-sp.sin(t1 + t2), sp.cos(t1 + t2)], dtype=object)
    mass_tensor = m * np.outer(along, along) + m / 4 * np.outer(across, across)
    x, y = L * sp.cos(t1), L * sp.sin(t1)                          # the elbow
    B = np.array([[1, 0], [0, 1], [-y, x]], dtype=object)            # a force through the elbow as a planar wrench
    assert_exact(dl.planar_matrix(IA[0] - I[0]), B @ mass_tensor @ B.T)
    assert_exact(IA[1], I[1])


@pytest.mark.parametrize("seed, n, branching", [(0, 1, 0.0), (1, 6, 0.0), (2, 10, 0.6)])
def test_articulated_inertias_agree_with_pinocchio(seed, n, branching):
    """Pinocchio's world-convention ABA keeps IA at roots and the passed-on inertia elsewhere."""
    from pinocchio_bridge import pin, to_pinocchio

    model = dl.random_tree(n, seed, kinds=KINDS + ["free"], branching=branching)
    pm = to_pinocchio(model)
    data = pm.createData()
    q, qd, tau = random_state(model, np.random.default_rng(seed))
    art = dl.articulated_bodies(model, q, qd, tau)
    assert_close(pin.aba(pm, data, q, qd, tau, pin.Convention.WORLD), dl.aba(model, q, qd, tau), rtol=1e-8)
    for i in range(n):
        expected = art.IA[i] if model.parent[i] < 0 else passed_inertia(art.IA[i], art.s[i])
        assert_close(data.oYaba[i + 1], expected, rtol=1e-9, scale=np.abs(art.IA[i]).max())


def test_hybrid_dynamics_solves_the_partitioned_equations_of_kim_eq_34(tree, rng):
    """qdd_v = H_vv^-1 (tau_v - C_v - H_vu qdd_u), and tau_u from the full equations."""
    q, qd, qdd = random_state(tree, rng)
    tau = rng.normal(size=tree.nv)
    given = rng.random(tree.n_bodies) < 0.5
    u = np.concatenate([[g] * j.nv for g, j in zip(given, tree.joints)]).astype(bool)
    v = ~u
    H, C = dl.crba(tree, q), dl.bias_forces(tree, q, qd)
    qdd_h, tau_h = dl.hybrid_dynamics(tree, q, qd, qdd, tau, given)
    expected = qdd.copy()
    expected[v] = np.linalg.solve(H[np.ix_(v, v)], tau[v] - C[v] - H[np.ix_(v, u)] @ qdd[u])
    assert_close(qdd_h, expected, rtol=1e-8)
    assert_close(tau_h, H @ expected + C, rtol=1e-8)
