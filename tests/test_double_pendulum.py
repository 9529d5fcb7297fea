"""A compound double pendulum against its Lagrangian derived independently with sympy."""

import numpy as np
import sympy as sp

import dynlib as dl

from conftest import assert_close, assert_exact

m1, m2, l1, l2, g = sp.symbols("m1 m2 l1 l2 g", positive=True)
t = sp.Symbol("t")
th1, th2 = sp.Function("theta1")(t), sp.Function("theta2")(t)


def lagrange_equations():
    """tau = d/dt dL/dqd - dL/dq for two uniform rods, from centre-of-mass velocities."""
    c1 = sp.Matrix([l1 / 2 * sp.cos(th1), l1 / 2 * sp.sin(th1)])
    c2 = sp.Matrix([l1 * sp.cos(th1) + l2 / 2 * sp.cos(th1 + th2), l1 * sp.sin(th1) + l2 / 2 * sp.sin(th1 + th2)])
    w1, w2 = th1.diff(t), th1.diff(t) + th2.diff(t)
    kinetic = (m1 * c1.diff(t).dot(c1.diff(t)) + m2 * c2.diff(t).dot(c2.diff(t))) / 2
    kinetic += (m1 * l1**2 / 12 * w1**2 + m2 * l2**2 / 12 * w2**2) / 2
    potential = g * (m1 * c1[1] + m2 * c2[1])
    lagrangian = kinetic - potential
    return [sp.diff(lagrangian.diff(th.diff(t)), t) - lagrangian.diff(th) for th in (th1, th2)]


def test_rnea_is_exactly_the_lagrangian_equations():
    model = dl.double_pendulum((m1, m2), (l1, l2), gravity=(0, -g, 0))
    q = np.array([th1, th2], dtype=object)
    qd = np.array([th1.diff(t), th2.diff(t)], dtype=object)
    qdd = np.array([th1.diff(t, 2), th2.diff(t, 2)], dtype=object)
    assert_exact(dl.rnea(model, q, qd, qdd), lagrange_equations())


def test_closed_form_mass_matrix_and_numeric_regression():
    """H = [[m1 l1^2/3 + m2 (l1^2 + l2^2/3 + l1 l2 cos q2), ...]] at a fixed state, to 12 digits."""
    masses, lengths = (1.3, 0.7), (0.9, 1.1)
    model = dl.double_pendulum(masses, lengths)
    q, qd, tau = np.array([0.4, -1.1]), np.array([0.3, 2.0]), np.array([0.5, -0.2])
    (a1, a2), (L1, L2) = masses, lengths
    c2 = np.cos(q[1])
    H = np.array(
        [
            [a1 * L1**2 / 3 + a2 * (L1**2 + L2**2 / 3 + L1 * L2 * c2), a2 * (L2**2 / 3 + L1 * L2 * c2 / 2)],
            [a2 * (L2**2 / 3 + L1 * L2 * c2 / 2), a2 * L2**2 / 3],
        ]
    )
    assert_close(dl.crba(model, q), H, rtol=1e-13)
    subs = {m1: masses[0], m2: masses[1], l1: lengths[0], l2: lengths[1], g: 9.81}
    values = {th1.diff(t, 2): sp.Symbol("a1"), th2.diff(t, 2): sp.Symbol("a2")}
    equations = [e.subs(values).subs({th1.diff(t): qd[0], th2.diff(t): qd[1]}).subs({th1: q[0], th2: q[1]})
                 for e in lagrange_equations()]
    solution = sp.solve([sp.Eq(e.subs(subs), tau_k) for e, tau_k in zip(equations, tau)], sp.symbols("a1 a2"))
    expected = [float(solution[sp.Symbol("a1")]), float(solution[sp.Symbol("a2")])]
    assert_close(dl.aba(model, q, qd, tau), expected, rtol=1e-12)
