"""Plotting helpers draw what the model says (checked on the drawn data, Agg backend)."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import dynlib as dl
import dynlib.course.plotting as dp

from conftest import assert_close


def test_draw_tree_links_joint_origins_in_3d(rng):
    model = dl.random_tree(5, 3, branching=0.5)
    q = dl.random_configuration(model, rng)
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    kin = dp.draw_tree(ax, model, q, tip=[0.5, 0, 0])
    ends = np.concatenate([np.asarray(line.get_data_3d()).T for line in ax.lines])
    for i in range(model.n_bodies):  # every body origin is the end of some drawn segment
        assert np.min(np.linalg.norm(ends - kin.p[i], axis=1)) < 1e-12
    dp.set_axes_equal(ax)
    spans = [np.ptp(lim) for lim in (ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d())]
    assert_close(spans, [spans[0]] * 3)
    plt.close(fig)


def test_draw_planar_chain_in_2d():
    model = dl.planar_chain(3)
    fig, ax = plt.subplots()
    dp.draw_tree(ax, model, [0.0, np.pi / 2, 0.0], tip=[1.0, 0, 0])
    xy = np.concatenate([line.get_xydata() for line in ax.lines])
    assert_close(xy[-1], [1.0, 2.0])  # tip of the third link: right 1, then up 2
    plt.close(fig)


def test_draw_screw_axis_passes_through_the_axis_point():
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    screw = dl.screw_of_twist(dl.twist_from_screw([1.0, 2.0, 0.0], [0, 0, 1], pitch=0.1))
    (line,) = dp.draw_screw_axis(ax, screw, half_length=1.0)
    assert_close(np.asarray(line.get_data_3d()).T.mean(axis=0), [1.0, 2.0, 0.0])
    plt.close(fig)


def test_draw_vectors_draws_scaled_arrows_in_data_units():
    points = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 0.5]])
    vectors = np.array([[1.0, 0.0, 3.0], [0.0, -2.0, 1.0]])
    fig, ax = plt.subplots()
    arrows = dp.draw_vectors(ax, points, vectors, scale=0.25)
    assert_close(arrows.get_offsets(), points[:, :2])  # tails at the points (xy projection)
    assert_close(np.column_stack([arrows.U, arrows.V]), 0.25 * vectors[:, :2])
    assert (arrows.angles, arrows.scale_units, arrows.scale) == ("xy", "xy", 1)  # lengths in data units
    tips = points + 0.25 * vectors
    for k, lim in enumerate((ax.get_xlim(), ax.get_ylim())):
        assert lim[0] <= tips[:, k].min() and tips[:, k].max() <= lim[1]  # the axes take in every tip
    plt.close(fig)
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    dp.draw_vectors(ax, points, vectors, scale=2.0)
    tips = points + 2.0 * vectors
    for k, lim in enumerate((ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d())):
        assert lim[0] <= tips[:, k].min() and tips[:, k].max() <= lim[1]  # the axes take in every tip
    plt.close(fig)


def test_draw_vectors_rejects_mismatched_input():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"points and vectors must both have shape"):
        dp.draw_vectors(ax, [[0, 0, 0]], [[1, 0]])
    with pytest.raises(ValueError, match="scale must be a positive finite number"):
        dp.draw_vectors(ax, [0, 0, 0], [1, 0, 0], scale=0.0)
    plt.close(fig)


def test_draw_planar_line_draws_the_line_of_a_wrench():
    f = np.array([1.0, 2.0, 3.0])  # planar wrench (fx, fy, nz): its line is x fy - y fx = nz
    fig, ax = plt.subplots()
    line = dp.draw_planar_line(ax, dl.line_of_wrench(f))
    for point in (line.get_xy1(), line.get_xy2()):  # the two points that fix the drawn line
        assert_close(point[0] * f[1] - point[1] * f[0], f[2])
    plt.close(fig)


def test_animation_html_is_offline_and_repeatable():
    from matplotlib.animation import FuncAnimation

    def player():
        fig, ax = plt.subplots(figsize=(2, 2), dpi=30)
        (line,) = ax.plot([0, 1], [0, 0])
        return dp.animation_html(FuncAnimation(fig, lambda k: line.set_ydata([0, k]), frames=4), "swing")

    before = plt.get_fignums()  # figures another test of this worker left open are not ours
    first, second = player().data, player().data
    assert first == second  # no random ids: a re-run stores the same page
    assert "http" not in first and "fa fa-" not in first
    assert first.count("data:image/png;base64,") == 4
    assert plt.get_fignums() == before  # the figure was closed: no extra still image


def test_animation_html_rejects_a_name_that_is_not_an_identifier():
    from matplotlib.animation import FuncAnimation

    fig, ax = plt.subplots()
    animation = FuncAnimation(fig, lambda k: None, frames=2)
    with pytest.raises(ValueError, match="letters, digits and underscores"):
        dp.animation_html(animation, "my anim")
    animation._draw_was_started = True  # never drawn on purpose: no warning when it is collected
    plt.close(fig)


def test_animate_motion_draws_one_frame_per_requested_time_and_checks_shapes():
    model = dl.planar_chain(2)
    t = np.linspace(0.0, 2.0, 21)
    q = np.column_stack([np.sin(t), np.cos(t)])
    seen = []
    player = dp.animate_motion(model, t, q, "chain", frames=5, dpi=20, extras=lambda ax, k: seen.append(k))
    assert player.data.count("data:image/png;base64,") == 5
    assert sorted(set(seen)) == [0, 5, 10, 15, 20]  # frames evenly spaced in time
    with pytest.raises(ValueError, match=r"q shape \(N, 2\)"):
        dp.animate_motion(model, t, q[:, :1], "chain")
    with pytest.raises(ValueError, match="frames must be at least 2"):
        dp.animate_motion(model, t, q, "chain", frames=1)


def test_a_player_also_carries_a_still_frame_for_print():
    from matplotlib.animation import FuncAnimation

    fig, ax = plt.subplots(figsize=(2, 2), dpi=30)
    (line,) = ax.plot([0, 1], [0, 0])
    player = dp.animation_html(FuncAnimation(fig, lambda k: line.set_ydata([0, k]), frames=3), "still")
    assert player._repr_png_().startswith(b"\x89PNG") and player._repr_html_() == player.data
    assert repr(player) == "<animation, 3 frames>"
