"""Rotation matrices and scalar-last quaternions (Joint Motion note eqs. 2b, 2c, 5)."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact


def test_quaternion_rotation_is_proper_orthogonal(rng):
    R = dl.rotation_from_quaternion(dl.random_quaternion(rng))
    assert_close(R.T @ R, np.eye(3), rtol=1e-14)
    assert np.isclose(np.linalg.det(R), 1.0)


def test_eq_2c_is_the_printed_matrix_with_scalar_last():
    a, b, c, d = sympy.symbols("a b c d", real=True)
    printed = np.array(
        [
            [a**2 - b**2 - c**2 + d**2, 2 * (a * b - c * d), 2 * (a * c + b * d)],
            [2 * (a * b + c * d), -(a**2) + b**2 - c**2 + d**2, 2 * (b * c - a * d)],
            [2 * (a * c - b * d), 2 * (b * c + a * d), -(a**2) - b**2 + c**2 + d**2],
        ],
        dtype=object,
    )
    assert_exact(dl.rotation_from_quaternion(np.array([a, b, c, d], dtype=object)), printed)


def test_eq_2b_rodrigues_matches_the_quaternion_of_the_same_rotation(rng):
    axis, angle = dl.unit_axis(rng.normal(size=3)), 1.234
    q = dl.quaternion_from_rotation_vector(angle * axis)
    assert_close(dl.rotation_from_quaternion(q), dl.rotation_about_axis(axis, angle), rtol=1e-14)
    theta = sympy.Symbol("theta", real=True)
    rz = np.array([[sympy.cos(theta), -sympy.sin(theta), 0], [sympy.sin(theta), sympy.cos(theta), 0], [0, 0, 1]])
    assert_exact(dl.rotation_about_axis([0, 0, 1], theta), rz)


def test_hamilton_product_composes_rotations(rng):
    q1, q2 = dl.random_quaternion(rng), dl.random_quaternion(rng)
    R12 = dl.rotation_from_quaternion(dl.quaternion_multiply(q1, q2))
    assert_close(R12, dl.rotation_from_quaternion(q1) @ dl.rotation_from_quaternion(q2), rtol=1e-13)
    identity = dl.quaternion_multiply(q1, dl.quaternion_conjugate(q1))
    assert_close(identity, [0, 0, 0, 1], rtol=1e-14)


@pytest.mark.parametrize("angle", [0.0, 0.5, np.pi / 2, np.pi - 1e-9, np.pi])
def test_quaternion_from_rotation_round_trip(rng, angle):
    for axis in ([1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0], rng.normal(size=3)):
        R = dl.rotation_about_axis(axis, angle)
        q = dl.quaternion_from_rotation(R)
        assert q[3] >= 0 and np.isclose(q @ q, 1)
        assert_close(dl.rotation_from_quaternion(q), R, rtol=1e-12)


def test_eq_5_quaternion_rate_gives_the_body_angular_velocity_exactly():
    """With dq/dt = E(q) Omega / 2, dR/dt = R skew(Omega): Omega lives in the child frame."""
    a, b, c = sympy.symbols("a b c", real=True)
    d = sympy.sqrt(1 - a**2 - b**2 - c**2)
    q = np.array([a, b, c, d], dtype=object)
    Omega = np.array(sympy.symbols("W1:4", real=True), dtype=object)
    q_dot = dl.quaternion_rate_matrix(q) @ Omega / 2
    R = dl.rotation_from_quaternion(q)
    # dR/dt by the chain rule over the independent components a, b, c (d follows from |q| = 1)
    R_dot = sum(np.vectorize(lambda e, s=s: sympy.diff(e, s))(R) * q_dot[k] for k, s in enumerate((a, b, c)))
    assert_exact(R_dot, R @ dl.skew(Omega))
    # ...and the d component of eq. 5 is the derivative of sqrt(1 - a^2 - b^2 - c^2)
    d_dot = sum(sympy.diff(d, s) * q_dot[k] for k, s in enumerate((a, b, c)))
    assert_exact(d_dot, q_dot[3])


def test_unit_quaternions_are_checked_not_silently_normalised():
    with pytest.raises(ValueError, match="must be a unit quaternion"):
        dl.rotation_from_quaternion([0, 0, 0.7071, 0.7071])
    q = dl.normalize_quaternion([0, 0, 0.7071, 0.7071])
    assert np.isclose(np.linalg.norm(q), 1)
    with pytest.raises(ValueError, match="zero quaternion"):
        dl.normalize_quaternion(np.zeros(4))
    with pytest.raises(ValueError, match="non-zero"):
        dl.rotation_about_axis([0, 0, 0], 1.0)
