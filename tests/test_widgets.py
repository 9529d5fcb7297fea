"""The explorers' drawings compute the right physics, and the explorers build and update headless."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import dynlib.course.widgets as dw

from conftest import assert_close


def test_twist_field_is_the_velocity_of_each_point(rng):
    twist = rng.normal(size=6)
    points, velocities = dw.twist_field(twist, extent=2.0, per_side=3)
    assert points.shape == (27, 3)
    for p, v in zip(points, velocities):
        assert_close(v, twist[:3] + np.cross(twist[3:], p))
    with pytest.raises(ValueError, match="per_side must be at least 2"):
        dw.twist_field(twist, per_side=1)


def test_a_point_on_the_screw_axis_moves_along_it_at_pitch_times_spin(rng):
    twist = rng.normal(size=6)
    fig = plt.figure()
    screw = dw.draw_twist(fig.add_subplot(projection="3d"), twist)
    v_axis = twist[:3] + np.cross(twist[3:], screw.point)
    assert_close(v_axis, screw.pitch * twist[3:])
    plt.close(fig)


@pytest.mark.parametrize("distance", [0.1, 0.4, 2 / 3, 0.9])
def test_pin_reaction_matches_the_rod_formula_and_vanishes_at_two_thirds(distance):
    m, L = 2.0, 1.5
    fig, ax = plt.subplots()
    spin, reaction = dw.draw_strike(ax, L, m, distance * L)
    plt.close(fig)
    assert spin == pytest.approx(distance * L / (m * L**2 / 3))       # J d = I_pin w, J = 1
    assert reaction[1] == pytest.approx(1.5 * distance - 1, abs=1e-9)  # R = J (3d / 2L - 1)
    assert reaction[0] == pytest.approx(0, abs=1e-12)


def test_explorers_build_and_redraw_without_a_browser():
    explorer = dw.twist_explorer()
    assert [child.description for child in explorer.children[:6]] == ["vx", "vy", "vz", "wx", "wy", "wz"]
    explorer.children[5].value = 0.0
    explorer.update()
    strike = dw.strike_explorer()
    strike.children[0].value = 0.3
    strike.update()
    plt.close("all")


@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0])
def test_the_struck_point_leaves_at_minus_epsilon_times_its_approach_speed(epsilon):
    import dynlib as dl

    model = dl.alexiou_two_link(1.0, 1.0)
    q, qd, where = np.array([-0.6, 0.9]), np.array([-1.0, -0.5]), [0.7, 0.0, 0.0]
    fig, ax = plt.subplots()
    response = dw.draw_impact(ax, model, q, qd, where, epsilon)
    plt.close(fig)
    normal = np.array([0.0, -1.0, 0.0])
    before = dl.marker_motion(dl.forward_kinematics(model, q, qd), 1, where)[1] @ normal
    after = dl.marker_motion(dl.forward_kinematics(model, q, qd + response.dqd), 1, where)[1] @ normal
    assert before > 0 and after == pytest.approx(-epsilon * before, abs=1e-12)


def test_the_impact_explorer_redraws_for_each_setting():
    explorer = dw.impact_explorer()
    explorer.children[0].value = 0.2
    explorer.children[1].value = 0.4
    explorer.update()
    plt.close("all")


def test_apparent_masses_nest_and_match_the_straight_arm_values():
    import dynlib as dl

    fig, ax = plt.subplots()
    principal = dw.draw_apparent_mass(ax, dl.double_pendulum(gravity=(0, 0, 0)), [0.0, 0.0])
    plt.close(fig)
    # straight 1 kg, 1 m links, pushed at the elbow: alone 1/4 and 1 kg, free 1/2 and 2 kg, locked 2 kg across
    assert_close(principal["alone"], [0.25, 1.0])
    assert_close(principal["free"], [0.5, 2.0])
    for light, heavy in (("alone", "free"), ("free", "locked")):
        assert np.all(principal[light] <= principal[heavy] + 1e-12)
    with pytest.raises(ValueError, match="no subtree"):
        dw.draw_apparent_mass(plt.subplots()[1], dl.double_pendulum(), [0.0, 0.0], body=1)
    plt.close("all")


def test_the_articulated_inertia_explorer_redraws():
    explorer = dw.articulated_inertia_explorer()
    assert [child.description for child in explorer.children[:2]] == ["q2 (deg)", "q3 (deg)"]
    explorer.children[0].value = 60.0
    explorer.update()
    plt.close("all")


def test_an_explorer_says_in_plain_text_what_it_is():
    text = repr(dw.strike_explorer())
    assert "running notebook" in text and "at fixed settings" in text
    assert max(len(line) for line in text.splitlines()) <= 95     # printed, it fits the page
    plt.close("all")
