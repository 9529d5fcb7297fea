"""The Coriolis matrix: C qd = velocity products, C + C^T = dH/dt, Christoffel symbols, Pinocchio."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import TREES, assert_close

KINDS = ["revolute", "prismatic", "spherical", "helical", "translational", "free"]


def without_gravity(model):
    return dl.Model(model.parent, model.joints, model.placements, model.inertias, gravity=(0, 0, 0))


def test_twice_b_is_how_the_newton_euler_force_responds_to_a_twist_change(rng):
    """2 B(I, v) u = v x* I u - I (v x u) + u x* (I v), and B + B^T = dI/dt = v x* I - I v x."""
    I, v, u = dl.random_inertia(rng), rng.normal(size=6), rng.normal(size=6)
    two_B = dl.kernels.velocity_inertia_product(I, v)
    assert_close(two_B @ u, dl.cross_force(v, I @ u) - I @ dl.cross_motion(v, u) + dl.cross_force(u, I @ v))
    assert_close((two_B + two_B.T) / 2, dl.crf(v) @ I - I @ dl.crm(v))


@pytest.mark.parametrize("n, seed, branching", TREES)
def test_c_qd_is_the_velocity_product_and_c_plus_c_transpose_is_dh_dt(n, seed, branching, rng):
    tree = dl.random_tree(n, seed, branching=branching, kinds=list(dl.JOINT_KINDS))
    q, qd = dl.random_configuration(tree, rng), dl.random_velocity(tree, rng)
    C = dl.coriolis_matrix(tree, q, qd)
    assert_close(C @ qd, dl.bias_forces(without_gravity(tree), q, qd), rtol=1e-10, scale=np.abs(C).max())
    h = 1e-5  # dH/dt along the motion, central differences on the configuration manifold
    H_dot = (dl.crba(tree, dl.integrate(tree, q, qd, h)) - dl.crba(tree, dl.integrate(tree, q, qd, -h))) / (2 * h)
    size = np.abs(dl.crba(tree, q)).max() * np.abs(qd).max()  # the size of dH/dt's terms (round-off / h)
    assert_close(C + C.T, H_dot, rtol=1e-7, scale=size)


def christoffel(H, q, qd):
    """C_ij = sum_k (dH_ij/dq_k + dH_ik/dq_j - dH_jk/dq_i) qd_k / 2, from H as a function of q."""
    n = len(q)
    return sp.Matrix(n, n, lambda i, j: sum(
        (sp.diff(H[i, j], q[k]) + sp.diff(H[i, k], q[j]) - sp.diff(H[j, k], q[i])) * qd[k] / 2 for k in range(n)))


def test_the_double_pendulum_gives_the_christoffel_matrix_exactly():
    m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
    q = sp.symbols("q1 q2", real=True)
    qd = sp.symbols("qd1 qd2", real=True)
    pendulum = dl.double_pendulum((m1, m2), (l1, l2), gravity=(0, -g, 0))
    q_, qd_ = np.array(q, dtype=object), np.array(qd, dtype=object)
    H = sp.Matrix(dl.crba(pendulum, q_)).applyfunc(sp.simplify)
    C = sp.Matrix(dl.coriolis_matrix(pendulum, q_, qd_)).applyfunc(sp.simplify)
    assert (C - christoffel(H, q, qd)).applyfunc(sp.simplify) == sp.zeros(2, 2)
    H_dot = sum((H.diff(q[k]) * qd[k] for k in range(2)), sp.zeros(2, 2))
    assert (H_dot - 2 * C + (H_dot - 2 * C).T).applyfunc(sp.simplify) == sp.zeros(2, 2)  # skew-symmetric


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_on_trees_whose_velocities_are_coordinate_rates_it_is_the_christoffel_matrix(seed, rng):
    tree = dl.random_tree(6, seed, kinds=["revolute", "prismatic", "helical", "translational"], branching=0.5)
    q, qd = dl.random_configuration(tree, rng), dl.random_velocity(tree, rng)
    h = 1e-6
    dH = np.array([(dl.crba(tree, q + h * e) - dl.crba(tree, q - h * e)) / (2 * h) for e in np.eye(tree.nv)])
    expected = (np.einsum("kij,k->ij", dH, qd) + np.einsum("jik,k->ij", dH, qd) - np.einsum("ijk,k->ij", dH, qd)) / 2
    C = dl.coriolis_matrix(tree, q, qd)
    assert_close(C, expected, rtol=1e-7, scale=np.abs(C).max())


@pytest.mark.parametrize("seed, n, branching", [(0, 1, 0.0), (1, 5, 0.0), (2, 9, 0.5), (3, 12, 0.9)])
def test_agrees_with_pinocchio_compute_coriolis_matrix(seed, n, branching):
    from pinocchio_bridge import pin, to_pinocchio

    tree = dl.random_tree(n, seed, kinds=KINDS, branching=branching, depth_first=True)
    pm = to_pinocchio(tree)
    rng = np.random.default_rng(seed)
    q, qd = dl.random_configuration(tree, rng), dl.random_velocity(tree, rng)
    assert_close(dl.coriolis_matrix(tree, q, qd), pin.computeCoriolisMatrix(pm, pm.createData(), q, qd), rtol=1e-9)


def test_bad_input_is_refused_clearly():
    chain = dl.planar_chain(2)
    with pytest.raises(ValueError, match=r"qd must have shape \(nv,\) = \(2,\)"):
        dl.coriolis_matrix(chain, [0.0, 0.0], [1.0])
    with pytest.raises(ValueError, match="q must have shape"):
        dl.coriolis_matrix(chain, np.zeros((3, 2)), np.zeros(2))
    with pytest.raises(TypeError, match="model must be a dynlib Model"):
        dl.coriolis_matrix("chain", [0.0, 0.0], [0.0, 0.0])
