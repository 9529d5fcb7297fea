"""Cross-algorithm identities of RNEA, CRBA, ABA and hybrid dynamics on random trees."""

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close, random_state


def random_wrenches(model, rng):
    return rng.normal(size=(model.n_bodies, 6))


def test_aba_inverts_rnea(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    f_ext = random_wrenches(tree, rng)
    tau = dl.rnea(tree, q, qd, qdd, f_ext)
    assert_close(dl.aba(tree, q, qd, tau, f_ext), qdd, rtol=1e-9)


def test_mass_matrix_and_bias_reproduce_rnea(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    f_ext = random_wrenches(tree, rng)
    H = dl.crba(tree, q)
    assert_close(H @ qdd + dl.bias_forces(tree, q, qd, f_ext), dl.rnea(tree, q, qd, qdd, f_ext))


def test_mass_matrix_is_symmetric_positive_definite(tree, rng):
    H = dl.crba(tree, dl.random_configuration(tree, rng))
    assert_close(H, H.T, rtol=1e-13)
    assert np.linalg.eigvalsh(H).min() > 0


def test_mass_matrix_columns_are_rnea_of_unit_accelerations(tree, rng):
    q = dl.random_configuration(tree, rng)
    zero = np.zeros(tree.nv)
    columns = [dl.rnea(tree, q, zero, e, None) - dl.rnea(tree, q, zero, zero) for e in np.eye(tree.nv)]
    assert_close(np.array(columns).T, dl.crba(tree, q))


def test_cholesky_forward_dynamics_agrees_with_aba(tree, rng):
    q, qd, tau = random_state(tree, rng)
    assert_close(dl.forward_dynamics_crba(tree, q, qd, tau), dl.aba(tree, q, qd, tau), rtol=1e-9)


def test_kinetic_energy_is_half_qd_H_qd(tree, rng):
    q, qd, _ = random_state(tree, rng)
    assert np.isclose(dl.system_kinetic_energy(tree, q, qd), qd @ dl.crba(tree, q) @ qd / 2, rtol=1e-12)


def test_power_balance(tree, rng):
    """dE/dt = tau . qd + sum_i v_i . f_ext_i along the motion that aba produces."""
    q, qd, tau = random_state(tree, rng)
    f_ext = random_wrenches(tree, rng)
    qdd = dl.aba(tree, q, qd, tau, f_ext)
    h = 1e-5

    def energy(t):
        return dl.system_energy(tree, dl.integrate(tree, q, qd, t), qd + t * qdd)

    v = dl.forward_kinematics(tree, q, qd).v
    power = tau @ qd + np.sum(v * f_ext)
    dE = (energy(h) - energy(-h)) / (2 * h)
    assert np.isclose(dE, power, rtol=1e-6, atol=1e-6 * (abs(power) + np.abs(tau * qd).sum()))


def test_momentum_of_a_free_floating_tree_is_conserved_without_gravity(rng):
    """With a free root joint, no gravity and no joint forces, d/dt of the total momentum is zero."""
    tree = dl.random_tree(6, 8, kinds=["free"] + ["revolute", "spherical", "prismatic"] * 3, gravity=(0, 0, 0))
    tree = dl.Model(tree.parent, (dl.free(),) + tree.joints[1:], tree.placements, tree.inertias, tree.gravity)
    q, qd, _ = random_state(tree, rng)
    qdd = dl.aba(tree, q, qd, np.zeros(tree.nv))
    h = 1e-5

    def momentum(t):
        return dl.system_momentum(tree, dl.integrate(tree, q, qd, t), qd + t * qdd)

    assert_close((momentum(h) - momentum(-h)) / (2 * h), np.zeros(6), scale=np.abs(momentum(0)).max(), rtol=1e-6)


def test_hybrid_dynamics_extremes_are_inverse_and_forward_dynamics(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    tau = dl.rnea(tree, q, qd, qdd)
    noise = rng.normal(size=tree.nv)
    qdd_all, tau_all = dl.hybrid_dynamics(tree, q, qd, qdd, noise, [True] * tree.n_bodies)
    assert_close(tau_all, tau, rtol=1e-9)
    assert_close(qdd_all, qdd)
    qdd_none, tau_none = dl.hybrid_dynamics(tree, q, qd, noise, tau, [False] * tree.n_bodies)
    assert_close(qdd_none, qdd, rtol=1e-9)
    assert_close(tau_none, tau)


def test_hybrid_dynamics_mixed_is_consistent(tree, rng):
    q, qd, qdd = random_state(tree, rng)
    tau = dl.rnea(tree, q, qd, qdd)
    given = rng.random(tree.n_bodies) < 0.5
    mask = np.concatenate([[g] * j.nv for g, j in zip(given, tree.joints)]).astype(bool)
    scrambled_qdd = np.where(mask, qdd, rng.normal(size=tree.nv))
    scrambled_tau = np.where(mask, rng.normal(size=tree.nv), tau)
    qdd_h, tau_h = dl.hybrid_dynamics(tree, q, qd, scrambled_qdd, scrambled_tau, given)
    assert_close(qdd_h, qdd, rtol=1e-9)
    assert_close(tau_h, tau, rtol=1e-9)


def test_gravity_trick_equals_the_corrected_force():
    """Lecture 4: the base-acceleration trick and the per-body gravity force give the same tau."""
    model = dl.random_tree(5, 21)
    rng = np.random.default_rng(1)
    q, qd, qdd = random_state(model, rng)
    no_gravity = dl.Model(model.parent, model.joints, model.placements, model.inertias, (0, 0, 0))
    kin = dl.forward_kinematics(model, q)
    weight = np.array([dl.momentum(I, dl.gravity_acceleration(model)) for I in dl.world_inertias(model, kin)])
    assert_close(dl.rnea(model, q, qd, qdd), dl.rnea(no_gravity, q, qd, qdd, f_ext=weight))


def test_massless_connector_body_is_fine_between_massive_ones(rng):
    """A universal joint built from two revolutes with a massless body between them."""
    base = dl.random_tree(3, 5, kinds=["revolute"], branching=0.0)
    inertias = base.inertias.copy()
    inertias[1] = 0.0
    model = dl.Model(base.parent, base.joints, base.placements, inertias)
    q, qd, tau = random_state(model, rng)
    assert_close(dl.aba(model, q, qd, tau), dl.forward_dynamics_crba(model, q, qd, tau), rtol=1e-9)


def test_a_massless_leaf_body_gives_a_clear_error(rng):
    base = dl.random_tree(3, 5, kinds=["revolute"], branching=0.0)
    inertias = base.inertias.copy()
    inertias[2] = 0.0
    model = dl.Model(base.parent, base.joints, base.placements, inertias)
    q, qd, tau = random_state(model, rng)
    with pytest.raises(ValueError, match="joint 2.*carry no inertia"):
        dl.aba(model, q, qd, tau)
    with pytest.raises(ValueError, match="mass matrix H is not positive definite"):
        dl.forward_dynamics_crba(model, q, qd, tau)


def test_dynamics_input_errors():
    model = dl.planar_chain(2)
    z = np.zeros(2)
    with pytest.raises(ValueError, match=r"f_ext must have shape \(n_bodies, 6\) = \(2, 6\)"):
        dl.rnea(model, z, z, z, f_ext=np.zeros(6))
    with pytest.raises(ValueError, match=r"qdd must have shape \(nv,\) = \(2,\)"):
        dl.rnea(model, z, z, np.zeros(3))
    with pytest.raises(ValueError, match=r"tau must have shape"):
        dl.aba(model, z, z, np.zeros(1))
    with pytest.raises(ValueError, match="accel_given must have one flag per joint"):
        dl.hybrid_dynamics(model, z, z, z, z, [True])
