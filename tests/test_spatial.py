"""Identities of spatial vector algebra on seeded random data."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact


def random_pose(rng):
    return dl.random_rotation(rng), rng.normal(size=3)


def test_skew_is_the_cross_product(rng):
    a, b = rng.normal(size=(2, 3))
    assert_close(dl.skew(a) @ b, np.cross(a, b))
    assert_close(dl.cross3(a, b), np.cross(a, b))
    assert_close(dl.unskew(dl.skew(a)), a)


def test_crm_annihilates_its_own_twist(rng):
    v = rng.normal(size=6)
    assert_close(dl.crm(v) @ v, np.zeros(6), scale=v @ v)


def test_crf_is_minus_crm_transpose(rng):
    v = rng.normal(size=6)
    assert_close(dl.crf(v), -dl.crm(v).T)


def test_cross_products_without_matrices_match(rng):
    v, m, f = rng.normal(size=(3, 6))
    assert_close(dl.cross_motion(v, m), dl.crm(v) @ m)
    assert_close(dl.cross_force(v, f), dl.crf(v) @ f)


def test_motion_cross_product_is_the_lie_bracket(rng):
    """crm(v) @ m == -crm(m) @ v and the Jacobi identity."""
    u, v, w = rng.normal(size=(3, 6))
    assert_close(dl.crm(v) @ w, -dl.crm(w) @ v)
    jacobi = dl.crm(u) @ dl.crm(v) @ w + dl.crm(v) @ dl.crm(w) @ u + dl.crm(w) @ dl.crm(u) @ v
    assert_close(jacobi, np.zeros(6), scale=np.abs(u).max() * np.abs(v).max() * np.abs(w).max())


def test_force_transform_is_inverse_transpose_of_motion_transform(rng):
    R, p = random_pose(rng)
    X, Xf = dl.motion_transform(R, p), dl.force_transform(R, p)
    assert_close(Xf, np.linalg.inv(X).T)
    assert_close(dl.inverse_transform(X) @ X, np.eye(6))
    assert_close(dl.inverse_transform(Xf) @ Xf, np.eye(6))


def test_transforms_compose_by_matrix_product(rng):
    (R1, p1), (R2, p2) = random_pose(rng), random_pose(rng)
    X12 = dl.motion_transform(R1, p1) @ dl.motion_transform(R2, p2)
    assert_close(X12, dl.motion_transform(R1 @ R2, p1 + R1 @ p2))


def test_power_is_invariant_under_change_of_frame(rng):
    R, p = random_pose(rng)
    m, f = rng.normal(size=(2, 6))
    assert np.isclose((dl.motion_transform(R, p) @ m) @ (dl.force_transform(R, p) @ f), m @ f, rtol=1e-12)


def test_cross_products_transform_covariantly(rng):
    R, p = random_pose(rng)
    X, Xf = dl.motion_transform(R, p), dl.force_transform(R, p)
    v = rng.normal(size=6)
    assert_close(X @ dl.crm(v) @ dl.inverse_transform(X), dl.crm(X @ v))
    assert_close(Xf @ dl.crf(v) @ dl.inverse_transform(Xf), dl.crf(X @ v))


def test_a_twist_about_a_point_moves_the_point_only_along_the_axis():
    """Plücker twist [v_O; w]: the velocity of the body point at r is v_O + w x r."""
    r, w = np.array([1.0, 2.0, 0.0]), np.array([0, 0, 3.0])
    twist = np.concatenate([np.cross(r, w), w])  # pure rotation about the line through r
    assert_close(twist[:3] + np.cross(w, r), np.zeros(3), scale=9.0)


def test_spatial_inertia_round_trip(rng):
    I = dl.random_inertia(rng)
    m, c, I_c = dl.inertia_parameters(I)
    assert_close(dl.spatial_inertia(m, c, I_c), I)
    assert np.all(np.linalg.eigvalsh(I) > 0)


def test_transform_inertia_is_the_parallel_axis_theorem(rng):
    m, c = 1.7, rng.normal(size=3)
    I_c = dl.inertia_parameters(dl.random_inertia(rng))[2]
    R, p = random_pose(rng)
    moved = dl.transform_inertia(dl.motion_transform(R, p), dl.spatial_inertia(m, c, I_c))
    assert_close(moved, dl.spatial_inertia(m, R @ c + p, R @ I_c @ R.T))


def test_kinetic_energy_and_momentum_transform_as_invariants(rng):
    I_B, v_B = dl.random_inertia(rng), rng.normal(size=6)
    R, p = random_pose(rng)
    X = dl.motion_transform(R, p)
    I_A, v_A = dl.transform_inertia(X, I_B), X @ v_B
    assert np.isclose(dl.kinetic_energy(I_A, v_A), dl.kinetic_energy(I_B, v_B), rtol=1e-12)
    assert_close(dl.momentum(I_A, v_A), dl.force_transform(R, p) @ dl.momentum(I_B, v_B))
    assert np.isclose(dl.kinetic_energy(I_B, v_B), v_B @ I_B @ v_B / 2, rtol=1e-14)


def test_momentum_rate_of_a_body_is_I_a_plus_v_crossf_I_v(rng):
    """d/dt (I v) for a body whose inertia moves with it equals I a + v x* I v (Lecture 4)."""
    I0, v, a = dl.random_inertia(rng), rng.normal(size=6), rng.normal(size=6)
    h = 1e-6
    # The body frame moves with twist v: X(t) = exp-like transform, to first order 1 + t crm(v).
    def inertia_at(t):
        X = np.eye(6) + t * dl.crm(v)
        return np.linalg.inv(X).T @ I0 @ np.linalg.inv(X)
    rate = (inertia_at(h) @ (v + h * a) - inertia_at(-h) @ (v - h * a)) / (2 * h)
    assert_close(rate, I0 @ a + dl.crf(v) @ I0 @ v, rtol=1e-7)


def test_batch_dimensions_are_supported(rng):
    v = rng.normal(size=(4, 5, 6))
    stacked = np.array([[dl.crm(x) for x in row] for row in v])
    assert dl.crm(v).shape == (4, 5, 6, 6)
    assert_close(dl.crm(v), stacked)
    assert_close(dl.crf(v), -np.swapaxes(stacked, -1, -2))
    R = np.array([dl.random_rotation(rng) for _ in range(3)])
    p = rng.normal(size=(3, 3))
    X = dl.motion_transform(R, p)
    assert X.shape == (3, 6, 6)
    assert_close(X[1], dl.motion_transform(R[1], p[1]))
    assert_close(dl.inverse_transform(X)[2], np.linalg.inv(X[2]))
    I = np.array([dl.random_inertia(rng) for _ in range(3)])
    tw = rng.normal(size=(3, 6))
    assert_close(dl.kinetic_energy(I, tw), [t @ i @ t / 2 for i, t in zip(I, tw)])
    assert dl.skew(rng.normal(size=(7, 3))).shape == (7, 3, 3)


def test_angular_first_permutation_maps_to_featherstone_order(rng):
    P = dl.angular_first_permutation()
    assert_close(P @ P, np.eye(6))
    assert_close(P, P.T)
    v = rng.normal(size=6)
    assert_close(dl.to_angular_first(v), P @ v)
    assert_close(dl.from_angular_first(dl.to_angular_first(v)), v)
    # Featherstone's crm([w; v]) = [[skew(w), 0], [skew(v), skew(w)]]
    w, vo = v[3:], v[:3]
    featherstone = np.block([[dl.skew(w), np.zeros((3, 3))], [dl.skew(vo), dl.skew(w)]])
    assert_close(P @ dl.crm(v) @ P, featherstone)


def test_planar_components_of_a_planar_twist_follow_the_2d_cross_product(rng):
    v2, m2 = rng.normal(size=(2, 3))
    v, m = dl.from_planar(v2), dl.from_planar(m2)
    assert_close(dl.planar_components(v), v2)
    # planar motion cross product: [vx, vy, w] x [mx, my, n] = [w*(-my) + ... ]
    wx = v2[2]
    planar_cross = np.array([-wx * m2[1] + v2[1] * m2[2], wx * m2[0] - v2[0] * m2[2], 0.0])
    assert_close(dl.planar_components(dl.crm(v) @ m), planar_cross)
    assert_close(dl.planar_matrix(dl.crm(v)) @ m2, planar_cross)
    full = dl.crm(v) @ m
    assert np.all(np.delete(full, [0, 1, 5]) == 0)


def test_symbolic_spatial_inertia_is_exact():
    """Alexiou (2023) eq. 9 with symbols."""
    m, x, y, z = sympy.symbols("m x y z", real=True)
    Ixx, Iyy, Izz = sympy.symbols("I_xx I_yy I_zz", positive=True)
    c = np.array([x, y, z], dtype=object)
    I = dl.spatial_inertia(m, c, np.diag([Ixx, Iyy, Izz]).astype(object))
    C = dl.skew(c)
    expected = np.block([[m * np.eye(3, dtype=int), -m * C], [m * C, np.diag([Ixx, Iyy, Izz]) - m * C @ C]])
    assert_exact(I, expected)
    mass, com, I_c = dl.inertia_parameters(I)
    assert_exact(com, c)
    assert_exact(I_c, np.diag([Ixx, Iyy, Izz]))
    v = np.array(sympy.symbols("v1:7"), dtype=object)
    assert_exact(dl.crm(v) @ v, np.zeros(6, dtype=object))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dl.skew([1.0, 2.0]), r"w must have shape \(\.\.\., 3\)"),
        (lambda: dl.crm(np.zeros(5)), r"v must have shape \(\.\.\., 6\)"),
        (lambda: dl.spatial_inertia(0.0, np.zeros(3), np.eye(3)), "mass must be positive"),
        (lambda: dl.spatial_inertia(-1.0, np.zeros(3), np.eye(3)), "mass must be positive"),
        (lambda: dl.spatial_inertia(1.0, np.zeros(2), np.eye(3)), r"com must have shape \(3,\)"),
        (lambda: dl.spatial_inertia(1.0, np.zeros(3), [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "symmetric"),
        (lambda: dl.spatial_inertia(1.0, np.zeros(3), np.diag([1.0, 1.0, 0.0])), "positive definite"),
        (lambda: dl.spatial_inertia(1.0, np.zeros(3), np.diag([1.0, 1.0, 3.0])), "triangle inequality"),
        (lambda: dl.inertia_parameters(np.eye(6) * [1, 2, 3, 1, 1, 1]), "not a rigid-body spatial inertia"),
        (lambda: dl.inertia_parameters(-np.eye(6)), "positive mass"),
        (lambda: dl.skew(np.array([1j, 0, 0])), "real numbers"),
    ],
)
def test_bad_input_is_rejected_with_a_clear_message(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
