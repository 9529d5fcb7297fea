"""Integrators, energy conservation within stated bounds, and impacts resolved by impulse propagation."""

import numpy as np
import pytest

import dynlib as dl
from dynlib.algorithms.simulation import _chart_rate, step_explicit_euler

from conftest import assert_close


def spinning_top():
    inertia = dl.spatial_inertia(1.0, [0, 0, 0.5], np.diag([0.05, 0.05, 0.02]))
    return dl.Model((-1,), (dl.spherical(),), np.array([np.eye(4)]), np.array([inertia]), (0, 0, -9.81))


def test_rk4_conserves_energy_of_an_unforced_double_pendulum():
    """Stated bound: |E(t) - E(0)| < 1e-4 |E| over 5 s with dt = 0.01 s."""
    model = dl.double_pendulum()
    tr = dl.simulate(model, [0.3, 0.5], [0.0, 0.0], 5.0, 0.01)
    assert np.abs(tr.energy - tr.energy[0]).max() < 1e-4 * np.abs(tr.energy).max()


def test_rk4_conserves_energy_of_a_random_tree_with_quaternions():
    model = dl.random_tree(5, 4, kinds=["spherical", "revolute", "free", "helical"], branching=0.5)
    rng = np.random.default_rng(0)
    tr = dl.simulate(model, dl.random_configuration(model, rng), rng.normal(size=model.nv), 1.0, 0.002)
    assert np.abs(tr.energy - tr.energy[0]).max() < 1e-5 * np.abs(tr.energy).max()
    for q in tr.q:  # quaternions stay unit
        dl.check_configuration(model, q)


@pytest.fixture(scope="module")
def top_reference():
    top = spinning_top()
    q0, w0 = dl.quaternion_from_rotation_vector([0.3, 0, 0]), np.array([0, 0, 30.0])
    return top, q0, w0, dl.simulate(top, q0, w0, 0.2, 2e-4).q[-1]


@pytest.mark.parametrize("method, order, steps", [("rk4", 4, (0.02, 0.01)), ("semi-implicit-euler", 1, (0.002, 0.001)),
                                                  ("explicit-euler", 1, (0.002, 0.001))])
def test_convergence_order_on_the_rotation_group(top_reference, method, order, steps):
    """Halving the step divides the error of a precessing top by 2^order (RK4 is Munthe-Kaas)."""
    top, q0, w0, reference = top_reference
    errors = [np.linalg.norm(dl.difference(top, reference, dl.simulate(top, q0, w0, 0.2, h, method=method).q[-1]))
              for h in steps]
    assert 2 ** (order - 0.5) < errors[0] / errors[1] < 2 ** (order + 0.5)


def spring_on_a_rail(mass=2.0, stiffness=50.0):
    """A body sliding on a prismatic joint, pulled back by a linear spring: a harmonic oscillator."""
    inertia = dl.spatial_inertia(mass, [0, 0, 0], np.diag([0.1, 0.1, 0.1]))
    rail = dl.Model((-1,), (dl.prismatic([1.0, 0, 0]),), np.array([np.eye(4)]), np.array([inertia]), (0, -9.81, 0))
    return rail, (lambda t, q, qd: -stiffness * q), stiffness / mass


def test_explicit_euler_multiplies_the_oscillator_energy_by_one_plus_h2_omega2():
    """x1 = x0 + h v0, v1 = v0 - h w^2 x0 gives v1^2 + w^2 x1^2 = (1 + h^2 w^2)(v0^2 + w^2 x0^2), exactly."""
    rail, spring, omega2 = spring_on_a_rail()
    h = 0.01
    tr = dl.simulate(rail, [0.3], [-0.5], 1.0, h, method="explicit-euler", tau=spring)
    quadratic = tr.qd[:, 0] ** 2 + omega2 * tr.q[:, 0] ** 2
    assert_close(quadratic[1:] / quadratic[:-1], np.full(len(tr.t) - 1, 1 + h**2 * omega2), rtol=1e-12)


def test_semi_implicit_euler_conserves_the_modified_oscillator_energy_exactly():
    """v1 = v0 - h w^2 x0, x1 = x0 + h v1 keeps v^2 + w^2 x^2 - h w^2 x v constant (derived in the exercises)."""
    rail, spring, omega2 = spring_on_a_rail()
    h = 0.02
    tr = dl.simulate(rail, [0.3], [-0.5], 3.0, h, method="semi-implicit-euler", tau=spring)
    x, v = tr.q[:, 0], tr.qd[:, 0]
    modified = v**2 + omega2 * x**2 - h * omega2 * x * v
    assert_close(modified, np.full(len(x), modified[0]), rtol=1e-12)
    energy = v**2 + omega2 * x**2
    assert np.ptp(energy) > 0.1 * energy[0]  # while the energy itself oscillates by O(h)


def test_steps_agree_with_their_formulas_on_a_random_tree():
    """Explicit and semi-implicit Euler, and RK4 on a model with only 1-dof joints, against the textbook formulas."""
    model = dl.random_tree(5, 7, kinds=["spherical", "free", "revolute"], branching=0.5)
    rng = np.random.default_rng(3)
    q, qd, h = dl.random_configuration(model, rng), rng.normal(size=model.nv), 0.01

    def accel(t, q, qd):
        return dl.aba(model, q, qd, np.zeros(model.nv))

    q1, qd1 = step_explicit_euler(model, accel, 0.0, q, qd, h)
    assert_close(q1, dl.integrate(model, q, qd, h))
    assert_close(qd1, qd + h * accel(0.0, q, qd))
    q1, qd1 = dl.step_semi_implicit_euler(model, accel, 0.0, q, qd, h)
    assert_close(q1, dl.integrate(model, q, qd1, h))
    chain = dl.planar_chain(3)
    q, qd = rng.normal(size=3), rng.normal(size=3)

    def f(y):
        return np.r_[y[3:], dl.aba(chain, y[:3], y[3:], np.zeros(3))]

    y = np.r_[q, qd]
    k1 = f(y)
    k2 = f(y + h / 2 * k1)
    k3 = f(y + h / 2 * k2)
    k4 = f(y + h * k3)
    classical = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    assert_close(np.concatenate(dl.step_rk4(chain, lambda t, q, qd: dl.aba(chain, q, qd, np.zeros(3)), 0.0, q, qd, h)),
                 classical, rtol=1e-12)


def test_chart_rate_is_dexp_inverse_to_fourth_order():
    """exp(-xi) d/ds exp(xi + s xi_dot) = v with xi_dot = dexp^-1_{-xi}(v), up to O(|xi|^4), on SO(3) and SE(3)."""
    rng = np.random.default_rng(11)
    body = dl.Model((-1,), (dl.free(),), np.array([np.eye(4)]), np.array([dl.random_inertia(rng)]))
    direction, v = rng.normal(size=6), rng.normal(size=6)
    direction /= np.linalg.norm(direction)
    errors = []
    for size in (0.2, 0.1):
        xi = size * direction
        rate = _chart_rate(body, xi, v)
        s = 1e-6
        T_rate = (dl.exp_se3(xi + s * rate) - dl.exp_se3(xi - s * rate)) / (2 * s)
        errors.append(np.linalg.norm(dl.vee(dl.homogeneous_inverse(dl.exp_se3(xi)) @ T_rate) - v))
    assert 14 < errors[0] / errors[1] < 18


def test_a_chain_bounces_off_a_wall_with_the_law_of_contact():
    chain = dl.planar_chain(3)
    wall = dl.PlaneContact(2, [1.0, 0, 0], [-1.5, 0, 0], [1.0, 0, 0], restitution=0.8)
    tr = dl.simulate(chain, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], 3.0, 0.005, contacts=[wall])
    assert tr.impacts, "the chain should reach the wall"
    for impact in tr.impacts:
        assert np.isclose(impact.v_bounce, -0.8 * impact.v_impact, rtol=1e-9)
    gaps = [wall.gap(dl.forward_kinematics(chain, q)) for q in tr.q]
    assert min(gaps) > -1e-6  # the tip never goes through the wall
    first = np.searchsorted(tr.t, tr.impacts[0].t)
    assert abs(tr.energy[first - 1] - tr.energy[0]) < 1e-4 * abs(tr.energy).max() + 1e-9  # conserved before
    assert tr.energy[-1] < tr.energy[0] - 1e-3  # and lost at the impact


def test_each_impact_removes_one_minus_eps2_of_the_effective_kinetic_energy():
    """Energy jump at an impact = (1 - eps^2) m_eff v_imp^2 / 2 with m_eff = 1 / (n^T J H^-1 J^T n)."""
    chain = dl.planar_chain(3)
    eps = 0.6
    floor = dl.PlaneContact(2, [1.0, 0, 0], [0, -1.5, 0], [0, 1.0, 0], restitution=eps)
    tr = dl.simulate(chain, np.zeros(3), np.zeros(3), 1.2, 0.01, contacts=[floor])
    assert len(tr.impacts) >= 3

    def accel(t, q, qd):
        return dl.aba(chain, q, qd, np.zeros(3))

    for impact in tr.impacts:
        k = np.searchsorted(tr.t, impact.t) - 1
        q, qd = dl.step_rk4(chain, accel, tr.t[k], tr.q[k], tr.qd[k], impact.t - tr.t[k])
        n = dl.line_coordinates(dl.marker_motion(dl.forward_kinematics(chain, q), 2, [1.0, 0, 0])[0], [0, -1.0, 0])
        Jk = dl.body_jacobian(chain, q, 2)
        m_eff = 1 / (n @ Jk @ np.linalg.solve(dl.crba(chain, q), Jk.T @ n))
        v_imp = n @ Jk @ qd
        assert_close(v_imp, impact.v_impact, rtol=1e-9)
        assert_close(tr.energy[k] - tr.energy[k + 1], (1 - eps**2) * m_eff * v_imp**2 / 2, rtol=1e-4)


def test_an_elastic_impact_keeps_the_energy():
    chain = dl.planar_chain(2)
    floor = dl.PlaneContact(1, [1.0, 0, 0], [0, -1.2, 0], [0, 1.0, 0], restitution=1.0)
    tr = dl.simulate(chain, [0.0, 0.0], [0.0, 0.0], 1.5, 0.002, contacts=[floor])
    assert tr.impacts
    assert np.abs(tr.energy - tr.energy[0]).max() < 1e-4 * abs(tr.energy).max() + 1e-6


def test_impacts_on_a_branched_tree_use_the_joint_space_impulse():
    model = dl.random_tree(4, 2, kinds=["revolute"], branching=1.0)
    q0 = dl.neutral_configuration(model)
    lowest = dl.marker_motion(dl.forward_kinematics(model, q0), 3, np.zeros(3))[0][1]
    floor = dl.PlaneContact(3, [0, 0, 0], [0, lowest - 0.3, 0], [0, 1.0, 0], restitution=0.5)
    tr = dl.simulate(model, q0, np.zeros(model.nv), 0.6, 0.005, contacts=[floor])
    assert tr.impacts
    for impact in tr.impacts:
        assert np.isclose(impact.v_bounce, -0.5 * impact.v_impact, rtol=1e-8)


def test_contact_that_starts_inside_or_comes_to_rest_is_an_error():
    chain = dl.planar_chain(1)
    inside = dl.PlaneContact(0, [1.0, 0, 0], [0, 0.5, 0], [0, 1.0, 0])
    with pytest.raises(ValueError, match="contact 0 starts behind its plane"):
        dl.simulate(chain, [0.0], [0.0], 1.0, 0.01, contacts=[inside])
    plastic_floor = dl.PlaneContact(0, [1.0, 0, 0], [0, -0.5, 0], [0, 1.0, 0], restitution=0.0)
    with pytest.raises(ValueError, match="came to rest on its plane"):
        dl.simulate(chain, [0.0], [0.0], 2.0, 0.01, contacts=[plastic_floor])


def test_torque_can_be_a_function_of_time_and_state():
    pendulum = dl.planar_chain(1)
    hold = dl.rnea(pendulum, [0.4], [0.0], [0.0])
    tr = dl.simulate(pendulum, [0.4], [0.0], 1.0, 0.01, tau=lambda t, q, qd: hold - 5.0 * qd)
    assert_close(tr.q[-1], [0.4], rtol=1e-9)


def test_simulation_input_errors():
    model = dl.planar_chain(1)
    with pytest.raises(ValueError, match="method must be one of"):
        dl.simulate(model, [0.0], [0.0], 1.0, 0.1, method="leapfrog")
    with pytest.raises(ValueError, match="dt must be positive"):
        dl.simulate(model, [0.0], [0.0], 1.0, 0.0)
    with pytest.raises(ValueError, match=r"tau must have shape \(nv,\)"):
        dl.simulate(model, [0.0], [0.0], 1.0, 0.1, tau=[1.0, 2.0])
    with pytest.raises(ValueError, match="restitution must lie in"):
        dl.PlaneContact(0, [0, 0, 0], [0, 0, 0], [0, 1, 0], restitution=1.5)
    with pytest.raises(ValueError, match="normal must be a non-zero"):
        dl.PlaneContact(0, [0, 0, 0], [0, 0, 0], [0, 0, 0])
