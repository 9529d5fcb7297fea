"""Articulated mobility, point mobility and ranks, chain splitting and impulse propagation on random chains."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl
from dynlib.algorithms.mobility import mobility_ellipse, mobility_spectrum, point_mobility

from conftest import assert_close, assert_exact, random_state

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


def test_the_symmetric_and_printed_forms_are_one_recursion(chain, rng):
    """Psi = P Lambda_inv P^T (default) and note 000's Psi = P Lambda_inv give the same mobility and bias."""
    q, qd, tau = random_state(chain, rng)
    f_ext = rng.normal(size=(chain.n_bodies, 6))
    sym, printed = (dl.articulated_mobility(chain, q, qd, tau, f_ext, form=form) for form in ("symmetric", "printed"))
    assert_close(sym.Lambda_inv, printed.Lambda_inv, rtol=1e-9)
    assert_close(sym.b, printed.b, rtol=1e-8)
    kin = dl.forward_kinematics(chain, q)
    I = dl.world_inertias(chain, kin)
    for i in range(chain.n_bodies):
        s = kin.s[i]
        P = np.eye(6) - s @ np.linalg.solve(s.T @ I[i] @ s, s.T @ I[i])
        assert_close(sym.Psi[i], sym.Psi[i].T, rtol=1e-12)
        parent = np.abs(sym.Lambda_inv[i - 1]).max() if i else 0.0
        assert_close(sym.Psi[i], printed.Psi[i] @ P.T, rtol=1e-8, scale=(1 + np.abs(P).max()) ** 2 * parent)
        eig = np.linalg.eigvals(np.eye(6) + sym.Psi[i] @ I[i])
        assert np.abs(eig.imag).max() < 1e-9 * np.abs(eig).max() and eig.real.min() > 1 - 1e-9


def test_the_two_forms_agree_exactly_on_the_example_of_note_000():
    m, L = sp.symbols("m L", positive=True)
    two_link = dl.alexiou_two_link(m, L)
    qd, tau = np.array(sp.symbols("thetadot_1:3"), dtype=object), np.array(sp.symbols("tau_1:3"), dtype=object)
    sym, printed = (dl.articulated_mobility(two_link, [0, 0], qd, tau, form=form) for form in ("symmetric", "printed"))
    assert_exact(sym.Lambda_inv, printed.Lambda_inv)
    assert_exact(sym.b, printed.b)


def test_chain_splitting_equals_aba_at_every_split(chain, rng):
    q, qd, tau = random_state(chain, rng)
    f_ext = rng.normal(size=(chain.n_bodies, 6))
    expected = dl.aba(chain, q, qd, tau, f_ext)
    for split in range(chain.n_bodies + 1):
        for form in ("printed", "symmetric"):
            assert_close(dl.split_chain_dynamics(chain, q, qd, tau, split, f_ext, form), expected, rtol=1e-8)


def test_impulse_propagation_equals_the_joint_space_answer_on_every_body(chain, rng):
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    for body in range(chain.n_bodies):
        n = dl.line_coordinates(kin.p[body] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
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
    n = dl.line_coordinates(kin.p[-1] + rng.normal(scale=0.3, size=3), rng.normal(size=3))
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
    n = dl.line_coordinates(kin.p[body], rng.normal(size=3))
    J, dqd = dl.contact_impulse(tree, q, qd, n, 1.0, body)
    after = dl.forward_kinematics(tree, q, qd + dqd).v[body]
    assert np.isclose(n @ after, -(n @ kin.v[body]), rtol=1e-9)
    # an elastic impact conserves kinetic energy
    assert np.isclose(dl.system_kinetic_energy(tree, q, qd + dqd), dl.system_kinetic_energy(tree, q, qd), rtol=1e-9)


def test_a_contact_line_the_chain_cannot_move_along_is_rejected():
    """A stretched planar chain pushed along its own length: n^T Lambda_bar_inv n = 0 at rank 2."""
    model = dl.planar_chain(2)
    n = dl.line_coordinates([2.0, 0, 0], [1.0, 0, 0])
    message = (r"contact line cannot be moved by the chain at body 1: the effective mobility n\^T Lambda_bar_inv n "
               r"is below 1e-12 of \|n\|\^2 times the largest singular value of Lambda_bar_inv, so it has rank 0 of 1 "
               r"along n \(Lambda_bar_inv itself has rank 2 of 6\)\. The contact direction cannot be moved by any "
               r"joint")
    with pytest.raises(ValueError, match=message):
        dl.impulse_propagation(model, [0.0, 0.0], [1.0, 0.0], n, 0.5)
    with pytest.raises(ValueError, match=message):
        dl.contact_impulse(model, [0.0, 0.0], [1.0, 0.0], n, 0.5, 1)
    locked = dl.Model((-1,), (dl.Joint("fixed"),), np.eye(4)[None], model.inertias[:1])
    with pytest.raises(ValueError, match=r"n\^T Lambda_bar_inv n is 0 and Lambda_bar_inv = 0\. The contact direction"):
        dl.impulse_propagation(locked, [], [], n, 0.5)
    # just off the line the chain yields, a little: no error
    tilted = dl.line_coordinates([2.0, 0, 0], [1.0, 1e-3, 0])
    assert dl.impulse_propagation(model, [0.0, 0.0], [1.0, 0.0], tilted, 0.5).J > 0


def test_a_body_without_inertia_along_its_joint_is_refused_with_the_rank_it_lost():
    """A massless body has D = s^T I s = 0: the sub-chain ending at it, or bodies riding along, would be unbounded."""
    chain = dl.planar_chain(2)
    z, qd = np.zeros(2), np.array([1.0, 0.0])
    inertias = np.stack([chain.inertias[0], np.zeros((6, 6))])
    massless_tip = dl.Model(chain.parent, chain.joints, chain.placements, inertias)
    n = dl.line_coordinates([2.0, 0, 0], [0.0, 1.0, 0])
    own = r"D = s\^T I s of body 1 has rank 0, expected 1 \(eigenvalues \[0\]\): body 1 has no inertia along"
    for call in (lambda: dl.articulated_mobility(massless_tip, z),
                 lambda: dl.split_chain_dynamics(massless_tip, z, z, z, 2),
                 lambda: dl.impulse_propagation(massless_tip, z, qd, n, 0.5)):
        with pytest.raises(ValueError, match=own):
            call()
    rider = r"D = s\^T I s of joint 1 has rank 0, expected 1 .*: bodies 1 to 1, which ride along with the contact body"
    with pytest.raises(ValueError, match=rider):
        dl.impulse_propagation(massless_tip, z, qd, dl.line_coordinates([1.0, 0, 0], [0.0, 1.0, 0]), 0.5, body=0)
    ball = dl.Model((-1,), (dl.Joint("spherical"),), np.eye(4)[None], np.zeros((1, 6, 6)))
    with pytest.raises(ValueError, match=r"D = s\^T I s of body 0 has rank 0, expected 3"):
        dl.articulated_mobility(ball, dl.neutral_configuration(ball))


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
    with pytest.raises(ValueError, match="form must be 'symmetric' or 'printed'"):
        dl.articulated_mobility(chain, z, form="transposed")


# --- point mobility, mobility ellipses and ranks ---------------------------------------------------


def test_point_mobility_is_the_point_jacobian_through_the_inverse_mass_matrix(chain, rng):
    """G = B^T Lambda_inv B equals J_p H^-1 J_p^T of the sub-chain, for a point of every body."""
    q = dl.random_configuration(chain, rng)
    mob = dl.articulated_mobility(chain, q)
    kin = dl.forward_kinematics(chain, q)
    for k in range(1, chain.n_bodies + 1):
        sub, qs = chain.first_bodies(k), q[: chain.first_bodies(k).nq]
        local = rng.normal(size=3)
        Jp = dl.point_jacobian(sub, qs, k - 1, local)
        world = kin.p[k - 1] + kin.R[k - 1] @ local
        G = point_mobility(mob.Lambda_inv[k - 1], world)
        assert_close(G, Jp @ np.linalg.solve(dl.crba(sub, qs), Jp.T), rtol=1e-9)


def test_point_mobility_gives_the_velocity_jump_of_an_impulse(chain, rng):
    """An impulse e through a point of the last body changes that point's velocity by G e."""
    q, qd, _ = random_state(chain, rng)
    kin = dl.forward_kinematics(chain, q, qd)
    point, e = kin.p[-1] + rng.normal(scale=0.3, size=3), rng.normal(size=3)
    wrench = np.r_[e, np.cross(point, e)]
    J = dl.body_jacobian(chain, q, chain.n_bodies - 1)
    dqd = np.linalg.solve(dl.crba(chain, q), J.T @ wrench)
    dv = J @ dqd
    jump = dv[:3] + np.cross(dv[3:], point)
    G = point_mobility(dl.articulated_mobility(chain, q).Lambda_inv[-1], point)
    assert_close(G @ e, jump, rtol=1e-9)


def test_mobility_ellipse_is_the_eigen_decomposition_of_the_point_mobility(chain, rng):
    q = dl.random_configuration(chain, rng)
    L = dl.articulated_mobility(chain, q).Lambda_inv[-1]
    point = rng.normal(size=3)
    for planar, k in ((False, 3), (True, 2)):
        ell = mobility_ellipse(L, point, planar=planar)
        G = point_mobility(L, point)[:k, :k]
        assert_close(ell.G, G)
        assert np.all(np.diff(ell.radii) <= 0) and np.all(ell.radii >= 0)
        assert_close(ell.axes.T @ ell.axes, np.eye(k))
        assert_close(G @ ell.axes, ell.axes * ell.radii, rtol=1e-9, scale=np.abs(G).max())
        # every unit impulse maps onto the ellipse with these semi-axes
        u = ell.axes.T @ (G @ np.linalg.qr(rng.normal(size=(k, 1)))[0][:, 0])
        positive = ell.radii > 1e-9 * ell.radii[0]
        assert np.isclose(np.sum((u[positive] / ell.radii[positive]) ** 2), 1.0, rtol=1e-8)


def test_single_pendulum_point_mobility_exactly():
    """A rod on a hinge: a point at distance d yields d^2 / I_O sideways and nothing along the rod."""
    m, L, d, theta = sp.symbols("m L d theta", positive=True)
    rod = dl.planar_chain(1, length=L, mass=m)
    Lambda_inv = dl.articulated_mobility(rod, [theta]).Lambda_inv[0]
    radial = np.array([sp.cos(theta), sp.sin(theta), 0], dtype=object)
    tangent = np.array([-sp.sin(theta), sp.cos(theta), 0], dtype=object)
    G = point_mobility(Lambda_inv, d * radial)
    I_O = m * L**2 / 3
    assert_exact(G @ radial, np.zeros(3))
    assert_exact(G @ tangent, d**2 / I_O * tangent)


def test_mobility_rank_counts_the_freedoms_between_body_and_base(rng):
    kinds = ["revolute", "revolute", "spherical", "prismatic", "revolute", "free", "helical"]
    joints = tuple(dl.Joint(k, rng.normal(size=3) if k in ("revolute", "prismatic", "helical") else None,
                            0.1 if k == "helical" else 0) for k in kinds)
    n = len(joints)
    placements = np.array([dl.homogeneous(dl.random_rotation(rng), rng.normal(size=3)) for _ in range(n)])
    model = dl.Model(tuple(range(-1, n - 1)), joints, placements, np.array([dl.random_inertia(rng) for _ in range(n)]))
    q = dl.random_configuration(model, rng)
    spec = mobility_spectrum(model, q)
    freedoms = np.cumsum([j.nv for j in joints])
    assert spec.rank.tolist() == np.minimum(freedoms, 6).tolist() == [1, 2, 5, 6, 6, 6, 6]
    for i in range(n):
        assert spec.rank[i] == np.linalg.matrix_rank(dl.body_jacobian(model, q, i)[:, : freedoms[i]])
        assert np.all(np.diff(spec.singular_values[i]) <= 0)


def test_a_stretched_planar_chain_loses_one_rank():
    """Body 3 loses a rank when joints 1-3 are collinear (q_2 = 0), whatever its own angle q_3; nothing raises."""
    model = dl.planar_chain(3)
    spec = mobility_spectrum(model, [0.4, 0.0, 0.0])
    assert spec.rank.tolist() == [1, 2, 2]
    assert spec.singular_values[2, 2] < 1e-12 * spec.singular_values[2, 0] < spec.singular_values[1, 1]
    assert mobility_spectrum(model, [0.4, 0.0, 0.3]).rank.tolist() == [1, 2, 2]
    assert mobility_spectrum(model, [0.4, 0.3, 0.0]).rank.tolist() == [1, 2, 3]
    tip = dl.forward_kinematics(model, [0.4, 0.0, 0.0]).p[2] + [np.cos(0.4), np.sin(0.4), 0]
    ell = mobility_ellipse(dl.articulated_mobility(model, [0.4, 0.0, 0.0]).Lambda_inv[2], tip, planar=True)
    assert ell.radii[1] < 1e-12 * ell.radii[0]
    assert_close(np.abs(ell.axes[:, 1]), [np.cos(0.4), np.sin(0.4)])      # no yield along the chain


def test_alexiou_example_mobility_ranks_exactly():
    """Note 000, eq. 35: Lambda_1^-1 has rank 1, Lambda_2^-1 rank 2 (planar components)."""
    m, L = sp.symbols("m L", positive=True)
    mob = dl.articulated_mobility(dl.alexiou_two_link(m, L), [0, 0])
    assert [sp.Matrix(M).rank(simplify=True) for M in mob.Lambda_inv] == [1, 2]


def test_mobility_agrees_with_pinocchio(rng):
    from pinocchio_bridge import pin, to_pinocchio

    chain = dl.random_tree(6, 11, kinds=KINDS, branching=0.0)
    q = dl.random_configuration(chain, rng)
    mob = dl.articulated_mobility(chain, q)
    for k in range(1, chain.n_bodies + 1):
        sub = chain.first_bodies(k)
        pm = to_pinocchio(sub)
        data = pm.createData()
        qs = q[: sub.nq]
        pin.computeJointJacobians(pm, data, qs)
        J = pin.getJointJacobian(pm, data, k, pin.ReferenceFrame.WORLD).reshape(6, -1)
        Minv = np.atleast_2d(pin.computeMinverse(pm, data, qs))
        Minv = np.triu(Minv) + np.triu(Minv, 1).T
        assert_close(mob.Lambda_inv[k - 1], J @ Minv @ J.T, rtol=1e-8)


def test_point_mobility_and_spectrum_input_errors(tree):
    with pytest.raises(ValueError, match=r"Lambda_inv \(a 6x6 articulated mobility\) must have shape \(6, 6\)"):
        point_mobility(np.eye(3), [0, 0, 0])
    with pytest.raises(ValueError, match=r"Lambda_inv \(a 6x6 articulated mobility\) must be finite"):
        point_mobility(np.full((6, 6), np.nan), [0, 0, 0])
    with pytest.raises(ValueError, match="point must have shape"):
        point_mobility(np.eye(6), [0, 0])
    with pytest.raises(TypeError, match="mobility_ellipse needs numbers"):
        mobility_ellipse(np.eye(6, dtype=object), [sp.Symbol("x"), 0, 0])
    with pytest.raises(ValueError, match=r"rtol must be a float in \(0, 1\)"):
        mobility_spectrum(dl.planar_chain(2), [0.0, 0.0], rtol=2.0)
    if not tree.is_chain():
        with pytest.raises(ValueError, match="defined for serial chains"):
            mobility_spectrum(tree, dl.neutral_configuration(tree))
