"""Time integration: fixed-step integrators on the configuration manifold, energy tracking,
loop constraints and impacts against planes.

Configurations move by :func:`dynlib.integrate` (quaternions stay unit).  Three steps are
offered: explicit Euler, semi-implicit (symplectic) Euler, and RK4 in its
Runge–Kutta–Munthe-Kaas form, whose stages live in the chart ``q = q_n (+) xi`` and use
``d xi/dt = dexp^-1(qd) = qd + [xi, qd]/2 + [xi, [xi, qd]]/12`` for spherical and free
joints, which keeps fourth-order accuracy on the rotation group too.

Chapter: *Simulation: integrating the equations of motion* (``ch-simulation``); Joint Motion
(2017) eq. 5 (quaternion rates), Kim (2012) eq. 9 (body velocity) and §3 (constraints),
Alexiou (2023) eqs. 19-28 (impacts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, check_scalar
from ..multibody.kinematics import forward_kinematics, marker_motion
from ..multibody.loops import project_configuration
from ..multibody.model import check_joint_vector, check_model, check_state, integrate
from ..spatial.algebra import cross3, cross_motion
from ..spatial.screws import line_coordinates
from .articulated import aba
from .constrained_dynamics import constrained_forward_dynamics, project_velocity
from .energy import system_energy
from .impulse import contact_impulse, impulse_propagation

__all__ = [
    "PlaneContact",
    "Impact",
    "Trajectory",
    "simulate",
    "step_rk4",
    "step_semi_implicit_euler",
    "step_explicit_euler",
]


@dataclass(frozen=True)
class PlaneContact:
    """A point of a body that may hit a fixed plane (a wall, a floor).

    Parameters
    ----------
    body : int
    point : array_like, shape (3,)
        The point, in the body's frame.
    plane_point : array_like, shape (3,)
        A point of the plane, world frame.
    normal : array_like, shape (3,)
        Unit normal of the plane pointing into free space (normalised here).
    restitution : float
        Coefficient of restitution ``epsilon`` in [0, 1].
    """

    body: int
    point: np.ndarray
    plane_point: np.ndarray
    normal: np.ndarray
    restitution: float = 0.5

    def __post_init__(self):
        for name in ("point", "plane_point", "normal"):
            value = as_array(getattr(self, name), name)
            if value.shape != (3,):
                raise ValueError(f"{name} must have shape (3,), got {value.shape}")
            object.__setattr__(self, name, value)
        norm = np.linalg.norm(self.normal)
        if norm < 1e-12:
            raise ValueError("normal must be a non-zero 3-vector")
        object.__setattr__(self, "normal", self.normal / norm)
        if not 0 <= self.restitution <= 1:
            raise ValueError(f"restitution must lie in [0, 1], got {self.restitution}")

    def gap(self, kin):
        """Signed distance of the point from the plane (negative: penetrating)."""
        x, _, _ = marker_motion(kin, self.body, self.point)
        return float(self.normal @ (x - self.plane_point))


class Impact(NamedTuple):
    """An impact found during a simulation.

    Attributes
    ----------
    t : float
        Time of the impact.
    contact : int
        Index of the contact in the list given to :func:`simulate`.
    J : float
        Impulse magnitude.
    v_impact, v_bounce : float
        Approach speed along the contact normal before, and after (``-epsilon v_impact``).
    """

    t: float
    contact: int
    J: float
    v_impact: float
    v_bounce: float


class Trajectory(NamedTuple):
    """Result of :func:`simulate`.

    Attributes
    ----------
    t : ndarray, shape (N,)
    q : ndarray, shape (N, nq), or (N, ..., nq) for an ensemble
    qd : ndarray, shape (N, nv), or (N, ..., nv)
    energy : ndarray, shape (N,), or (N, ...)
        Kinetic plus gravitational potential energy.
    impacts : list of Impact
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    energy: np.ndarray
    impacts: list


def _chart_rate(model, xi, v):
    """d xi / dt = dexp^-1_{-xi}(v), truncated after the [xi, [xi, v]] term, joint by joint."""
    rate = np.array(np.broadcast_to(v, np.broadcast_shapes(xi.shape, v.shape)))
    for i, joint in enumerate(model.joints):
        vs = model.v_slices[i]
        if joint.kind == "spherical":
            x, w = xi[..., vs], v[..., vs]
            half = cross3(x, w)
            rate[..., vs] = w + half / 2 + cross3(x, half) / 12
        elif joint.kind == "free":
            x, w = xi[..., vs], v[..., vs]
            half = cross_motion(x, w)
            rate[..., vs] = w + half / 2 + cross_motion(x, half) / 12
    return rate


def step_rk4(model, acceleration, t, q, qd, dt):
    """One Runge–Kutta–Munthe-Kaas step of order four.

    Parameters
    ----------
    model : Model
    acceleration : callable
        ``acceleration(t, q, qd) -> qdd``.
    t : float
    q : ndarray, shape (nq,) or (..., nq)
    qd : ndarray, shape (nv,) or (..., nv)
        A batch of states steps all of them at once.
    dt : float

    Returns
    -------
    q, qd : ndarray, shapes (nq,), (nv,) or (..., nq), (..., nv)
    """
    zero = np.zeros(model.nv)
    k1x = _chart_rate(model, zero, qd)
    k1v = acceleration(t, q, qd)
    x2, v2 = dt / 2 * k1x, qd + dt / 2 * k1v
    k2x = _chart_rate(model, x2, v2)
    k2v = acceleration(t + dt / 2, integrate(model, q, x2), v2)
    x3, v3 = dt / 2 * k2x, qd + dt / 2 * k2v
    k3x = _chart_rate(model, x3, v3)
    k3v = acceleration(t + dt / 2, integrate(model, q, x3), v3)
    x4, v4 = dt * k3x, qd + dt * k3v
    k4x = _chart_rate(model, x4, v4)
    k4v = acceleration(t + dt, integrate(model, q, x4), v4)
    xi = dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
    return integrate(model, q, xi), qd + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)


def step_semi_implicit_euler(model, acceleration, t, q, qd, dt):
    """One semi-implicit (symplectic) Euler step: velocity first, then the configuration with it.

    Parameters
    ----------
    model : Model
    acceleration : callable
        ``acceleration(t, q, qd) -> qdd``.
    t : float
    q : ndarray, shape (nq,) or (..., nq)
    qd : ndarray, shape (nv,) or (..., nv)
        A batch of states steps all of them at once.
    dt : float

    Returns
    -------
    q, qd : ndarray, shapes (nq,), (nv,) or (..., nq), (..., nv)
    """
    qd_new = qd + dt * acceleration(t, q, qd)
    return integrate(model, q, qd_new, dt), qd_new


def step_explicit_euler(model, acceleration, t, q, qd, dt):
    """One explicit (forward) Euler step: configuration and velocity both from the old state.

    ``q_new = q (+) dt qd`` and ``qd_new = qd + dt qdd(t, q, qd)``.  First order, and it pumps
    energy into an undamped oscillation (by the factor ``1 + dt^2 omega^2`` per step for a
    harmonic oscillator of frequency ``omega``); it is here to be compared with the others.

    Parameters
    ----------
    model : Model
    acceleration : callable
        ``acceleration(t, q, qd) -> qdd``.
    t : float
    q : ndarray, shape (nq,) or (..., nq)
    qd : ndarray, shape (nv,) or (..., nv)
        A batch of states steps all of them at once.
    dt : float

    Returns
    -------
    q, qd : ndarray, shapes (nq,), (nv,) or (..., nq), (..., nv)
    """
    return integrate(model, q, qd, dt), qd + dt * acceleration(t, q, qd)


STEPPERS = {"rk4": step_rk4, "semi-implicit-euler": step_semi_implicit_euler, "explicit-euler": step_explicit_euler}


def _torque_function(model, tau):
    if tau is None:
        zero = np.zeros(model.nv)
        return lambda t, q, qd: zero
    if callable(tau):
        return tau
    tau = check_joint_vector(model, tau, "tau").astype(float)
    return lambda t, q, qd: tau


def _resolve_impact(model, q, qd, contact, index, t):
    kin = forward_kinematics(model, q, qd)
    x, _, _ = marker_motion(kin, contact.body, contact.point)
    n = line_coordinates(x, -contact.normal)  # into the obstacle
    v_impact = float(n @ kin.v[contact.body])
    if v_impact <= 0:  # separating or sliding: no impulse
        return qd, None
    if model.is_chain():
        res = impulse_propagation(
            model, q, qd, n, contact.restitution, body=contact.body
        )
        impact = Impact(t, index, float(res.J), v_impact, float(res.v_bounce))
        return qd + res.dqd, impact
    J, dqd = contact_impulse(model, q, qd, n, contact.restitution, contact.body)
    v_bounce = float(n @ forward_kinematics(model, q, qd + dqd).v[contact.body])
    return qd + dqd, Impact(t, index, float(J), v_impact, v_bounce)


#: Most steps one call of :func:`simulate` takes: a guard against a mistyped duration or dt,
#: which would otherwise run for hours.
MAX_STEPS = 10_000_000


def _step_count(duration, dt):
    """Number of steps of size ``dt`` in ``duration``, after checking both."""
    check_scalar(duration, "duration")
    check_scalar(dt, "dt")
    if not dt > 0 or not duration >= 0:
        raise ValueError(f"dt must be positive and duration non-negative, got dt={dt}, duration={duration}")
    if not duration / dt <= MAX_STEPS:
        raise ValueError(f"duration / dt = {duration / dt:.3g} steps is more than {MAX_STEPS:,}; use a larger dt")
    return int(round(duration / dt))


def simulate(model, q0, qd0, duration, dt, method="rk4", tau=None, f_ext=None, constraints=None,
             baumgarte=None, project=False, contacts=()):
    """Integrate the equations of motion with a fixed step, recording energy and impacts.

    Parameters
    ----------
    model : Model
    q0 : array_like, shape (nq,) or (..., nq)
    qd0 : array_like, shape (nv,) or (..., nv)
        A leading batch of initial states simulates an ensemble, all states in one pass
        of the same code (without constraints and contacts); the trajectory's arrays then
        have the batch axes after the time axis.
    duration, dt : float
    method : {"rk4", "semi-implicit-euler", "explicit-euler"}
        The fixed-step integrator: :func:`step_rk4`, :func:`step_semi_implicit_euler` or
        :func:`step_explicit_euler`.
    tau : array_like, shape (nv,), or callable ``tau(t, q, qd)``, optional
        Joint forces (zero by default).
    f_ext : array_like, shape (n, 6), optional
        Constant external wrenches.
    constraints : sequence of LoopConstraint and JointCoupling, optional
        Loop closures and joint couplings; accelerations then come from :func:`constrained_forward_dynamics`.
    baumgarte : (float, float), optional
        Baumgarte gains for the constraints.
    project : bool
        Project ``q`` and ``qd`` back onto the constraints after every step.
    contacts : sequence of PlaneContact
        Points that bounce off planes; each impact is located within the step by bisection
        and resolved with :func:`impulse_propagation` (chains) or :func:`contact_impulse`.
        A point that hits its plane again within two steps has come to rest on it:
        resting contact needs contact forces, not impulses, and is not modelled, so the
        simulation stops there with a ValueError rather than chatter through micro-impacts.

    Returns
    -------
    Trajectory

    Raises
    ------
    ValueError
        If a contact point starts behind its plane, or comes to rest on it; if ``duration / dt``
        is more than ``MAX_STEPS`` (ten million) steps.

    References
    ----------
    Alexiou (2023) §2 (impulse and law of contact); Munthe-Kaas (1998) for RK4 on Lie groups.
    """
    check_model(model)
    if method not in STEPPERS:
        raise ValueError(f"method must be one of {sorted(STEPPERS)}, got {method!r}")
    steps = _step_count(duration, dt)
    step = STEPPERS[method]
    torque = _torque_function(model, tau)
    contacts = list(contacts)
    if constraints:
        def acceleration(t, q, qd):
            return constrained_forward_dynamics(model, q, qd, torque(t, q, qd), constraints, f_ext, baumgarte)[0]
    else:
        def acceleration(t, q, qd):
            return aba(model, q, qd, torque(t, q, qd), f_ext)

    state = check_state(model, q0, qd=qd0)
    q, qd, batch = state.q, state.qd, state.batch
    if batch and (constraints or contacts):
        raise ValueError(f"an ensemble (q0 and qd0 with batch shape {batch}) is simulated without constraints and "
                         "contacts; simulate constrained or colliding systems one initial state at a time")
    q = np.broadcast_to(q, batch + q.shape[-1:]).astype(float)
    qd = np.broadcast_to(qd, batch + qd.shape[-1:]).astype(float)
    kin0 = forward_kinematics(model, q)
    for i, contact in enumerate(contacts):
        if contact.gap(kin0) < 0:
            raise ValueError(f"contact {i} starts behind its plane (gap {contact.gap(kin0):.3g}); start outside it")
    ts, qs, qds, energies, impacts = [0.0], [q], [qd], [system_energy(model, q, qd)], []
    t = 0.0
    for k in range(steps):
        q_new, qd_new = step(model, acceleration, t, q, qd, dt)
        hit = _first_penetration(model, q_new, contacts)
        if hit is not None:  # locate the impact inside the step, bounce, finish the step
            h_lo, h_hi = 0.0, dt
            for _ in range(40):
                h_mid = (h_lo + h_hi) / 2
                q_mid, _ = step(model, acceleration, t, q, qd, h_mid)
                if contacts[hit].gap(forward_kinematics(model, q_mid)) < 0:
                    h_hi = h_mid
                else:
                    h_lo = h_mid
            q_c, qd_c = step(model, acceleration, t, q, qd, h_lo)
            qd_c, impact = _resolve_impact(model, q_c, qd_c, contacts[hit], hit, t + h_lo)
            if impact is not None:
                if any(i.contact == hit and impact.t - i.t < 2 * dt for i in impacts):
                    raise ValueError(
                        f"contact {hit} came to rest on its plane at t = {impact.t:.4g} s (it hit the plane in "
                        "consecutive steps); resting contact is not modelled"
                    )
                impacts.append(impact)
            q_new, qd_new = step(model, acceleration, t + h_lo, q_c, qd_c, dt - h_lo)
        if constraints and project:
            q_new = project_configuration(model, q_new, constraints)
            qd_new = project_velocity(model, q_new, qd_new, constraints)
        t = (k + 1) * dt
        q, qd = q_new, qd_new
        ts.append(t)
        qs.append(q)
        qds.append(qd)
        energies.append(system_energy(model, q, qd))
    return Trajectory(np.array(ts), np.array(qs), np.array(qds), np.array(energies), impacts)


def _first_penetration(model, q, contacts):
    if not contacts:
        return None
    kin = forward_kinematics(model, q)
    gaps = [c.gap(kin) for c in contacts]
    worst = int(np.argmin(gaps))
    return worst if gaps[worst] < 0 else None
