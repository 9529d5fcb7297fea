"""Articulated mobility, chain splitting and impulse propagation on random chains."""

import numpy as np
import pytest

import dynlib as dl

from conftest import assert_close, random_state

KINDS = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]
CHAINS = [(1, 0), (3, 1), (6, 2), (8, 3)]


@pytest.fixture(params=CHAINS, ids=lambda c: f"n{c[0]}-seed{c[1]}")
def chain(request):
    n, seed = request.param
    return dl.random_tree(n, seed, kinds=KINDS, branching=0.0)


def test_mobility_of_each_sub_chain_is_J_Hinv_JT(chain, rng):
    q = dl.random_configuration(chain, rng)
    mob = dl.articulated_mobility(chain, q)
    for k in range(1, chain.n_bodies + 1):
        sub = chain.first_bodies(k)
        J = dl.body_jacobian(sub, q[: sub.nq], k - 1)
        assert_close(mob.Lambda_inv[k - 1], J @ np.linalg.solve(dl.crba(sub, q[: sub.nq]), J.T), rtol=1e-9)
        assert np.linalg.eigvalsh((mob.Lambda_inv[k - 1] + mob.Lambda_inv[k - 1].T) / 2).min() > -1e-9


def test_mobility_bias_is_the_free_tip_acceleration_of_each_sub_chain(chain, rng):
    q, qd, tau = random_state(chain, rng)
    f_ext = rng.normal(size=(chain.n_bodies, 6))
    mob = dl.articulated_mobility(chain, q, qd, tau, f_ext)
    for k in range(1, chain.n_bodies + 1):
        sub = chain.first_bodies(k)
        qs, vs = q[: sub.nq], slice(0, sub.nv)
        qdd = dl.aba(sub, qs, qd[vs], tau[vs], f_ext[:k])
        a_true = dl.forward_kinematics(sub, qs, qd[vs], qdd).a[k - 1]
        assert_close(mob.b[k - 1], a_true - dl.gravity_acceleration(chain), rtol=1e-8)


def test_chain_splitting_equals_aba_at_every_split(chain, rng):
    q, qd, tau = random_state(chain, rng)
    f_ext = rng.normal(size=(chain.n_bodies, 6))
    expected = dl.aba(chain, q, qd, tau, f_ext)
    for split in range(chain.n_bodies + 1):
        assert_close(dl.split_chain_dynamics(chain, q, qd, tau, split, f_ext), expected, rtol=1e-8)


def test_impulse_propagation_equals_the_joint_space_answer_on_every_body(chain, rng):
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    for body in range(chain.n_bodies):
        n = dl.contact_line(kin.p[body] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
        res = dl.impulse_propagation(chain, q, qd, n, 0.7, body=body)
        J, dqd = dl.contact_impulse(chain, q, qd, n, 0.7, body)
        assert np.isclose(res.J, J, rtol=1e-9)
        assert_close(res.dqd, dqd, rtol=1e-9)
        # law of contact, and the twist jumps are the Jacobian times the joint jumps
        assert np.isclose(res.v_bounce, -0.7 * res.v_impact, rtol=1e-9, atol=1e-12 * abs(res.v_impact))
        assert_close(res.dv, [dl.body_jacobian(chain, q, i) @ res.dqd for i in range(chain.n_bodies)], rtol=1e-9)


def test_reaction_impulses_balance_momentum_and_do_no_work_on_the_joints(chain, rng):
    """ell_i - ell_{i+1} = I_i dv_i (eq. 12) and s_i^T ell_i = 0 (frictionless joints)."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    n = dl.contact_line(kin.p[-1] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
    res = dl.impulse_propagation(chain, q, qd, n, 0.5)
    I = dl.world_inertias(chain, kin)
    outboard = list(res.ell[1:]) + [n * res.J]
    scale = np.abs(n * res.J).max()
    for i in range(chain.n_bodies):
        assert_close(res.ell[i] - outboard[i], I[i] @ res.dv[i], rtol=1e-9, scale=scale)
        assert_close(kin.s[i].T @ res.ell[i], np.zeros(kin.s[i].shape[1]), scale=scale)
        assert_close(res.ell[i], res.Phi[i] @ n * res.J, rtol=1e-9, scale=scale)


def test_contact_impulse_works_on_branched_trees(tree, rng):
    q, qd, _ = random_state(tree, rng)
    body = tree.n_bodies - 1
    kin = dl.forward_kinematics(tree, q, qd)
    n = dl.contact_line(kin.p[body], rng.normal(size=3))
    J, dqd = dl.contact_impulse(tree, q, qd, n, 1.0, body)
    after = dl.forward_kinematics(tree, q, qd + dqd).v[body]
    assert np.isclose(n @ after, -(n @ kin.v[body]), rtol=1e-9)
    # an elastic impact conserves kinetic energy
    assert np.isclose(dl.system_kinetic_energy(tree, q, qd + dqd), dl.system_kinetic_energy(tree, q, qd), rtol=1e-9)


def test_a_contact_line_the_chain_cannot_move_along_is_rejected():
    """A stretched planar chain pushed along its own length: n^T Lambda_inv n = 0."""
    model = dl.planar_chain(2)
    n = dl.contact_line([2.0, 0, 0], [1.0, 0, 0])
    with pytest.raises(ValueError, match="contact line cannot be moved by the chain at body 1"):
        dl.impulse_propagation(model, [0.0, 0.0], [1.0, 0.0], n, 0.5)
    with pytest.raises(ValueError, match="contact line cannot be moved"):
        dl.contact_impulse(model, [0.0, 0.0], [1.0, 0.0], n, 0.5, 1)


def test_mobility_and_impulse_input_errors(tree):
    chain = dl.planar_chain(2)
    z = np.zeros(2)
    if not tree.is_chain():
        with pytest.raises(ValueError, match="defined for serial chains"):
            dl.articulated_mobility(tree, dl.neutral_configuration(tree))
    with pytest.raises(ValueError, match=r"split must be an int in \[0, 2\]"):
        dl.split_chain_dynamics(chain, z, z, z, 3)
    with pytest.raises(ValueError, match=r"body must be an index in \[0, 2\)"):
        dl.impulse_propagation(chain, z, z, np.zeros(6), 0.5, body=5)
    with pytest.raises(ValueError, match="contact must be a 6-vector"):
        dl.impulse_propagation(chain, z, z, np.zeros(3), 0.5)
    massless = dl.Model(chain.parent, chain.joints, chain.placements, np.zeros((2, 6, 6)))
    with pytest.raises(ValueError, match="no inertia along its joint"):
        dl.articulated_mobility(massless, z)
