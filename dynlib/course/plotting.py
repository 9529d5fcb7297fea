"""Drawing helpers for the chapters (matplotlib): the book's figure style, frames, trees of bodies,
screw axes and animations; and long symbolic results set as equations that fit the page.

Import explicitly (``import dynlib.course.plotting as dp``); the rest of dynlib does not need
matplotlib.  Every drawing function draws on an axes you pass and returns what it drew.

The book's figures share one style, ``BOOK_STYLE``, which a chapter turns on once with
:func:`use_book_style` (importing this module changes no matplotlib setting).  It is made for the
page: a figure at most ``FIGURE_WIDTH`` inches wide, at 100 dots per inch, shows at its
natural size in the HTML text column and in the PDF's text block, so its text, at least
``SMALLEST_TEXT_PT`` points, is read at that size.

Chapter: *Rigid-body motion and joints* (chains), *Screws, twists and wrenches* (axes).
"""

from __future__ import annotations

import re

import numpy as np

from ..multibody.kinematics import centres_of_mass, forward_kinematics
from ..spatial.projective import line_point_direction

__all__ = [
    "BOOK_STYLE",
    "FIGURE_WIDTH",
    "SMALLEST_TEXT_PT",
    "use_book_style",
    "set_axes_equal",
    "draw_frame",
    "joint_positions",
    "draw_tree",
    "draw_planar_line",
    "draw_screw_axis",
    "draw_vectors",
    "animation_html",
    "animate_motion",
    "Player",
    "show_terms",
]

AXIS_COLOURS = ("tab:red", "tab:green", "tab:blue")

FIGURE_WIDTH = 6.4
"""The widest figure, in inches: at 100 dpi it fits the HTML text column (about 690 px) and the PDF's
6.5 in text block at its natural size."""

SMALLEST_TEXT_PT = 9
"""No text in a figure is smaller than this, in points at the figure's natural size."""

BOOK_STYLE = {
    "figure.figsize": (FIGURE_WIDTH, 3.6),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.facecolor": "white",
    "font.size": 10,
    "axes.titlesize": 10,
    "axes.labelsize": 10,
    "xtick.labelsize": SMALLEST_TEXT_PT,
    "ytick.labelsize": SMALLEST_TEXT_PT,
    "legend.fontsize": SMALLEST_TEXT_PT,
    "legend.title_fontsize": SMALLEST_TEXT_PT,
    "figure.titlesize": 11,
    "legend.framealpha": 0.9,
    "legend.edgecolor": "0.8",
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "mathtext.fontset": "dejavusans",
    "image.cmap": "viridis",
}
"""The matplotlib settings (``rcParams``) of every figure of the book: sizes, fonts, lines, colours."""


def use_book_style():
    """Turn on the book's figure style (``BOOK_STYLE``) for the figures drawn after it.

    Returns
    -------
    None

    Examples
    --------
    >>> import matplotlib
    >>> use_book_style()
    >>> matplotlib.rcParams["xtick.labelsize"] >= SMALLEST_TEXT_PT
    True
    >>> matplotlib.rcParams["figure.figsize"][0] <= FIGURE_WIDTH
    True
    """
    import matplotlib

    matplotlib.rcParams.update(BOOK_STYLE)

# matplotlib's player draws its buttons with Font Awesome icons fetched from a CDN; offline
# pages get plain Unicode glyphs instead.
PLAYER_GLYPHS = {
    "fa fa-minus": "\u2212",
    "fa fa-fast-backward": "\u23ee",
    "fa fa-step-backward": "\u25c1",
    "fa fa-play fa-flip-horizontal": "\u25c0",
    "fa fa-pause": "\u2016",
    "fa fa-play": "\u25b6",
    "fa fa-step-forward": "\u25b7",
    "fa fa-fast-forward": "\u23ed",
    "fa fa-plus": "+",
}


def set_axes_equal(ax):
    """Give a 3-D axes equal scale on x, y and z (so spheres look round).

    Parameters
    ----------
    ax : mpl_toolkits.mplot3d.Axes3D

    Returns
    -------
    None
    """
    limits = np.array([ax.get_xlim3d(), ax.get_ylim3d(), ax.get_zlim3d()])
    centre, radius = limits.mean(axis=1), (limits[:, 1] - limits[:, 0]).max() / 2
    ax.set_xlim3d(centre[0] - radius, centre[0] + radius)
    ax.set_ylim3d(centre[1] - radius, centre[1] + radius)
    ax.set_zlim3d(centre[2] - radius, centre[2] + radius)


def draw_frame(ax, R, p, length=0.2, **kwargs):
    """Draw the x, y, z axes of a frame (red, green, blue) at position ``p``.

    Parameters
    ----------
    ax : Axes3D
    R : array_like, shape (3, 3)
        Orientation (columns are the frame's axes in world coordinates).
    p : array_like, shape (3,)
    length : float

    Returns
    -------
    list of Line3D
    """
    R, p = np.asarray(R, float), np.asarray(p, float)
    lines = []
    for k in range(3):
        end = p + length * R[:, k]
        lines += ax.plot(*np.transpose([p, end]), color=AXIS_COLOURS[k], **kwargs)
    return lines


def joint_positions(model, kin):
    """World position of every joint frame origin and of each body's outboard joints.

    Parameters
    ----------
    model : Model
    kin : Kinematics

    Returns
    -------
    segments : list of (ndarray (3,), ndarray (3,))
        One segment per parent-child pair (parent body origin to child joint origin);
        root bodies start at their placement origin in the world.
    """
    segments = []
    for i in range(model.n_bodies):
        T = np.asarray(model.placements[i], float)
        k = model.parent[i]
        if k < 0:
            start, joint = T[:3, 3], T[:3, 3]
        else:
            start = kin.p[k]
            joint = kin.p[k] + kin.R[k] @ T[:3, 3]
        segments.append((np.asarray(start, float), np.asarray(joint, float)))
        if not np.allclose(joint, kin.p[i]):  # sliding joints move the child away from the joint frame
            segments.append((joint, np.asarray(kin.p[i], float)))
    return segments


def draw_tree(ax, model, q, frames=True, com=True, tip=None, colour="0.2", frame_length=0.15):
    """Draw a tree of bodies: links between joints, body frames and centres of mass.

    Works on 3-D axes (``projection="3d"``) and on 2-D axes (the xy projection, for
    planar models).

    Parameters
    ----------
    ax : Axes or Axes3D
    model : Model
    q : array_like, shape (nq,)
    frames : bool
        Draw each body frame (3-D axes only).
    com : bool
        Mark each centre of mass.
    tip : array_like, shape (3,), optional
        A point in the last body's frame drawn as the end of the last link (e.g. ``[L, 0, 0]``).
    colour : matplotlib colour

    Returns
    -------
    Kinematics
        The forward kinematics used for the drawing.
    """
    kin = forward_kinematics(model, q)
    three_d = hasattr(ax, "get_zlim3d")
    dims = 3 if three_d else 2
    for start, end in joint_positions(model, kin):
        ax.plot(*np.transpose([start, end])[:dims], color=colour, lw=2.5, solid_capstyle="round")
    if tip is not None:
        last = model.n_bodies - 1
        end = kin.p[last] + kin.R[last] @ np.asarray(tip, float)
        ax.plot(*np.transpose([kin.p[last], end])[:dims], color=colour, lw=2.5, solid_capstyle="round")
    ax.scatter(*np.asarray(kin.p, float).T[:dims], color="white", edgecolor=colour, s=40, zorder=3)
    if com:
        ax.scatter(*np.asarray(centres_of_mass(model, kin), float).T[:dims], color="tab:orange", s=25, zorder=4)
    if frames and three_d:
        for i in range(model.n_bodies):
            draw_frame(ax, kin.R[i], kin.p[i], frame_length)
    return kin


def draw_planar_line(ax, L, **style):
    """Draw a homogeneous planar line ``L = [-r, n_x, n_y]`` across the whole of a 2-D axes.

    The line of action of a planar wrench ``f`` is ``dynlib.line_of_wrench(f)``.

    Parameters
    ----------
    ax : Axes
    L : array_like, shape (3,)
        Not the line at infinity.
    **style
        Passed to ``ax.axline``.

    Returns
    -------
    Line2D
    """
    foot, direction = line_point_direction(np.asarray(L, dtype=float))
    return ax.axline(foot, foot + direction, **style)


def draw_screw_axis(ax, screw, half_length=1.5, colour="tab:purple", label=None):
    """Draw a screw axis as a line through ``screw.point`` along ``screw.direction``.

    Parameters
    ----------
    ax : Axes3D
    screw : Screw
        From :func:`dynlib.screw_of_twist` or :func:`dynlib.screw_of_wrench`.
    half_length : float
    colour : matplotlib colour
    label : str, optional

    Returns
    -------
    list of Line3D
    """
    point, direction = np.asarray(screw.point, float), np.asarray(screw.direction, float)
    ends = np.array([point - half_length * direction, point + half_length * direction])
    return ax.plot(*ends.T, color=colour, lw=2, ls="-.", label=label)


def draw_vectors(ax, points, vectors, scale=1.0, colour="tab:blue", label=None, **kwargs):
    """Draw arrows ``vectors`` with their tails at ``points`` (velocities, accelerations, axes).

    Arrows are drawn in data units, so an arrow's length on the plot is ``scale`` times the
    vector's length: velocities and accelerations of several points can be compared by eye.
    On 2-D axes only the x and y components are used (the xy projection, as in
    :func:`draw_tree`).

    Parameters
    ----------
    ax : Axes or Axes3D
    points : array_like, shape (3,) or (n, 3)
        Tails of the arrows, world coordinates.
    vectors : array_like, shape (3,) or (n, 3)
        The vectors drawn (same shape as ``points``).
    scale : float
        Plot length per unit of vector length (e.g. seconds for a velocity drawn as a
        displacement).
    colour : matplotlib colour
    label : str, optional
        Legend entry.
    **kwargs
        Passed to ``ax.quiver``.

    Returns
    -------
    matplotlib.quiver.Quiver or mpl_toolkits.mplot3d.art3d.Line3DCollection
        What ``ax.quiver`` drew.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> arrows = draw_vectors(ax, [[0, 0, 0], [1, 0, 0]], [[0, 1, 0], [0, 2, 0]], scale=0.5)
    >>> bool(np.allclose(arrows.V, [0.5, 1.0]))
    True
    >>> plt.close(fig)
    """
    points = np.atleast_2d(np.asarray(points, float))
    vectors = np.atleast_2d(np.asarray(vectors, float))
    if points.shape != vectors.shape or points.shape[-1] != 3:
        raise ValueError(
            f"points and vectors must both have shape (3,) or (n, 3), got {points.shape} and {vectors.shape}"
        )
    if not np.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a positive finite number, got {scale}")
    tips = points + scale * vectors
    if hasattr(ax, "get_zlim3d"):
        kwargs.setdefault("arrow_length_ratio", 0.15)
        arrows = ax.quiver(*points.T, *vectors.T, length=scale, normalize=False, color=colour, label=label, **kwargs)
        ax.auto_scale_xyz(*np.concatenate([points, tips]).T, had_data=True)  # quiver scales to the tails only
        return arrows
    kwargs.setdefault("width", 0.005)
    arrows = ax.quiver(
        points[:, 0], points[:, 1], scale * vectors[:, 0], scale * vectors[:, 1],
        angles="xy", scale_units="xy", scale=1, color=colour, label=label, **kwargs,
    )
    ax.update_datalim(np.concatenate([points, tips])[:, :2])
    ax.autoscale_view()
    return arrows


class Player:
    """An animation for a notebook: the offline HTML player, and a still frame for print.

    Attributes
    ----------
    data : str
        The HTML of the player (shown by Jupyter and the HTML book).
    still : bytes
        PNG of the last frame (shown where HTML cannot be, as in the PDF).
    frames : int
    """

    def __init__(self, data, still, frames):
        self.data, self.still, self.frames = data, still, frames

    def _repr_html_(self):
        return self.data

    def _repr_png_(self):
        return self.still

    def __repr__(self):
        return f"<animation, {self.frames} frames>"


def animation_html(animation, name):
    """Turn a matplotlib animation into a self-contained player that works offline.

    The frames are embedded as PNG images with matplotlib's JavaScript player, which plays in
    Jupyter and in the static book page. Three changes make it fit for the book: the Font
    Awesome stylesheet that the player loads from a CDN is dropped (its buttons get Unicode
    glyphs), the random element id is replaced by ``name`` so a re-run stores the same
    HTML, and the figure is closed so it is not shown a second time.  The player also carries
    the last frame as a still PNG, which is what the PDF of the book prints.

    Parameters
    ----------
    animation : matplotlib.animation.Animation
        For example a ``FuncAnimation``; keep it to a few dozen small frames, since each is
        stored in the notebook.
    name : str
        Letters, digits and underscores; unique within the page.

    Returns
    -------
    Player
        Display it as the last expression of a cell.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.animation import FuncAnimation
    >>> fig, ax = plt.subplots(figsize=(2, 2), dpi=40)
    >>> line, = ax.plot([0, 1], [0, 0])
    >>> player = animation_html(FuncAnimation(fig, lambda k: line.set_ydata([0, k]), frames=3), "demo")
    >>> "cdn" in player.data, player.data.count("anim_demo.next_frame()")
    (False, 1)
    """
    import io

    import matplotlib.pyplot as plt

    if not re.fullmatch(r"[A-Za-z0-9_]+", str(name)):
        raise ValueError(f"name must be letters, digits and underscores, got {name!r}")
    html = animation.to_jshtml(default_mode="loop")
    animation._draw_was_started = True  # every frame was drawn into the HTML: no "deleted unrendered" warning
    still = io.BytesIO()
    animation._fig.savefig(still, format="png", metadata={"Software": None})  # the last frame
    plt.close(animation._fig)
    html = re.sub(r"<link[^>]*font-awesome[^>]*>", "", html)
    for ident in set(re.findall(r"anim([0-9a-f]{32})", html)):
        html = html.replace(ident, "_" + name)
    for icon, glyph in PLAYER_GLYPHS.items():
        html = html.replace(f'<i class="{icon}"></i>', glyph)
    if "fa fa-" in html:
        raise RuntimeError("matplotlib's animation player changed: an icon has no glyph")
    return Player(html, still.getvalue(), html.count("data:image/png;base64,"))


def animate_motion(model, t, q, name, frames=40, tip=None, limits=None, extras=None, figsize=(3.2, 3.2), dpi=100):
    """Animate a planar (xy) or spatial motion of a model as an offline player.

    Each frame shows the model at one time, with the time in seconds above it and the axes
    labelled in metres; a figure caption (the cell's ``mystnb.figure`` metadata) says what to watch.

    Parameters
    ----------
    model : Model
    t : array_like, shape (N,)
        Sample times, increasing (for example ``Trajectory.t``).
    q : array_like, shape (N, nq)
        Configurations at those times.
    name : str
        Element id of the player (see :func:`animation_html`).
    frames : int
        Number of frames, taken evenly in time from the samples (at least 2).
    tip : array_like, shape (3,), optional
        End point of the last link in its frame, as in :func:`draw_tree`.
    limits : ((xmin, xmax), (ymin, ymax)) or with a third pair for 3-D, optional
        Fixed axis limits; by default the range swept by the joints, with a margin.
    extras : callable, optional
        ``extras(ax, k)`` draws more on frame ``k`` of sample index (walls, paths, labels).
    figsize, dpi
        Size of each frame.

    Returns
    -------
    Player

    Examples
    --------
    >>> import dynlib as dl
    >>> model = dl.planar_chain(2)
    >>> q = np.linspace([0.0, 0.0], [1.0, 0.5], 5)
    >>> player = animate_motion(model, np.linspace(0, 1, 5), q, "two_link", frames=3, dpi=20)
    >>> player.data.count("data:image/png;base64,")
    3
    """
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    t = np.asarray(t, float)
    q = np.atleast_2d(np.asarray(q, float))
    if t.ndim != 1 or len(t) < 2 or len(q) != len(t) or q.shape[1] != model.nq:
        raise ValueError(f"t must have shape (N,) with N >= 2 and q shape (N, {model.nq}), got {t.shape} and {q.shape}")
    if int(frames) < 2:
        raise ValueError(f"frames must be at least 2, got {frames}")
    samples = np.searchsorted(t, np.linspace(t[0], t[-1], int(frames))).clip(0, len(t) - 1)
    points = []
    for k in samples:
        kin = forward_kinematics(model, q[k])
        points.extend(np.asarray(kin.p, float))
        if tip is not None:
            points.append(np.asarray(kin.p[-1] + kin.R[-1] @ np.asarray(tip, float), float))
    points = np.array(points)
    three_d = len(limits) == 3 if limits is not None else not np.allclose(points[:, 2], 0)
    if limits is None:
        low, high = points.min(axis=0), points.max(axis=0)
        margin = 0.15 * max(float(np.max(high - low)), 1e-3)
        limits = list(zip(low - margin, high + margin))[: 3 if three_d else 2]
    fig = plt.figure(figsize=figsize, dpi=dpi, layout="constrained")   # room for the axis labels in every frame
    ax = fig.add_subplot(projection="3d") if three_d else fig.add_subplot()

    def draw(frame):
        ax.clear()
        k = samples[frame]
        draw_tree(ax, model, q[k], tip=tip, frames=False)
        ax.set_xlim(*limits[0])
        ax.set_ylim(*limits[1])
        if three_d:
            ax.set_zlim(*limits[2])
        else:
            ax.set_aspect("equal")
        ax.set_title(f"t = {t[k]:.2f} s")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        if three_d:
            ax.set_zlabel("z (m)")
        if extras is not None:
            extras(ax, k)

    interval_ms = 1000 * (t[-1] - t[0]) / len(samples)  # plays in real time
    return animation_html(FuncAnimation(fig, draw, frames=len(samples), interval=interval_ms), name)


def show_terms(*equations, per_line=2):
    r"""Equations ``lhs = rhs``, each right-hand side broken after ``per_line`` terms, one display each.

    A long symbolic result shown whole (a vector of torques) is wider than the page; here each entry
    is its own equation, a few terms to a line, and each is a separate display, so that print can
    turn the page between them.

    Parameters
    ----------
    *equations : (str or sympy expression, sympy expression)
        Left-hand side (TeX, or an expression) and the sum to show on the right.
    per_line : int
        Terms of the sum on each line (at least 1).

    Returns
    -------
    list of IPython.display.Math
        Show them with ``display(*dp.show_terms(...))``: aligned equations in the HTML and the PDF.

    Examples
    --------
    >>> import sympy as sp
    >>> a, b, c = sp.symbols("a b c")
    >>> tau_1, tau_2 = show_terms((r"\tau_1", a + 2 * b - c), (r"\tau_2", a), per_line=2)
    >>> tau_1.data.count(r"\\"), r"&\quad - c" in tau_1.data   # the third term on a second line
    (1, True)
    """
    import sympy as sp
    from IPython.display import Math

    if not equations or int(per_line) < 1:
        raise ValueError("show_terms needs at least one (lhs, rhs) pair and per_line >= 1")
    shown = []
    for lhs, rhs in equations:
        terms = sp.sympify(rhs).as_ordered_terms()
        pieces = []
        for k, term in enumerate(terms):
            negative = term.could_extract_minus_sign()
            sign = "- " if negative else ("+ " if k else "")
            pieces.append(sign + sp.latex(-term if negative else term))
        lines = [" ".join(pieces[k:k + int(per_line)]) for k in range(0, len(pieces), int(per_line))]
        left = lhs if isinstance(lhs, str) else sp.latex(lhs)
        body = f"{left} &= {lines[0]}" + "".join(f" \\\\ &\\quad {line}" for line in lines[1:])
        shown.append(Math("\\begin{aligned}" + body + "\\end{aligned}"))
    return shown
