"""Impulse propagation (chapter "Impulse propagation"): the laws an impact obeys, checked three ways.

The joint-space answer ``dqd = -H^-1 J^T n J`` is tested in test_mobility.py and the worked
example of note 000 in test_alexiou_example.py; here: Pinocchio's impulse dynamics as an
independent oracle, momentum balance about every joint, the closed form of the energy lost,
exact sympy results (centre of percussion, energy), and impacts inside a simulation.
"""

from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import assert_close, assert_exact, random_state

KINDS = ["revolute", "prismatic", "helical", "spherical", "translational", "free"]
CHAINS = [(2, 10), (4, 11), (7, 12)]


@pytest.fixture(params=CHAINS, ids=lambda c: f"n{c[0]}-seed{c[1]}")
def chain(request):
    n, seed = request.param
    return dl.random_tree(n, seed, kinds=KINDS, branching=0.0)


def random_contact(model, kin, body, rng):
    """A contact line near ``body``, oriented so that the body approaches the obstacle."""
    n = dl.line_coordinates(kin.p[body] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
    return n if n @ kin.v[body] > 0 else -n


def test_impulse_propagation_agrees_with_pinocchio_impulse_dynamics(chain, rng):
    from pinocchio_bridge import pin, to_pinocchio

    pm = to_pinocchio(chain)
    data = pm.createData()
    for body in range(chain.n_bodies):
        q, qd, _ = random_state(chain, rng)
        kin = dl.forward_kinematics(chain, q, qd)
        n = random_contact(chain, kin, body, rng)
        epsilon = rng.uniform()
        res = dl.impulse_propagation(chain, q, qd, n, epsilon, body=body)
        pin.computeJointJacobians(pm, data, q)
        J_world = pin.getJointJacobian(pm, data, body + 1, pin.ReferenceFrame.WORLD)  # Pinocchio's own Jacobian
        qd_after = pin.impulseDynamics(pm, data, q, qd, (n @ J_world)[None, :], epsilon, 0.0)
        assert_close(qd + res.dqd, qd_after, rtol=1e-9)
        assert np.isclose(-data.impulse_c[0], res.J, rtol=1e-9)  # Pinocchio's impulse acts along +n


def test_momentum_about_every_joint_changes_by_the_moment_of_the_blow(chain, rng):
    """s_i^T (sum_{j >= i} I_j dv_j) = -s_i^T n J: joint i transmits nothing along its free motions."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    I = dl.world_inertias(chain, kin)
    for body in range(chain.n_bodies):
        n = random_contact(chain, kin, body, rng)
        res = dl.impulse_propagation(chain, q, qd, n, 0.3, body=body)
        blow = n * res.J
        for i in range(chain.n_bodies):
            outboard = sum(I[j] @ res.dv[j] for j in range(i, chain.n_bodies))
            moment = -kin.s[i].T @ blow if i <= body else np.zeros(kin.s[i].shape[1])
            assert_close(kin.s[i].T @ outboard, moment, rtol=1e-9, scale=np.abs(blow).max())


def test_propagation_matrices_pass_nothing_along_the_joint_motions(chain, rng):
    """s_i^T Phi_i = 0 for every body up to the contact, whatever the blow."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    body = chain.n_bodies - 1
    res = dl.impulse_propagation(chain, q, qd, random_contact(chain, kin, body, rng), 0.5)
    scale = max(np.abs(res.Phi).max(), 1.0)  # a free joint passes nothing at all: then Phi = 0 up to rounding
    for i in range(body + 1):
        assert_close(kin.s[i].T @ res.Phi[i], np.zeros((kin.s[i].shape[1], 6)), scale=scale)


def test_propagation_matrices_follow_eq_25(chain, rng):
    """Phi_i = (1 - I_i Lambda_inv_i) Phi_{i+1} (note 000 eq. 25), which the library evaluates as
    (1 + I_i Psi_i)^-1 P_i^T Phi_{i+1}: the transposed step of the mobility recursion."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    I = dl.world_inertias(chain, kin)
    res = dl.impulse_propagation(chain, q, qd, random_contact(chain, kin, chain.n_bodies - 1, rng), 0.5)
    Phi_next = np.eye(6)
    for i in reversed(range(chain.n_bodies)):
        terms = np.abs(I[i]).max() * np.abs(res.Lambda_bar_inv[i]).max() * np.abs(Phi_next).max()  # 1 - I L cancels
        assert_close(res.Phi[i], (np.eye(6) - I[i] @ res.Lambda_bar_inv[i]) @ Phi_next, rtol=1e-9, scale=terms)
        Phi_next = res.Phi[i]


def test_contact_mobility_is_J_Hinv_JT_of_the_whole_chain(chain, rng):
    """Lambda_inv[k] of the response includes the bodies outboard of the contact body."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    H = dl.crba(chain, q)
    mob = dl.articulated_mobility(chain, q)
    for body in range(chain.n_bodies):
        res = dl.impulse_propagation(chain, q, qd, random_contact(chain, kin, body, rng), 0.5, body=body)
        Jk = dl.body_jacobian(chain, q, body)
        assert_close(res.Lambda_bar_inv[body], Jk @ np.linalg.solve(H, Jk.T), rtol=1e-9)
        for i in range(body):  # inboard: the mobility of the sub-chain 1..i
            assert_close(res.Lambda_bar_inv[i], mob.Lambda_inv[i], rtol=1e-9)


@pytest.mark.parametrize("epsilon", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_energy_lost_is_the_closed_form(chain, rng, epsilon):
    """T_before - T_after = (1 - eps^2) v^2 / (2 n^T Lambda_inv n); nothing is lost when eps = 1."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    body = int(rng.integers(chain.n_bodies))
    n = random_contact(chain, kin, body, rng)
    res = dl.impulse_propagation(chain, q, qd, n, epsilon, body=body)
    before = dl.system_kinetic_energy(chain, q, qd)
    lost = before - dl.system_kinetic_energy(chain, q, qd + res.dqd)
    Jk = dl.body_jacobian(chain, q, body)
    reach = n @ Jk @ np.linalg.solve(dl.crba(chain, q), Jk.T @ n)
    assert_close(lost, (1 - epsilon**2) * res.v_impact**2 / (2 * reach), rtol=1e-9, scale=before)
    assert_close(lost, (1 - epsilon) * res.J * res.v_impact / 2, rtol=1e-9, scale=before)


def test_energy_lost_exactly_in_the_example_of_note_000():
    m, L = sp.symbols("m L", positive=True)
    model = dl.alexiou_two_link(m, L)
    w1, w2, eps = sp.symbols("thetadot1 thetadot2 epsilon")
    qd = np.array([w1, w2], dtype=object)
    res = dl.impulse_propagation(model, [0, 0], qd, dl.line_coordinates(np.array([2 * L, 0, 0], dtype=object),
                                                                     [0, 1, 0]), eps)
    lost = dl.system_kinetic_energy(model, [0, 0], qd) - dl.system_kinetic_energy(model, [0, 0], qd + res.dqd)
    v = L * (2 * w1 + w2)
    assert_exact(lost, (1 - eps**2) * v**2 * 7 * m / 48)  # n^T Lambda_inv n = 24 / (7 m)


def test_a_rod_struck_at_its_centre_of_percussion_leaves_the_pivot_free():
    """Exact: a uniform rod pinned at one end feels no pivot impulse when struck at 2L/3."""
    m, L, x = sp.symbols("m L x", positive=True)
    rod = dl.serial_chain([m], [L / 2], [L], [dl.planar_link_inertia(m * L**2 / 12)])
    w, eps = sp.symbols("omega epsilon")
    n = dl.line_coordinates(np.array([x, 0, 0], dtype=object), [0, 1, 0])
    res = dl.impulse_propagation(rod, [0], np.array([w], dtype=object), n, eps)
    pivot = dl.planar_components(res.ell[0])
    assert sp.solve(sp.simplify(pivot[1]), x) == [2 * L / 3]
    assert_exact(pivot[[0, 2]], [0, 0])  # no moment about the hinge, no force along the rod


def test_impacts_in_a_simulation_lose_the_closed_form_energy():
    """A double pendulum swinging into a wall: each impact's energy step is (1 - eps) J v / 2."""
    model = dl.double_pendulum()
    wall = dl.PlaneContact(1, [1.0, 0, 0], [0.6, 0, 0], [-1.0, 0, 0], restitution=0.5)
    dt = 0.002
    tr = dl.simulate(model, [-np.pi / 2 - 1.2, 0.3], [0, 0], 2.0, dt, contacts=[wall])
    assert len(tr.impacts) >= 1
    for impact in tr.impacts:
        k = int(impact.t // dt)
        step = tr.energy[k] - tr.energy[k + 1]
        assert_close(step, (1 - 0.5) * impact.J * impact.v_impact / 2, rtol=1e-5)
        assert np.isclose(impact.v_bounce, -0.5 * impact.v_impact, rtol=1e-9)
    elastic = dl.simulate(model, [-np.pi / 2 - 1.2, 0.3], [0, 0], 2.0, dt, contacts=[replace(wall, restitution=1.0)])
    assert len(elastic.impacts) >= 1 and np.ptp(elastic.energy) < 1e-6 * np.abs(elastic.energy).max()
