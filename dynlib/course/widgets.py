"""Interactive explorers for the chapters (ipywidgets + matplotlib), and the drawings behind them.

Each explorer is a set of sliders around one drawing function.  The drawing functions are
plain matplotlib and are what the book's static figures use too, so a reader without a
kernel sees the same picture for a sweep of slider values.  Import explicitly
(``import dynlib.widgets as dw``); the rest of dynlib does not need ipywidgets.

Chapter: *Screws, twists and wrenches* (the twist explorer); *Projective geometry and
subspace decompositions* (the strike explorer); *Articulated inertia and forward dynamics* (the
articulated-inertia explorer); *Impulse propagation* (the impact explorer).
"""

from __future__ import annotations

import numpy as np

from ..algorithms.impulse import impulse_propagation
from ..core.backend import as_array, as_vector
from ..multibody.kinematics import forward_kinematics, marker_motion
from ..spatial.conventions import planar_matrix
from ..spatial.projective import homogeneous_line, homogeneous_point, percussion_axis, twist_of_point, wrench_of_line
from ..spatial.screws import line_coordinates, screw_of_twist
from .plotting import draw_screw_axis, draw_tree, draw_vectors, set_axes_equal

__all__ = [
    "twist_field",
    "draw_twist",
    "twist_explorer",
    "pinned_strike",
    "draw_strike",
    "strike_explorer",
    "draw_impact",
    "impact_explorer",
    "draw_apparent_mass",
    "articulated_inertia_explorer",
]


def _explorer(show, **controls):
    """``ipywidgets.interactive(show, **controls)``, with a plain-text form that says what it is."""
    import ipywidgets as widgets

    class Explorer(widgets.interactive):
        def __repr__(self):
            return ("[interactive explorer: its sliders redraw the figure in a running notebook (Jupyter, Binder);\n"
                    " a static page or print shows the same drawing at fixed settings in the figure beside it]")

    return Explorer(show, **controls)


def twist_field(twist, extent=1.0, per_side=3):
    """Velocities ``v(p) = v_O + w x p`` of a twist at a cube of grid points around the origin.

    Parameters
    ----------
    twist : array_like, shape (6,)
        ``[v_O; w]``.
    extent : float
        Half the side of the cube.
    per_side : int
        Grid points per side (at least 2).

    Returns
    -------
    points, velocities : ndarray, shape (per_side**3, 3)

    Examples
    --------
    >>> points, velocities = twist_field([0, 0, 0, 0, 0, 1.0], per_side=2)
    >>> bool(np.allclose(velocities, np.cross([0, 0, 1.0], points)))
    True
    """
    twist = as_vector(twist, 6, "twist").astype(float)
    if int(per_side) < 2 or not extent > 0:
        raise ValueError(f"per_side must be at least 2 and extent positive, got {per_side} and {extent}")
    axis = np.linspace(-extent, extent, int(per_side))
    points = np.array(np.meshgrid(axis, axis, axis, indexing="ij")).reshape(3, -1).T
    return points, twist[:3] + np.cross(twist[3:], points)


def draw_twist(ax, twist, extent=1.0, legend=True):
    """Draw a twist as its screw axis and the velocity field it gives the points around it.

    Parameters
    ----------
    ax : Axes3D
    twist : array_like, shape (6,)
        Non-zero.
    extent : float
        Half the side of the cube of points drawn.
    legend : bool
        Name the arrows and the axis in a legend (leave it out where a caption names them).

    Returns
    -------
    Screw
        Axis, pitch and magnitude (see :func:`dynlib.screw_of_twist`).
    """
    screw = screw_of_twist(twist)
    points, velocities = twist_field(twist, extent)
    speed = np.linalg.norm(velocities, axis=1).max()
    draw_vectors(ax, points, velocities, scale=0.5 * extent / max(speed, 1e-12), colour="tab:blue",
                 label="velocity of points")
    if np.isfinite(screw.pitch):
        draw_screw_axis(ax, screw, half_length=1.5 * extent, label=f"screw axis, pitch {screw.pitch:.2f}")
    ax.set_xlim(-1.5 * extent, 1.5 * extent)
    ax.set_ylim(-1.5 * extent, 1.5 * extent)
    ax.set_zlim(-1.5 * extent, 1.5 * extent)
    set_axes_equal(ax)
    ticks = [-extent, 0.0, extent]
    ax.set_xticks(ticks), ax.set_yticks(ticks), ax.set_zticks(ticks)
    ax.set_xlabel("x (m)"), ax.set_ylabel("y (m)"), ax.set_zlabel("z (m)")
    if legend:
        ax.legend(loc="upper left")
    return screw


def twist_explorer():
    """Sliders for the six components of a twist; shows its screw axis, pitch and velocity field.

    Returns
    -------
    ipywidgets.interactive
        Display it in a notebook with a live kernel.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def show(vx=0.0, vy=0.5, vz=0.3, wx=0.0, wy=0.0, wz=1.0):
        twist = np.array([vx, vy, vz, wx, wy, wz])
        if not np.any(twist):
            print("A zero twist has no screw: move a slider.")
            return
        fig = plt.figure(figsize=(5, 4.5))
        screw = draw_twist(fig.add_subplot(projection="3d"), twist)
        plt.show()
        print(f"pitch h = w.v_O/|w|^2 = {screw.pitch:.3f} m/rad; axis through {np.round(screw.point, 3)} "
              f"along {np.round(screw.direction, 3)}")

    slider = dict(min=-1.0, max=1.0, step=0.05, continuous_update=False)
    return _explorer(show, **{name: widgets.FloatSlider(value=value, description=name, **slider)
                                        for name, value in (("vx", 0.0), ("vy", 0.5), ("vz", 0.3),
                                                            ("wx", 0.0), ("wy", 0.0), ("wz", 1.0))})


def pinned_strike(I, pivot, impulse):
    """A planar body pinned at ``pivot`` and struck by an impulse: its spin and the pin's reaction.

    The body can only turn about the pivot, with the unit twist ``s`` of that point.  The
    impulse gives it the spin ``w = s.f / (s.I s)`` (the component of the impulse that does
    work on ``s``, over the inertia that ``s`` feels); the pin supplies what the momentum
    ``I s w`` needs beyond the impulse, ``r = I s w - f``.  The reaction vanishes exactly when
    the impulse acts along the axis of percussion of the pivot.

    Parameters
    ----------
    I : array_like, shape (3, 3) or (6, 6)
        Planar inertia ``(vx, vy, wz)`` about the world origin, or a spatial one.
    pivot : array_like, shape (2,)
    impulse : array_like, shape (3,)
        Planar impulse ``(Jx, Jy, Jz_moment)`` about the world origin.

    Returns
    -------
    spin : float
        Angular velocity after the strike (from rest).
    reaction : ndarray, shape (3,)
        Impulse of the pin on the body, about the world origin.

    Examples
    --------
    >>> import dynlib as dl
    >>> rod = dl.spatial_inertia(1.0, [0.5, 0, 0], np.diag([1e-4, 1 / 12, 1 / 12]))   # pinned at x = 0
    >>> at_two_thirds = dl.wrench_of_line(dl.homogeneous_line([2 / 3, 0], [0, 1]))
    >>> spin, reaction = pinned_strike(rod, [0, 0], at_two_thirds)
    >>> round(spin, 6), bool(np.allclose(reaction, 0))
    (2.0, True)
    """
    I = as_array(I, "I").astype(float)
    I = planar_matrix(I) if I.shape == (6, 6) else I
    f = as_vector(impulse, 3, "impulse").astype(float)
    s = twist_of_point(homogeneous_point(as_vector(pivot, 2, "pivot").astype(float)))
    spin = float(s @ f / (s @ I @ s))
    return spin, I @ s * spin - f


def draw_strike(ax, length=1.0, mass=1.0, distance=0.5):
    """Draw a uniform rod pinned at its end and struck square at ``distance`` from the pin.

    Shows the impulse, the pin's reaction impulse and the rod's axis of percussion.

    Parameters
    ----------
    ax : Axes
    length, mass : float
        The rod lies from the pin at the origin along +x.
    distance : float
        Where the unit impulse (along +y) strikes, from the pin.

    Returns
    -------
    spin : float
        Angular velocity after the strike.
    reaction : ndarray, shape (3,)
        The pin's reaction impulse ``(Rx, Ry, moment)`` about the origin.
    """
    from ..spatial.inertia import spatial_inertia

    rod = spatial_inertia(mass, [length / 2, 0, 0], np.diag([1e-6, 1.0, 1.0]) * mass * length**2 / 12)
    impulse = wrench_of_line(homogeneous_line([distance, 0.0], [0.0, 1.0]))
    spin, reaction = pinned_strike(rod, [0.0, 0.0], impulse)
    sweet = percussion_axis(rod, [0.0, 0.0])
    ax.plot([0, length], [0, 0], color="0.2", lw=6, solid_capstyle="round")
    ax.plot(0, 0, "o", color="white", mec="0.2", ms=10, zorder=3)
    ax.annotate("", xy=(distance, 0), xytext=(distance, -0.5), arrowprops=dict(color="tab:red", width=2))
    if abs(reaction[1]) > 1e-9:
        ax.annotate("", xy=(0, reaction[1] * 0.5), xytext=(0, 0), arrowprops=dict(color="tab:purple", width=2))
    sweet_x = -sweet[0] / sweet[1] if abs(sweet[1]) > 1e-12 else np.nan
    ax.axvline(sweet_x, color="tab:green", ls="--", lw=1, label=f"axis of percussion, x = {sweet_x:.3f}")
    ax.plot([], [], color="tab:red", lw=3, label="impulse 1 N s")
    ax.plot([], [], color="tab:purple", lw=3, label=f"pin reaction {reaction[1]:+.3f} N s")
    ax.set_xlim(-0.3 * length, 1.2 * length)
    ax.set_ylim(-0.7, 0.7)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left")
    return spin, reaction


def strike_explorer(length=1.0, mass=1.0):
    """A slider for where a pinned rod is struck; shows the pin's reaction and the sweet spot.

    Parameters
    ----------
    length, mass : float

    Returns
    -------
    ipywidgets.interactive
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    def show(distance=0.5):
        fig, ax = plt.subplots(figsize=(6, 3))
        spin, reaction = draw_strike(ax, length, mass, distance)
        plt.show()
        print(f"spin after the strike {spin:.3f} rad/s; pin reaction {reaction[1]:+.3f} N s")

    return _explorer(show, distance=widgets.FloatSlider(
        value=0.5 * length, min=0.05 * length, max=length, step=0.01 * length, continuous_update=False,
        description="strike at"))


def draw_impact(ax, model, q, qd, where, epsilon, normal=(0.0, -1.0, 0.0)):
    """Draw a planar chain struck at a point of its last link, with the velocities before and after.

    The last body's point ``where`` (in its own frame) meets an obstacle along ``normal``
    (the direction the point moves into the obstacle); the impact is resolved with
    :func:`dynlib.impulse_propagation`.

    Parameters
    ----------
    ax : Axes
    model : Model
        A planar chain (xy plane).
    q, qd : array_like
        State just before the impact.
    where : array_like, shape (3,)
        Contact point in the last body's frame.
    epsilon : float
        Coefficient of restitution.
    normal : array_like, shape (3,)

    Returns
    -------
    ImpulseResponse
        With ``response.J`` the impulse and ``response.dqd`` the joint-velocity jumps.
    """
    last = model.n_bodies - 1
    kin = forward_kinematics(model, q, qd)
    point, velocity, _ = marker_motion(kin, last, np.asarray(where, float))
    response = impulse_propagation(model, q, qd, line_coordinates(point, normal), epsilon)
    after = marker_motion(forward_kinematics(model, q, np.asarray(qd, float) + response.dqd), last,
                          np.asarray(where, float))[1]
    draw_tree(ax, model, q, tip=where)
    scale = 0.3 / max(np.linalg.norm(velocity[:2]), 1e-9)
    for v, colour, label in ((velocity, "tab:blue", "velocity before"), (after, "tab:orange", "velocity after")):
        ax.annotate("", xy=point[:2] + scale * v[:2], xytext=point[:2],
                    arrowprops=dict(color=colour, width=1.5, headwidth=7))
        ax.plot([], [], color=colour, lw=2, label=label)
    e = np.asarray(normal, float) / np.linalg.norm(normal)
    along_surface = 0.3 * np.array([-e[1], e[0]])
    ax.plot(*np.transpose([point[:2] - along_surface, point[:2] + along_surface]), color="0.4", lw=4,
            solid_capstyle="butt", label="obstacle surface")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left")
    return response


def impact_explorer(model=None):
    """Sliders for the restitution and the contact point of a two-link chain striking a floor.

    Parameters
    ----------
    model : Model, optional
        A planar two-link chain (default: Alexiou's example with m = 1 kg, L = 1 m).

    Returns
    -------
    ipywidgets.interactive
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from ..algorithms.energy import system_kinetic_energy
    from ..multibody.builders import alexiou_two_link

    model = alexiou_two_link(1.0, 1.0) if model is None else model
    q, qd = np.array([-0.6, 0.9]), np.array([-1.0, -0.5])

    def show(epsilon=0.5, along=1.0):
        fig, ax = plt.subplots(figsize=(6, 4))
        response = draw_impact(ax, model, q, qd, [along, 0.0, 0.0], epsilon)
        ax.set_xlim(-0.5, 2.2)
        ax.set_ylim(-1.4, 0.6)
        plt.show()
        before = system_kinetic_energy(model, q, qd)
        lost = before - system_kinetic_energy(model, q, qd + response.dqd)
        print(f"impulse J = {float(response.J):.3f} N s; speed {float(response.v_impact):.3f} -> "
              f"{float(response.v_bounce):.3f} m/s along the normal; kinetic energy lost {lost:.3f} J "
              f"of {before:.3f} J")

    return _explorer(
        show,
        epsilon=widgets.FloatSlider(value=0.5, min=0.0, max=1.0, step=0.05, continuous_update=False,
                                    description="restitution"),
        along=widgets.FloatSlider(value=1.0, min=0.05, max=1.0, step=0.05, continuous_update=False,
                                  description="contact at"))


def draw_apparent_mass(ax, model, q, body=0, point=None, scale=0.25):
    """Draw the apparent mass of a point of ``body`` for its own, articulated and locked inertias.

    A pure force ``e`` at the world point ``p`` accelerates it (from rest) by ``G e`` with the
    point mobility ``G = B^T M^-1 B`` of the inertia ``M`` the body presents
    (:func:`dynlib.point_mobility`); ``G^-1`` is the point's apparent mass.  Each inertia is drawn
    as the ellipse ``f^T G f <= 1`` of the forces through the point: its radius along a unit
    direction ``e`` is the square root of the effective mass ``1 / e^T G e``.  The three inertias
    are the body alone, the articulated inertia (its subtree free on its joints) and the composite
    inertia (its subtree locked); ordered as matrices, they order every effective mass, so these
    ellipses are nested in that order (the images ``G^-1 e`` of the unit circle need not be).

    Parameters
    ----------
    ax : Axes
    model : Model
        A planar tree (xy plane) with at least one body outboard of ``body``.
    q : array_like
    body : int
    point : array_like, shape (3,), optional
        World point of ``body`` (default: the origin of its first child, e.g. the elbow).
    scale : float
        Metres drawn per square root of a kilogram.

    Returns
    -------
    dict
        Principal apparent masses (ascending, kg) for ``"alone"``, ``"free"`` and ``"locked"``.
    """
    from ..algorithms.articulated import articulated_bodies
    from ..algorithms.mass_matrix import composite_inertias
    from ..algorithms.mobility import point_mobility
    from ..multibody.kinematics import world_inertias

    kin = forward_kinematics(model, q)
    if not model.children[body]:
        raise ValueError(f"body {body} has no subtree, so its articulated inertia is its own")
    point = kin.p[model.children[body][0]] if point is None else as_vector(point, 3, "point")
    zeros = np.zeros(model.nv)
    inertias = {"alone": world_inertias(model, kin)[body],
                "free": articulated_bodies(model, q, zeros, zeros).IA[body],
                "locked": composite_inertias(model, kin)[body]}
    styles = {"alone": ("tab:blue", "body alone"), "free": ("tab:red", "subtree free (articulated)"),
              "locked": ("tab:green", "subtree locked (composite)")}
    draw_tree(ax, model, q, frames=False, com=False)
    circle = np.array([np.cos(np.linspace(0, 2 * np.pi, 120)), np.sin(np.linspace(0, 2 * np.pi, 120))])
    principal = {}
    for key, M in inertias.items():
        G = point_mobility(np.linalg.inv(M), point)[:2, :2]
        principal[key] = np.linalg.eigvalsh(np.linalg.inv(G))
        radius = 1 / np.sqrt(np.einsum("ik,ij,jk->k", circle, G, circle))     # sqrt of the effective mass
        ax.plot(*(point[:2, None] + scale * radius * circle), color=styles[key][0], lw=2, label=styles[key][1])
    ax.plot(*point[:2], "ko", ms=4)
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.legend(loc="upper left")
    return principal


def articulated_inertia_explorer(model=None):
    """Sliders for the outboard joints of a planar chain; shows how the first link's apparent mass changes.

    Parameters
    ----------
    model : Model, optional
        A planar chain (default: three uniform 1 kg, 1 m links).

    Returns
    -------
    ipywidgets.interactive
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from ..multibody.builders import planar_chain

    model = planar_chain(3) if model is None else model
    names = [f"q{j + 1}" for j in range(1, model.nv)]

    def show(**angles):
        q = np.concatenate([[0.0], [np.radians(angles[name]) for name in names]])
        fig, ax = plt.subplots(figsize=(6, 4.5))
        principal = draw_apparent_mass(ax, model, q)
        reach = float(np.sum(np.linalg.norm(np.diff(np.asarray(forward_kinematics(model, q).p)[:, :2], axis=0),
                                            axis=1))) + 1.0
        ax.set_xlim(-0.6, reach + 0.4)
        ax.set_ylim(-reach, reach)
        plt.show()
        print("principal apparent masses at the elbow (kg): "
              + "; ".join(f"{key} {np.round(value, 3)}" for key, value in principal.items()))

    return _explorer(show, **{name: widgets.FloatSlider(
        value=0.0, min=-180.0, max=180.0, step=5.0, continuous_update=False, description=f"{name} (deg)")
        for name in names})
