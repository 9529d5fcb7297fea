"""Integrators, energy conservation within stated bounds, and impacts resolved by impulse propagation."""

import numpy as np
import pytest

import dynlib as dl

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


@pytest.mark.parametrize("method, order, steps", [("rk4", 4, (0.02, 0.01)), ("semi-implicit-euler", 1, (0.002, 0.001))])
def test_convergence_order_on_the_rotation_group(top_reference, method, order, steps):
    """Halving the step divides the error of a precessing top by 2^order (RK4 is Munthe-Kaas)."""
    top, q0, w0, reference = top_reference
    errors = [np.linalg.norm(dl.difference(top, reference, dl.simulate(top, q0, w0, 0.2, h, method=method).q[-1]))
              for h in steps]
    assert 2 ** (order - 0.5) < errors[0] / errors[1] < 2 ** (order + 0.5)


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
        dl.simulate(model, [0.0], [0.0], 1.0, 0.1, method="euler")
    with pytest.raises(ValueError, match="dt must be positive"):
        dl.simulate(model, [0.0], [0.0], 1.0, 0.0)
    with pytest.raises(ValueError, match=r"tau must have shape \(nv,\)"):
        dl.simulate(model, [0.0], [0.0], 1.0, 0.1, tau=[1.0, 2.0])
    with pytest.raises(ValueError, match="restitution must lie in"):
        dl.PlaneContact(0, [0, 0, 0], [0, 0, 0], [0, 1, 0], restitution=1.5)
    with pytest.raises(ValueError, match="normal must be a non-zero"):
        dl.PlaneContact(0, [0, 0, 0], [0, 0, 0], [0, 0, 0])
