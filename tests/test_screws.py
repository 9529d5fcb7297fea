"""Screws: construction, axis recovery, pitch, reciprocity and line coordinates (Alexiou 1999)."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact


def closest_point(point, direction):
    e = direction / np.linalg.norm(direction)
    return point - (point @ e) * e


@pytest.mark.parametrize("pitch", [0.0, 0.3, -1.5])
def test_twist_axis_round_trip(rng, pitch):
    point, direction = rng.normal(size=(2, 3))
    v = dl.twist_from_screw(point, direction, pitch, magnitude=2.5)
    s = dl.screw_of_twist(v)
    assert_close(s.point, closest_point(point, direction))
    assert_close(s.direction, direction / np.linalg.norm(direction))
    assert np.isclose(s.pitch, pitch, rtol=1e-12, atol=1e-12) and np.isclose(s.magnitude, 2.5)
    assert_close(dl.twist_from_screw(*s), v)


@pytest.mark.parametrize("pitch", [0.0, 0.7])
def test_wrench_axis_round_trip(rng, pitch):
    point, direction = rng.normal(size=(2, 3))
    f = dl.wrench_from_screw(point, direction, pitch, magnitude=4.0)
    s = dl.screw_of_wrench(f)
    assert_close(s.point, closest_point(point, direction))
    assert np.isclose(s.pitch, pitch, atol=1e-12) and np.isclose(s.magnitude, 4.0)
    assert_close(dl.wrench_from_screw(*s), f)


def test_infinite_pitch_is_a_pure_translation_or_couple(rng):
    direction = rng.normal(size=3)
    e = direction / np.linalg.norm(direction)
    v = dl.twist_from_screw(rng.normal(size=3), direction, np.inf, magnitude=3.0)
    assert_close(v, np.concatenate([3 * e, np.zeros(3)]))
    s = dl.screw_of_twist(v)
    assert np.isinf(s.pitch) and np.isclose(s.magnitude, 3.0)
    assert_close(s.direction, e)
    f = dl.wrench_from_screw(None, direction, np.inf, magnitude=2.0)
    assert_close(f, np.concatenate([np.zeros(3), 2 * e]))
    assert np.isinf(dl.screw_of_wrench(f).pitch)


def test_the_velocity_of_points_on_the_axis_is_along_the_axis(rng):
    """Every point of a twist's screw axis moves along it at pitch × angular speed."""
    v = rng.normal(size=6)
    s = dl.screw_of_twist(v)
    for t in (-1.0, 0.0, 2.0):
        x = s.point + t * s.direction
        velocity = v[:3] + np.cross(v[3:], x)
        assert_close(velocity, s.pitch * v[3:])


def test_screw_axes_move_with_the_frame(rng):
    v = rng.normal(size=6)
    R, p = dl.random_rotation(rng), rng.normal(size=3)
    s, moved = dl.screw_of_twist(v), dl.screw_of_twist(dl.motion_transform(R, p) @ v)
    assert np.isclose(moved.pitch, s.pitch) and np.isclose(moved.magnitude, s.magnitude)
    assert_close(moved.direction, R @ s.direction)
    assert_close(moved.point, closest_point(R @ s.point + p, R @ s.direction))


def test_reciprocal_product_formula(rng):
    """(h_a + h_b) cos(alpha) - d sin(alpha) for unit screws along a common normal."""
    h_a, h_b, d, alpha = 0.4, -0.25, 1.3, 0.8
    a = dl.twist_from_screw([0, 0, 0], [0, 0, 1], h_a)
    b = dl.twist_from_screw([d, 0, 0], [0, -np.sin(alpha), np.cos(alpha)], h_b)
    assert np.isclose(dl.reciprocal_product(a, b), (h_a + h_b) * np.cos(alpha) - d * np.sin(alpha))
    # invariant under a change of frame
    R, p = dl.random_rotation(rng), rng.normal(size=3)
    X = dl.motion_transform(R, p)
    assert np.isclose(dl.reciprocal_product(X @ a, X @ b), dl.reciprocal_product(a, b))


def test_power_is_the_reciprocal_product_with_the_wrench_axis(rng):
    v, f = rng.normal(size=(2, 6))
    assert np.isclose(v @ f, dl.reciprocal_product(v, np.concatenate([f[3:], f[:3]])))


def test_a_force_on_the_axis_of_a_pure_rotation_does_no_work(rng):
    point, e = rng.normal(size=(2, 3))
    twist = dl.twist_from_screw(point, e)
    through_axis = dl.wrench_from_screw(point, rng.normal(size=3))
    assert np.isclose(twist @ through_axis, 0, atol=1e-12)


def test_line_coordinates(rng):
    p1, p2 = rng.normal(size=(2, 3))
    L = dl.line_through_points(p1, p2)
    assert np.isclose(L[:3] @ L[3:], 0, atol=1e-12)  # Klein quadric: a line has zero pitch
    assert np.isclose(np.linalg.norm(L[:3]), 1)
    assert_close(L, dl.line_coordinates(p2, p2 - p1))
    assert_close(L, dl.wrench_from_screw(p1, p2 - p1, 0))
    # Alexiou (2023) eq. 30: a vertical line through (2L, 0) has planar coordinates (0, 1, 2L)
    assert_close(dl.planar_components(dl.line_coordinates([2.0, 0, 0], [0, 1, 0])), [0, 1, 2])


def test_symbolic_screws_are_exact():
    L, h, w = sympy.symbols("L h omega", positive=True)
    v = dl.twist_from_screw(np.array([L, 0, 0], dtype=object), [0, 0, 1], h, w)
    assert_exact(v, np.array([0, -L * w, h * w, 0, 0, w], dtype=object))
    s = dl.screw_of_twist(v)
    assert_exact(s.point, np.array([L, 0, 0], dtype=object))
    assert sympy.simplify(s.pitch - h) == 0 and sympy.simplify(s.magnitude - w) == 0


def test_zero_screws_are_rejected():
    with pytest.raises(ValueError, match="zero twist has no screw axis"):
        dl.screw_of_twist(np.zeros(6))
    with pytest.raises(ValueError, match="zero wrench"):
        dl.screw_of_wrench(np.zeros(6))
    with pytest.raises(ValueError, match="direction must be a finite non-zero"):
        dl.twist_from_screw([0, 0, 0], [0, 0, 0])


def random_pencil(rng):
    """Two random twists spanning a pencil."""
    a, b = rng.normal(size=(2, 6))
    return a, b


def common_normal(a, b):
    """Centre (where the principal axes cross) and unit direction of the cylindroid's normal."""
    _, S = dl.principal_screws(a, b)
    s1, s2 = dl.screw_of_twist(S[0]), dl.screw_of_twist(S[1])
    t, *_ = np.linalg.lstsq(np.stack([s1.direction, -s2.direction], axis=1), s2.point - s1.point)
    n = np.cross(s1.direction, s2.direction)
    return s1, s2, s1.point + t[0] * s1.direction, n / np.linalg.norm(n)


def offset_along_normal(screw, centre, n):
    """Where an axis meets the normal line (signed distance from the centre) and how far it misses."""
    d = screw.point - centre
    z = d @ n
    miss = np.linalg.norm(np.cross(d - z[..., None] * n, screw.direction), axis=-1)
    return z, miss


def test_principal_screws_meet_at_right_angles_on_the_common_normal(rng):
    a, b = random_pencil(rng)
    s1, s2, centre, n = common_normal(a, b)
    assert np.isclose(s1.direction @ s2.direction, 0, atol=1e-10)
    # the two principal axes intersect (coplanar and not parallel)
    assert np.isclose((s2.point - s1.point) @ n, 0, atol=1e-10 * (1 + np.linalg.norm(s1.point)))
    # a, b and every screw of the pencil cross the normal line at right angles
    for x in (a, b, 0.3 * a - 2.0 * b):
        s = dl.screw_of_twist(x)
        assert np.isclose(s.direction @ n, 0, atol=1e-10)
        assert np.isclose(offset_along_normal(s, centre, n)[1], 0, atol=1e-9)


def test_principal_pitches_bound_every_pitch_of_the_pencil(rng):
    a, b = random_pencil(rng)
    h, S = dl.principal_screws(a, b)
    theta = np.linspace(0, np.pi, 721)
    pitches = dl.cylindroid(a, b, theta).pitch
    assert np.all(pitches >= h[0] - 1e-12) and np.all(pitches <= h[1] + 1e-12)
    assert np.isclose(pitches.min(), h[0], rtol=1e-4, atol=1e-5)
    assert np.isclose(pitches.max(), h[1], rtol=1e-4, atol=1e-5)
    assert_close([dl.screw_of_twist(x).pitch for x in S], h)


def test_cylindroid_pitch_against_position_on_the_normal_is_a_circle(rng):
    """(h - (h1 + h2)/2)**2 + z**2 = ((h2 - h1)/2)**2 along the common normal."""
    a, b = random_pencil(rng)
    h, _ = dl.principal_screws(a, b)
    _, _, centre, n = common_normal(a, b)
    screws = dl.cylindroid(a, b, np.linspace(0, np.pi, 50))
    z, miss = offset_along_normal(screws, centre, n)
    assert_close(miss, np.zeros(50), scale=1.0)
    assert_close((screws.pitch - h.mean()) ** 2 + z**2, np.full(50, ((h[1] - h[0]) / 2) ** 2))
    assert_close(screws.direction @ n, np.zeros(50), scale=1.0)


def test_principal_screws_recover_a_known_cylindroid(rng):
    h_a, h_b = 0.15, -0.35
    R, p = dl.random_rotation(rng), rng.normal(size=3)
    X = dl.motion_transform(R, p)
    a = X @ dl.twist_from_screw([0, 0, 0], [1, 0, 0], h_a)
    b = X @ dl.twist_from_screw([0, 0, 0], [0, 1, 0], h_b)
    pitches, S = dl.principal_screws(2 * a + b, a - 3 * b)
    assert_close(pitches, [h_b, h_a])
    assert_close(abs(S[1] @ np.concatenate([np.zeros(3), R[:, 0]])), 1.0)
    for twist in S:  # both principal axes pass through the moved origin p
        axis = dl.screw_of_twist(twist)
        assert_close(np.cross(p - axis.point, axis.direction), np.zeros(3), scale=np.linalg.norm(p))


def test_cylindroid_matches_the_classical_formula_exactly():
    """Principal screws along x and y: h = h_a cos^2 + h_b sin^2, z = (h_b - h_a) sin cos."""
    h_a, h_b, theta = sympy.symbols("h_a h_b theta", real=True)
    a = dl.twist_from_screw([0, 0, 0], [1, 0, 0], h_a)
    b = dl.twist_from_screw([0, 0, 0], [0, 1, 0], h_b)
    s = dl.cylindroid(a, b, theta)
    c, si = sympy.cos(theta), sympy.sin(theta)
    assert_exact(sympy.trigsimp(s.pitch), h_a * c**2 + h_b * si**2)
    point = np.array([sympy.trigsimp(x) for x in s.point], dtype=object)
    assert_exact(point, np.array([0, 0, (h_b - h_a) * si * c], dtype=object))


def test_cylindroid_of_one_angle_is_the_screw_of_the_combination(rng):
    a, b = random_pencil(rng)
    s = dl.cylindroid(a, b, 0.7)
    t = dl.screw_of_twist(np.cos(0.7) * a + np.sin(0.7) * b)
    assert_close(s.point, t.point)
    assert np.isclose(s.pitch, t.pitch, rtol=1e-12)
    batch = dl.cylindroid(a, b, [0.7])
    assert batch.point.shape == (1, 3) and batch.pitch.shape == (1,)


def test_principal_screws_reject_parallel_axes():
    a = dl.twist_from_screw([0, 0, 0], [0, 0, 1], 0.2)
    b = dl.twist_from_screw([1, 0, 0], [0, 0, 2], 0.0)
    with pytest.raises(ValueError, match="must not be parallel"):
        dl.principal_screws(a, b)
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        dl.cylindroid(a[:3], b, 0.1)


def test_principal_screws_have_unit_angular_velocity_with_a_fixed_sign(rng):
    a, b = random_pencil(rng)
    _, S = dl.principal_screws(a, b)
    _, S_flipped = dl.principal_screws(-a, 2 * b)  # same pencil, another basis
    assert_close(np.linalg.norm(S[:, 3:], axis=1), [1, 1])
    assert np.all(S[np.arange(2), 3 + np.argmax(np.abs(S[:, 3:]), axis=1)] > 0)
    assert_close(S_flipped, S)
