"""Angular momentum about a point: against a cloud of point masses, the shift rule, exactness."""

import numpy as np
import pytest
import sympy as sp

import dynlib as dl

from conftest import assert_close, assert_exact


def particle_cloud(rng, n=6):
    """Masses and body-frame positions of a few point masses, and their spatial inertia (body frame)."""
    masses, r = rng.uniform(0.5, 2.0, size=n), rng.normal(size=(n, 3))
    m = masses.sum()
    c = masses @ r / m
    d = r - c
    I_c = sum(mk * (dk @ dk * np.eye(3) - np.outer(dk, dk)) for mk, dk in zip(masses, d))
    return masses, r, dl.spatial_inertia(m, c, I_c)


def test_angular_momentum_is_the_sum_over_particles(rng):
    """L_x = sum m_k (x_k - x) × xdot_k for a rigid cloud moving with a random twist."""
    masses, r, I_B = particle_cloud(rng)
    R, p = dl.random_rotation(rng), rng.normal(size=3)
    I = dl.transform_inertia(dl.motion_transform(R, p), I_B)      # world frame
    v = rng.normal(size=6)
    x = p + r @ R.T                                                # particle positions
    xd = v[:3] + np.cross(v[3:], x)                                # their velocities
    for point in (None, rng.normal(size=3), x.mean(axis=0)):
        ref = np.zeros(3) if point is None else point
        expected = sum(mk * np.cross(xk - ref, xdk) for mk, xk, xdk in zip(masses, x, xd))
        assert_close(dl.angular_momentum(I, v, point), expected)


def test_shifting_the_point_is_the_force_transform(rng):
    I, v, a = dl.random_inertia(rng), rng.normal(size=6), rng.normal(size=3)
    h = dl.momentum(I, v)
    h_at_a = dl.force_transform(np.eye(3), -a) @ h                 # momentum about a (frame moved to a)
    assert_close(dl.angular_momentum(I, v, a), h_at_a[3:])
    assert_close(dl.angular_momentum(I, v, a) - dl.angular_momentum(I, v), -np.cross(a, h[:3]))


def test_about_the_centre_of_mass_it_is_the_rotational_inertia_times_omega(rng):
    I, v = dl.random_inertia(rng), rng.normal(size=6)
    m, c, I_c = dl.inertia_parameters(I)
    assert_close(dl.angular_momentum(I, v, c), I_c @ v[3:])


def test_batches_and_symbols():
    rng = np.random.default_rng(3)
    I, v, x = np.array([dl.random_inertia(rng) for _ in range(4)]), rng.normal(size=(4, 6)), rng.normal(size=(4, 3))
    batch = dl.angular_momentum(I, v, x)
    assert batch.shape == (4, 3)
    assert_close(batch[2], dl.angular_momentum(I[2], v[2], x[2]))
    m, cx, w, x0 = sp.symbols("m c_x omega x_0", positive=True)
    I_sym = dl.spatial_inertia(m, np.array([cx, 0, 0], dtype=object), np.diag([m, m, m]).astype(object))
    L = dl.angular_momentum(I_sym, np.array([0, 0, 0, 0, 0, w], dtype=object), np.array([x0, 0, 0], dtype=object))
    assert_exact(L, [0, 0, m * w + m * cx * w * (cx - x0)])


def test_bad_point_shape_is_rejected(rng):
    with pytest.raises(ValueError, match=r"point must have shape \(\.\.\., 3\)"):
        dl.angular_momentum(dl.random_inertia(rng), np.zeros(6), [1.0, 2.0])


def test_planar_body_inertia_is_the_planar_block_of_the_spatial_inertia():
    I = dl.planar_body_inertia(1.5, [0.4, -0.2], 0.3)
    expected = dl.planar_matrix(dl.spatial_inertia(1.5, [0.4, -0.2, 0.0], dl.planar_link_inertia(1.5 * 0.09)))
    assert_close(I, expected)
    assert np.isclose(I[2, 2], 1.5 * (0.09 + 0.4**2 + 0.2**2))  # I_zz about the origin (Steiner)
    with pytest.raises(ValueError, match=r"com must have shape \(2,\)"):
        dl.planar_body_inertia(1.0, [0.0, 0.0, 0.0], 0.3)
