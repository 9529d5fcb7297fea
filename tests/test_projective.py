"""Planar points and lines, the axis of percussion and the joint subspace decompositions (Alexiou 1999)."""

import numpy as np
import pytest
import sympy

import dynlib as dl

from conftest import assert_close, assert_exact


def planar_body(rng):
    """A random planar rigid body: planar 3x3 inertia about the origin, its mass, centre of mass and I_zz."""
    m, c, J = rng.uniform(0.5, 2.0), rng.normal(size=2), rng.uniform(0.1, 1.0)
    I6 = dl.spatial_inertia(m, [c[0], c[1], 0.0], dl.planar_link_inertia(J))
    return dl.planar_matrix(I6), m, c, J


def random_subspace(rng, n, k):
    return rng.normal(size=(n, k))


def dual_identity(dec):
    """[s U].T @ [T R]: the identity for a dual (pseudo-inverse or arbitrary) decomposition."""
    return np.concatenate([dec.s, dec.U], axis=1).T @ np.concatenate([dec.T, dec.R], axis=1)


# --- points, lines, incidence --------------------------------------------------------------------


def test_point_of_a_twist_is_its_instantaneous_centre(rng):
    centre, omega = rng.normal(size=2), rng.normal()
    v = dl.planar_components(dl.twist_from_screw([*centre, 0.0], [0, 0, 1], magnitude=omega))
    P = dl.point_of_twist(v)
    assert_close(P, dl.homogeneous_point(centre, omega))
    assert_close(dl.cartesian_point(P), centre)
    assert_close(dl.twist_of_point(P), v)


def test_line_of_a_wrench_is_its_line_of_action(rng):
    point, direction = rng.normal(size=(2, 2))
    force = dl.wrench_from_screw([*point, 0.0], [*direction, 0.0], magnitude=np.linalg.norm(direction))
    f = dl.planar_components(force)
    L = dl.line_of_wrench(f)
    assert_close(L, dl.homogeneous_line(point, direction))
    assert_close(dl.wrench_of_line(L), f)
    foot, e = dl.line_point_direction(L)
    assert_close(e, direction / np.linalg.norm(direction))
    assert abs(dl.incidence(dl.homogeneous_point(foot), L)) < 1e-12 * np.abs(L).max() * (1 + np.abs(foot).max())
    assert abs(foot @ e) < 1e-12 * np.abs(foot).max()  # the foot is the point nearest the origin


def test_incidence_equals_power_so_zero_power_is_a_point_on_a_line(rng):
    v, f = rng.normal(size=(2, 3))
    assert np.isclose(dl.incidence(dl.point_of_twist(v), dl.line_of_wrench(f)), v @ f, rtol=1e-12)
    centre = dl.cartesian_point(dl.point_of_twist(v))
    through = dl.wrench_of_line(dl.homogeneous_line(centre, rng.normal(size=2)))
    assert abs(v @ through) < 1e-12 * np.abs(v).max() * np.abs(through).max() * 10


def test_the_two_coordinate_choices_are_related_by_an_involution(rng):
    x = rng.normal(size=(4, 3))
    assert_close(dl.twist_of_point(dl.point_of_twist(x)), x)
    assert_close(dl.wrench_of_line(dl.line_of_wrench(x)), x)
    P, L = dl.homogeneous_point(rng.normal(size=2), 2.0), dl.homogeneous_line(*rng.normal(size=(2, 2)))
    assert np.isclose(dl.incidence(P, L), dl.twist_of_point(P) @ dl.wrench_of_line(L), rtol=1e-12)


def test_homogeneous_coordinates_are_defined_up_to_scale(rng):
    xy = rng.normal(size=2)
    assert_close(dl.cartesian_point(dl.homogeneous_point(xy, -3.5)), xy)
    L = dl.homogeneous_line(*rng.normal(size=(2, 2)))
    foot, e = dl.line_point_direction(L)
    foot2, e2 = dl.line_point_direction(-2.5 * L)
    assert_close(foot2, foot)
    assert_close(e2, -e)  # the same line, the opposite orientation


# --- inertia as a map from points to lines --------------------------------------------------------


def test_an_impulse_along_the_percussion_axis_leaves_the_pivot_at_rest(rng):
    I, m, c, J = planar_body(rng)
    pivot = rng.normal(size=2)
    impulse = dl.wrench_of_line(dl.percussion_axis(I, pivot))
    dv = np.linalg.solve(I, impulse)  # response of the free body at rest
    assert_close(dl.cartesian_point(dl.point_of_twist(dv)), pivot)
    velocity_of_pivot = dv[:2] + dv[2] * np.array([-pivot[1], pivot[0]])
    assert_close(velocity_of_pivot, np.zeros(2), scale=np.abs(dv).max() * (1 + np.abs(pivot).max()))


def test_percussion_axis_lies_rho_squared_over_a_beyond_the_centre_of_mass(rng):
    I, m, c, J = planar_body(rng)
    pivot = rng.normal(size=2)
    foot, e = dl.line_point_direction(dl.percussion_axis(I, pivot))
    a = np.linalg.norm(c - pivot)
    u = (c - pivot) / a  # from the pivot through the centre of mass
    assert abs(e @ u) < 1e-12  # perpendicular to the pivot-centre line
    assert np.isclose((foot - c) @ u, J / m / a, rtol=1e-12)


def test_percussion_axis_accepts_spatial_inertia(rng):
    I, m, c, J = planar_body(rng)
    I6 = dl.spatial_inertia(m, [c[0], c[1], 0.0], dl.planar_link_inertia(J))
    pivot = rng.normal(size=2)
    assert_close(dl.percussion_axis(I6, pivot), dl.percussion_axis(I, pivot))


def test_uniform_rod_pivoted_at_an_end_has_its_sweet_spot_at_two_thirds():
    m, ell = sympy.symbols("m ell", positive=True)
    I = dl.spatial_inertia(m, [ell / 2, 0, 0], dl.planar_link_inertia(m * ell**2 / 12))
    foot, e = dl.line_point_direction(dl.percussion_axis(I, [0, 0]))
    assert_exact(foot, np.array([2 * ell / 3, 0], dtype=object))
    assert_exact(e, np.array([0, 1], dtype=object))


def test_the_inertia_map_is_symmetric_so_percussion_is_reciprocal(rng):
    """P1 lies on the axis of P2 exactly when P2 lies on the axis of P1."""
    I = planar_body(rng)[0]
    C = dl.inertia_point_line_map(I)
    assert_close(C, C.T)
    P1, P2 = dl.homogeneous_point(rng.normal(size=(2, 2)))
    assert np.isclose(dl.incidence(P1, C @ P2), dl.incidence(P2, C @ P1), rtol=1e-12)
    assert_close(C @ P1, dl.line_of_wrench(I @ dl.twist_of_point(P1)))


def test_a_pivot_at_the_centre_of_mass_has_its_axis_at_infinity(rng):
    I, m, c, J = planar_body(rng)
    L = dl.percussion_axis(I, c)
    assert_close(L[1:], np.zeros(2), scale=np.abs(L).max())
    with pytest.raises(ValueError, match="line at infinity"):
        dl.line_point_direction(L)


# --- subspace decompositions ---------------------------------------------------------------------


@pytest.mark.parametrize("n, k", [(6, 1), (6, 2), (6, 3), (6, 5), (6, 6), (3, 1), (3, 2)])
def test_pseudo_inverse_decomposition_identities(rng, n, k):
    I = dl.random_inertia(rng) if n == 6 else planar_body(rng)[0]
    dec = dl.subspace_decomposition(random_subspace(rng, n, k), I)
    s, U, T, R = dec
    assert_close(R.T @ s, np.zeros((n - k, k)), scale=np.abs(s).max())
    assert_close(R.T @ U, np.eye(n - k))
    assert_close(s.T @ T, np.eye(k))
    assert_close(U.T @ T, np.zeros((n - k, k)), scale=np.abs(U).max(initial=1) * np.abs(T).max())
    assert_close(s.T @ R, np.zeros((k, n - k)), scale=np.abs(s).max())
    assert_close(s @ T.T + U @ R.T, np.eye(n))  # on motion space
    assert_close(T @ s.T + R @ U.T, np.eye(n))  # on force space


def test_pseudo_inverse_formulas(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 2)
    s, U, T, R = dl.subspace_decomposition(s, I)
    I_inv = np.linalg.inv(I)  # test oracle only
    assert_close(T, I @ s @ np.linalg.inv(s.T @ I @ s))
    assert_close(U, I_inv @ R @ np.linalg.inv(R.T @ I_inv @ R))


def test_printed_T_without_the_inverse_breaks_s_T_T(rng):
    """Erratum: the slides print T = I s (s^T I s); then s^T T = (s^T I s)^2, not 1."""
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 1)
    printed = I @ s @ (s.T @ I @ s)
    assert not np.allclose(s.T @ printed, 1.0)
    assert_close(s.T @ dl.subspace_decomposition(s, I).T, np.eye(1))


def test_components_round_trip(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 2)
    dec = dl.subspace_decomposition(s, I)
    a, f = rng.normal(size=(2, 6))
    psi, gamma = dl.motion_components(dec, a)
    Q, mu = dl.force_components(dec, f)
    assert_close(dec.s @ psi + dec.U @ gamma, a)
    assert_close(dec.T @ Q + dec.R @ mu, f)
    assert_close(Q, s.T @ f)
    batch = rng.normal(size=(3, 6))
    assert_close(dl.motion_components(dec, batch)[0], batch @ dec.T)


def test_inertia_maps_active_to_active_and_reactive_to_reactions(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 2)
    s, U, T, R = dl.subspace_decomposition(s, I)
    D_s, D_R = s.T @ I @ s, np.linalg.inv(R.T @ np.linalg.solve(I, R))
    assert_close(I @ s, T @ D_s)
    assert_close(I @ U, R @ D_R)  # reactive accelerations need reaction forces only
    assert_close(s.T @ I @ U, np.zeros((2, 4)), scale=np.abs(I).max() * np.abs(U).max())
    assert_close(T @ D_s @ T.T + R @ D_R @ R.T, I)  # inertia decomposition
    assert_close(s @ np.linalg.inv(D_s) @ s.T + U @ np.linalg.inv(D_R) @ U.T, np.linalg.inv(I))  # mobility


def test_kinetic_energy_splits_into_active_and_reactive_parts(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 3)
    dec = dl.subspace_decomposition(s, I)
    v = rng.normal(size=6)
    psi, gamma = dl.motion_components(dec, v)
    parts = psi @ (dec.s.T @ I @ dec.s) @ psi + gamma @ (dec.U.T @ I @ dec.U) @ gamma
    assert np.isclose(v @ I @ v, parts, rtol=1e-12)


def test_basic_decomposition_is_the_pseudo_inverse_before_normalising(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 2)
    basic, pinv = dl.basic_decomposition(s, I), dl.subspace_decomposition(s, I)
    assert_close(basic.T, I @ s)
    assert_close(I @ basic.U, basic.R)
    assert_close(basic.T, pinv.T @ (s.T @ I @ s))
    assert_close(basic.U, pinv.U @ (basic.R.T @ basic.U))
    assert_close(basic.U.T @ basic.T, np.zeros((4, 2)), scale=np.abs(basic.U).max() * np.abs(basic.T).max())
    assert not np.allclose(s.T @ basic.T, np.eye(2))


def test_any_reaction_basis_gives_the_same_projectors(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 2)
    ref = dl.subspace_decomposition(s, I)
    G, H = rng.normal(size=(4, 4)), rng.normal(size=(2, 2))
    dec = dl.subspace_decomposition(s @ H, I, ref.R @ G)
    assert_close(dual_identity(dec), np.eye(6))
    assert_close(dec.s @ dec.T.T, ref.s @ ref.T.T)
    assert_close(dec.U @ dec.R.T, ref.U @ ref.R.T)


def test_dual_decomposition_of_an_arbitrary_complement(rng):
    s, U = random_subspace(rng, 6, 2), rng.normal(size=(6, 4))
    dec = dl.dual_decomposition(s, U)
    assert_close(dual_identity(dec), np.eye(6))
    assert_close(dec.s @ dec.T.T + dec.U @ dec.R.T, np.eye(6))


def test_pseudo_inverse_is_the_dual_of_its_own_reactive_accelerations(rng):
    I, s = dl.random_inertia(rng), random_subspace(rng, 6, 3)
    ref = dl.subspace_decomposition(s, I)
    dec = dl.dual_decomposition(ref.s, ref.U)
    assert_close(dec.T, ref.T)
    assert_close(dec.R, ref.R)


def test_reaction_subspace_is_orthonormal_and_powerless(rng):
    s = random_subspace(rng, 6, 2)
    R = dl.reaction_subspace(s)
    assert R.shape == (6, 4)
    assert_close(R.T @ R, np.eye(4))
    assert_close(R.T @ s, np.zeros((4, 2)), scale=np.abs(s).max())


def test_decomposition_identities_hold_exactly_with_sympy():
    """A planar body hinged at the origin, with symbolic mass, centre of mass and inertia."""
    m, J = sympy.symbols("m J", positive=True)
    cx, cy = sympy.symbols("c_x c_y", real=True)
    I = dl.planar_matrix(dl.spatial_inertia(m, [cx, cy, 0], dl.planar_link_inertia(J)))
    s, U, T, R = dl.subspace_decomposition(np.array([0, 0, 1]), I)
    assert_exact(R.T @ s, np.zeros((2, 1), dtype=object))
    assert_exact(R.T @ U, np.eye(2, dtype=object))
    assert_exact(s.T @ T, np.eye(1, dtype=object))
    assert_exact(U.T @ T, np.zeros((2, 1), dtype=object))
    assert_exact(s @ T.T + U @ R.T, np.eye(3, dtype=object))
    assert_exact(T @ s.T + R @ U.T, np.eye(3, dtype=object))
    # T is the axis of percussion of the hinge, scaled to unit power on s
    assert_exact(dl.line_of_wrench(T[:, 0]) * (J + m * (cx**2 + cy**2)), dl.percussion_axis(I, [0, 0]))


# --- projected equations of a body in a chain ----------------------------------------------------


def test_projected_equations_reproduce_newton_euler_along_a_chain(rng):
    model = dl.random_tree(4, rng, kinds=["revolute", "prismatic", "spherical", "helical"], branching=0.0)
    q, qd, qdd = dl.random_configuration(model, rng), dl.random_velocity(model, rng), dl.random_velocity(model, rng)
    kin = dl.forward_kinematics(model, q, qd, qdd)
    n = model.n_bodies
    inertias = [dl.transform_inertia(dl.motion_transform(kin.R[i], kin.p[i]), model.inertias[i]) for i in range(n)]
    f_tip = rng.normal(size=6)  # a load on the last body, as if from a further child
    f = [None] * n
    for i in reversed(range(n)):  # f_i = f_{i+1} + I_i a_i + p_i
        f_next = f[i + 1] if i + 1 < n else f_tip
        f[i] = f_next + inertias[i] @ kin.a[i] + dl.crf(kin.v[i]) @ inertias[i] @ kin.v[i]
    for i in range(n):
        vs = model.v_slices[i]
        a_prev = kin.a[i - 1] if i else np.zeros(6)
        kappa = dl.crm(kin.v[i]) @ kin.s[i] @ qd[vs]
        p = dl.crf(kin.v[i]) @ inertias[i] @ kin.v[i]
        f_next = f[i + 1] if i + 1 < n else f_tip
        dec = dl.subspace_decomposition(kin.s[i], inertias[i])
        Q = kin.s[i].T @ f[i]
        args = (dec, inertias[i], a_prev, kappa, Q, p, f_next)
        assert_close(dl.projected_acceleration(*args), kin.a[i], rtol=1e-9)
        assert_close(dl.projected_force(*args), f[i], rtol=1e-9)


def test_car_cornering_matches_the_printed_reaction_formula():
    """Alexiou (1999) "Planar Example": exact, with the tyre reactions pointing away from the turning centre."""
    L, d, eps, rho, m, w, F_A = sympy.symbols("L d epsilon rho m omega F_A", positive=True)
    S = sympy.sqrt(L**2 + d**2)
    I = dl.planar_matrix(dl.spatial_inertia(m, [(1 - eps) * L, 0, 0], dl.planar_link_inertia(m * rho**2)))
    C = np.array([0, d], dtype=object)  # turning centre on the rear axle line
    rear, front = np.array([0, 0], dtype=object), np.array([L, 0], dtype=object)
    s = dl.twist_of_point(dl.homogeneous_point(C))
    R = np.stack([dl.wrench_of_line(dl.homogeneous_line(rear, rear - C)) / d,
                  dl.wrench_of_line(dl.homogeneous_line(front, front - C)) / S], axis=1)
    dec = dl.subspace_decomposition(s, I, R)
    v = s * w
    p = dl.planar_matrix(dl.crf(dl.from_planar(v))) @ I @ v
    f_A = F_A * dl.wrench_of_line(dl.homogeneous_line(front, np.array([d, L], dtype=object))) / S
    zero = np.zeros(3, dtype=object)
    f = dl.projected_force(dec, I, zero, zero, np.array([0]), p, -f_A)
    Q, mu = dl.force_components(dec, f)
    den = rho**2 + d**2 + (1 - eps) ** 2 * L**2
    printed = [
        -(eps * (1 - eps) * L**2 - rho**2) / den * S / L * F_A - eps * d * m * w**2,
        (eps * (2 - eps) * L**2 - rho**2) / den * d / L * F_A - m * w**2 * (1 - eps) * S,
    ]
    assert_exact(Q, np.array([0], dtype=object))
    assert_exact(mu, np.array(printed, dtype=object))


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "s, I, R, match",
    [
        (np.zeros(6), np.eye(6), None, "full column rank"),
        (np.ones((6, 2)), np.eye(6), None, "full column rank 2"),
        (np.ones((6, 7)), np.eye(6), None, r"shape \(n, k\)"),
        (np.eye(6)[:, :1], np.eye(3), None, r"I must have shape \(6, 6\)"),
        (np.eye(6)[:, :1], -np.eye(6), None, "positive definite"),
        (np.eye(6)[:, :1], np.triu(np.ones((6, 6))), None, "symmetric"),
        (np.eye(6)[:, :1], np.eye(6), np.eye(6)[:, :5], "no work"),
        (np.eye(6)[:, :1], np.eye(6), np.eye(6)[:, 1:4], r"R must have shape \(6, 5\)"),
        (np.array([[np.nan], [0], [1]]), np.eye(3), None, "finite"),
    ],
)
def test_bad_decomposition_input_is_rejected(s, I, R, match):
    with pytest.raises(ValueError, match=match):
        dl.subspace_decomposition(s, I, R)


def test_bad_planar_input_is_rejected():
    with pytest.raises(ValueError, match="point at infinity"):
        dl.cartesian_point([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"shape \(\.\.\., 3\)"):
        dl.point_of_twist(np.zeros(6))
    with pytest.raises(ValueError, match=r"I must have shape \(3, 3\)"):
        dl.percussion_axis(np.eye(4), [0.0, 0.0])
    with pytest.raises(ValueError, match="positive definite"):
        dl.percussion_axis(-np.eye(3), [0.0, 0.0])
    with pytest.raises(TypeError, match="real numbers"):
        dl.homogeneous_point(["a", "b"])
    with pytest.raises(ValueError, match="basis of motion space"):
        dl.dual_decomposition(np.eye(6)[:, :2], np.eye(6)[:, 1:5])


def test_bad_chain_input_is_rejected(rng):
    I = dl.random_inertia(rng)
    dec = dl.subspace_decomposition(np.eye(6)[:, 5], I)
    zero = np.zeros(6)
    with pytest.raises(ValueError, match=r"Q must have shape \(\.\.\., 1\)"):
        dl.projected_force(dec, I, zero, zero, np.zeros(2), zero, zero)
    with pytest.raises(ValueError, match=r"f_next must have shape \(\.\.\., 6\)"):
        dl.projected_acceleration(dec, I, zero, zero, np.zeros(1), zero, np.zeros(3))
