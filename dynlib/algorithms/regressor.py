"""The dynamics are linear in the inertial parameters: parameter vectors, regressors and base parameters.

Each body has ten standard inertial parameters, in its own frame, about its frame's origin
(``dynlib.PARAMETER_NAMES``): the mass ``m``, the first moment ``h = m c`` and the six entries of the
rotational inertia ``I_O`` about the origin.  The spatial inertia is linear in them::

    I = [[m 1, -[h]], [[h], I_O]]

so the Newton-Euler wrench ``f = I a + v x* I v`` of a body is ``Y(v, a) pi`` with a 6 x 10 matrix
(:func:`~dynlib.kernels.newton_euler_regressor`), and the joint torques, sums of projections of such wrenches, are
``tau = Y(q, qd, qdd) pi`` (:func:`~dynlib.joint_torque_regressor`).  Only some combinations of the
parameters change any torque: the base parameters (:func:`~dynlib.base_parameters`).

Chapter: *Identifying the inertial parameters* (``ch-identification``, ``eq-id-newton-euler`` to
``eq-id-base``); Atkeson, An & Hollerbach (1986); Gautier & Khalil (1990).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, check_finite, check_magnitude, exact, sympy_module, zeros
from ..core.compile import identity, kernel, run
from ..multibody.kinematics import body_kinematics
from ..multibody.model import Model, check_model, check_state, random_configuration, reference_point
from ..spatial.algebra import cross3, cross_motion, skew

__all__ = [
    "PARAMETER_NAMES",
    "inertial_parameters",
    "model_from_parameters",
    "joint_torque_regressor",
    "energy_regressor",
    "BaseParameters",
    "base_parameters",
]

#: The ten parameters of a body, in the order of every parameter vector (body frame, about its origin):
#: mass, first moment ``m c``, rotational inertia about the origin ``I_O`` (upper triangle, row by row).
PARAMETER_NAMES = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Ixz", "Iyy", "Iyz", "Izz")

# row and column of I_O that each of the last six parameters sits in
_ROW, _COLUMN = (0, 0, 0, 1, 1, 2), (0, 1, 2, 1, 2, 2)


def inertial_parameters(model):
    """The ten inertial parameters of every body, stacked body by body: ``pi`` of shape ``(10 n,)``.

    Body ``i``'s parameters ``pi[10 i : 10 i + 10]`` are, in its own frame and about its frame's
    origin (the joint), ``(m, m c_x, m c_y, m c_z, I_xx, I_xy, I_xz, I_yy, I_yz, I_zz)``
    (``dynlib.PARAMETER_NAMES``), with ``I_O = I_c - m [c][c]`` the rotational inertia about the origin.
    The spatial inertia is linear in them: ``I = [[m 1, -[h]], [[h], I_O]]`` with ``h = m c``.

    Parameters
    ----------
    model : Model

    Returns
    -------
    ndarray, shape (10 n,)
        Floats, or exact sympy numbers for a symbolic model.

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-parameters``); Atkeson, An & Hollerbach (1986).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> rod = dl.planar_chain(1, length=2.0, mass=3.0)      # its centre of mass at (1, 0, 0)
    >>> pi = dl.inertial_parameters(rod)
    >>> bool(pi[0] == 3.0 and pi[1] == 3.0 and np.isclose(pi[9], 3.0 * 2.0**2 / 3))   # m, m c_x, I_zz
    True
    """
    check_model(model)
    I = model.inertias
    pi = zeros((model.n_bodies, 10), model.symbolic)
    pi[:, 0] = I[:, 0, 0]
    pi[:, 1], pi[:, 2], pi[:, 3] = I[:, 5, 1], I[:, 3, 2], I[:, 4, 0]     # [h] = I[3:, :3]
    for k in range(6):
        pi[:, 4 + k] = I[:, 3 + _ROW[k], 3 + _COLUMN[k]]
    return pi.reshape(-1)


def _inertias(parameters):
    """Spatial inertias ``(n, 6, 6)`` of parameter rows ``(n, 10)`` (exactly symmetric)."""
    n = parameters.shape[0]
    I = zeros((n, 6, 6), parameters.dtype == object)
    m, h = parameters[:, 0], parameters[:, 1:4]
    for r in range(3):
        I[:, r, r] = m
    I[:, 3:, :3] = skew(h)
    I[:, :3, 3:] = -skew(h)
    for k in range(6):
        I[:, 3 + _ROW[k], 3 + _COLUMN[k]] = I[:, 3 + _COLUMN[k], 3 + _ROW[k]] = parameters[:, 4 + k]
    return I


def _parameter_rows(model, parameters, name="parameters"):
    """``parameters`` as checked rows ``(n, 10)``: a flat ``(10 n,)`` vector or ``(n, 10)``."""
    p = as_array(parameters, name)
    n = model.n_bodies
    if p.shape not in ((10 * n,), (n, 10)):
        raise ValueError(f"{name} must have shape ({10 * n},) or ({n}, 10): ten per body of the model, "
                         f"got {p.shape}")
    if p.dtype != object:
        check_finite(p, name)
        check_magnitude(p, name)
    return p.reshape(n, 10)


def model_from_parameters(model, parameters, strict_inertias=None):
    """The model with the same tree and new inertial parameters: the inverse of :func:`inertial_parameters`.

    Parameters
    ----------
    model : Model
        Gives the tree, joints, placements, gravity and names.
    parameters : array_like, shape (10 n,) or (n, 10)
        Ten parameters per body in the order of ``dynlib.PARAMETER_NAMES``.
    strict_inertias : bool, optional
        As for :class:`Model`: True asks every body to be a rigid body's (positive mass, principal
        moments obeying the triangle inequality); False takes the parameters as given, as a data
        file's (a negative mass is refused either way).  Default: the model's own setting.

    Returns
    -------
    Model

    Raises
    ------
    ValueError
        Wrong length, non-finite entries, or (with ``strict_inertias``) parameters of a body that no
        rigid body has; the message names the body.

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-parameters``).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> again = dl.model_from_parameters(arm, dl.inertial_parameters(arm))
    >>> bool(np.allclose(again.inertias, arm.inertias))
    True
    """
    check_model(model)
    rows = _parameter_rows(model, parameters)
    strict = model.strict_inertias if strict_inertias is None else strict_inertias
    try:
        return Model(model.parent, model.joints, model.placements, _inertias(rows), model.gravity, model.names,
                     strict)
    except ValueError as err:
        text = str(err)
        if text.startswith("inertias["):  # "inertias[i] is not ...": say which parameters those are
            i = int(text[len("inertias["):text.index("]")])
            rest = text[text.index("]") + 1:].replace(" is not ", " are not ", 1)
            text = f"the parameters of body {i} ({model.names[i]}, entries {10 * i} to {10 * i + 9}){rest}"
        raise ValueError(text) from None


@kernel(inline=True)
def newton_euler_regressor(v, a):
    """The Newton-Euler wrench of a body per unit of each of its ten parameters (body coordinates).

    ``f = I a + v x* I v = Y pi`` for the twist ``v = [nu; w]`` and the spatial acceleration
    ``a = [dnu; dw]`` of the body frame, both in the body's own coordinates, with
    ``abar = dnu + w x nu`` the classical acceleration of the frame's origin::

        f_linear  = m abar + (dw x + w x w x) h
        f_angular = h x abar + I_O dw + w x I_O w

    Parameters
    ----------
    v, a : ndarray, shape (6,)

    Returns
    -------
    ndarray, shape (6, 10)
        Column ``k`` is the wrench (about the body frame's origin) per unit of parameter ``k``.

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-body-regressor``); Atkeson, An & Hollerbach
    (1986) eq. 6.
    """
    Y = np.zeros((6, 10), dtype=v.dtype)
    w, dw = v[3:], a[3:]
    abar = a[:3] + cross3(w, v[:3])                 # acceleration of the origin
    Y[:3, 0] = abar                                 # m: m abar
    # h = m c: dw x h + w x (w x h) and h x abar
    Y[:3, 1:4] = skew(dw) + np.outer(w, w) - (w @ w) * identity(3, v)
    Y[3:, 1:4] = -skew(abar)
    for k in range(6):                              # I_O: I_O dw + w x I_O w
        E_w, E_dw = np.zeros(3, dtype=v.dtype), np.zeros(3, dtype=v.dtype)
        r, c = _ROW[k], _COLUMN[k]
        E_w[r], E_dw[r] = w[c], dw[c]               # (unit symmetric E_k) w
        if r != c:
            E_w[c], E_dw[c] = w[r], dw[r]
        Y[3:, 4 + k] = E_dw + cross3(w, E_w)
    return Y


@kernel(inline=True)
def _motion_to_body(R, p, v):
    """A world motion vector about the origin, in the coordinates of the frame at ``(R, p)``: ``X_0i^-1 v``."""
    out = np.zeros(6, dtype=v.dtype)
    at = v[:3] - cross3(p, v[3:])                       # velocity of the point at p
    for r in range(3):
        for k in range(3):
            out[r] += R[k, r] * at[k]
            out[3 + r] += R[k, r] * v[3 + k]
    return out


@kernel(inline=True)
def _forces_to_world(R, p, F):
    """Wrenches (columns of ``F``) about the origin of the frame at ``(R, p)``, in world coordinates: ``X*_0i F``."""
    out = np.zeros(F.shape, dtype=F.dtype)
    for c in range(F.shape[1]):
        for r in range(3):
            for k in range(3):
                out[r, c] += R[r, k] * F[k, c]
                out[3 + r, c] += R[r, k] * F[3 + k, c]
        out[3:, c] += cross3(p, out[:3, c])             # moment about the world origin
    return out


@kernel
def regressor_passes(m, q, qd, qdd):
    """The joint-torque regressor of one state: ``tau = Y pi`` (world frame, gravity as a base acceleration).

    Parameters
    ----------
    m : ModelArrays
        The model's arrays (``model.arrays``).
    q : ndarray, shape (nq,)
    qd, qdd : ndarray, shape (nv,)

    Returns
    -------
    Y : ndarray, shape (nv, 10 n)

    References
    ----------
    Chapter *Identifying the inertial parameters* (``alg-id-regressor``); Atkeson, An & Hollerbach (1986).
    """
    R, p, s, _ = body_kinematics(m, q)
    n = m.parent.shape[0]
    v = np.zeros((n, 6), dtype=qd.dtype)
    a = np.zeros((n, 6), dtype=qd.dtype)
    Y = np.zeros((qd.shape[0], 10 * n), dtype=qd.dtype)
    for i in range(n):                                  # out from the base
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        vJ = s[d].T @ qd[d]                             # s_i qd_i
        v[i] = v[k] + vJ if k >= 0 else vJ
        a[i] = (a[k] if k >= 0 else m.a_base) + s[d].T @ qdd[d] + cross_motion(v[i], vJ)
        # body i's wrench per unit parameter: in its own frame, then in the world's
        v_i, a_i = _motion_to_body(R[i], p[i], v[i]), _motion_to_body(R[i], p[i], a[i])
        F_i = _forces_to_world(R[i], p[i], newton_euler_regressor(v_i, a_i))
        j = i
        while j >= 0:                                   # every joint carrying body i
            e = slice(m.v_start[j], m.v_start[j + 1])
            Y[e, 10 * i:10 * i + 10] = s[e] @ F_i       # s_j^T f_i
            j = m.parent[j]
    return Y


@kernel
def regressor_batch(m, q, qd, qdd):
    """:func:`~dynlib.kernels.regressor_passes` for a batch of states (first axis)."""
    Y = np.zeros((q.shape[0], qd.shape[1], 10 * m.parent.shape[0]))
    for b in range(q.shape[0]):
        Y[b] = regressor_passes(m, q[b], qd[b], qdd[b])
    return Y


def joint_torque_regressor(model, q, qd, qdd):
    """The regressor ``Y(q, qd, qdd)`` with ``rnea(model, q, qd, qdd) = Y @ inertial_parameters(model)``.

    Inverse dynamics is linear in the inertial parameters: body ``i``'s Newton-Euler wrench is
    ``f_i = X*_0i Y_i(v_i, a_i) pi_i`` (:func:`~dynlib.kernels.newton_euler_regressor`, in the body's frame) and
    ``tau_j = s_j^T sum f_i`` over the subtree of ``j``.  So column block ``i`` of ``Y`` is
    ``s_j^T X*_0i Y_i`` in the rows of every joint ``j`` on the path from body ``i`` to the base, and
    zero elsewhere (:func:`~dynlib.kernels.regressor_passes`).  Gravity enters as the base's acceleration, as in
    :func:`dynlib.rnea`; external wrenches do not enter (they are not linear in the parameters).

    Parameters
    ----------
    model : Model
        Only its tree, joints, placements and gravity are used, never its inertias.
    q : array_like, shape (nq,) or (..., nq)
        A leading batch of states gives a batch of regressors.
    qd, qdd : array_like, shape (nv,) or (..., nv)

    Returns
    -------
    ndarray, shape (nv, 10 n) or (..., nv, 10 n)

    Raises
    ------
    ValueError
        If a state does not fit the model (the message names the argument).

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-regressor``, ``alg-id-regressor``); Atkeson, An &
    Hollerbach (1986); Khalil & Dombre (2002) ch. 12.

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> q, qd, qdd = [0.3, -0.5], [1.0, 2.0], [0.5, -1.0]
    >>> Y = dl.joint_torque_regressor(arm, q, qd, qdd)
    >>> bool(np.allclose(Y @ dl.inertial_parameters(arm), dl.rnea(arm, q, qd, qdd)))
    True
    """
    state = check_state(model, q, qd=qd, qdd=qdd)
    return run(regressor_passes, regressor_batch, state.m, (state.q, state.qd, state.qdd), state.batch,
               state.symbolic)


@kernel
def energy_regressor_passes(m, q, qd):
    """Kinetic and potential energy per unit of each parameter, for one state.

    Parameters
    ----------
    m : ModelArrays
    q : ndarray, shape (nq,)
    qd : ndarray, shape (nv,)

    Returns
    -------
    kinetic, potential : ndarray, shape (10 n,)

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-energy``).
    """
    R, p, s, _ = body_kinematics(m, q)                         # p from the reference point
    origin = reference_point(m, q)                             # that point, from the world origin
    n = m.parent.shape[0]
    v = np.zeros((n, 6), dtype=qd.dtype)
    kinetic = np.zeros(10 * n, dtype=qd.dtype)
    potential = np.zeros(10 * n, dtype=qd.dtype)
    g = -m.a_base[:3]
    for i in range(n):
        k, d = m.parent[i], slice(m.v_start[i], m.v_start[i + 1])
        v[i] = (v[k] if k >= 0 else np.zeros(6, dtype=qd.dtype)) + s[d].T @ qd[d]
        u = _motion_to_body(R[i], p[i], v[i])
        nu, w = u[:3], u[3:]
        kinetic[10 * i] = (nu @ nu) / 2                         # m |nu|^2 / 2
        kinetic[10 * i + 1:10 * i + 4] = cross3(nu, w)          # h . (nu x w)
        for j in range(6):                                      # w . I_O w / 2
            r, c = _ROW[j], _COLUMN[j]
            kinetic[10 * i + 4 + j] = w[r] * w[c] if r != c else w[r] * w[r] / 2
        potential[10 * i] = -(g @ (origin + p[i]))              # -m g . p, p from the world origin
        potential[10 * i + 1:10 * i + 4] = -(R[i].T @ g)        # -g . R h
    return kinetic, potential


@kernel
def energy_regressor_batch(m, q, qd):
    """:func:`energy_regressor_passes` for a batch of states (first axis)."""
    kinetic = np.zeros((q.shape[0], 10 * m.parent.shape[0]))
    potential = np.zeros_like(kinetic)
    for b in range(q.shape[0]):
        kinetic[b], potential[b] = energy_regressor_passes(m, q[b], qd[b])
    return kinetic, potential


def energy_regressor(model, q, qd):
    """The energy regressors: kinetic energy ``T = kinetic @ pi`` and potential energy ``U = potential @ pi``.

    With the body twist ``[nu; w]`` in body ``i``'s own coordinates and ``(R_i, p_i)`` its pose::

        T_i = m |nu|^2 / 2 + h . (nu x w) + w . I_O w / 2,     U_i = -m g . p_i - g . R_i h

    both linear in ``pi_i``; ``T = system_kinetic_energy`` and ``U = system_potential_energy``.
    The power balance ``d(T + U)/dt = tau . qd`` makes the energy form of identification (no
    accelerations needed).

    Parameters
    ----------
    model : Model
    q : array_like, shape (nq,) or (..., nq)
    qd : array_like, shape (nv,) or (..., nv)

    Returns
    -------
    kinetic, potential : ndarray, shape (10 n,) or (..., 10 n)

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-energy``); Gautier & Khalil (1988).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> kinetic, potential = dl.energy_regressor(arm, [0.3, -0.5], [1.0, 2.0])
    >>> pi = dl.inertial_parameters(arm)
    >>> bool(np.isclose((kinetic + potential) @ pi, dl.system_energy(arm, [0.3, -0.5], [1.0, 2.0])))
    True
    """
    state = check_state(model, q, qd=qd)
    return run(energy_regressor_passes, energy_regressor_batch, state.m, (state.q, state.qd), state.batch,
               state.symbolic)


class BaseParameters(NamedTuple):
    """The identifiable combinations of a model's inertial parameters (:func:`base_parameters`).

    Every regressor satisfies ``Y[..., dependent] = Y[..., independent] @ beta``, so
    ``Y @ pi = Y[..., independent] @ (pi[independent] + beta @ pi[dependent])``.

    Attributes
    ----------
    independent : ndarray of int, shape (r,)
        The parameters kept: the columns of the base regressor.
    dependent : ndarray of int, shape (10 n - r,)
        The parameters that are regrouped into the kept ones (or that change no torque at all).
    beta : ndarray, shape (r, 10 n - r)
        How they regroup (floats, or exact sympy numbers from a symbolic model).
    """

    independent: np.ndarray
    dependent: np.ndarray
    beta: np.ndarray

    def of(self, parameters):
        """The base parameters ``pi_b = pi[independent] + beta @ pi[dependent]`` of a parameter vector.

        Parameters
        ----------
        parameters : array_like, shape (10 n,) or (..., 10 n)

        Returns
        -------
        ndarray, shape (r,) or (..., r)
        """
        pi = np.asarray(parameters)
        if pi.shape[-1:] != (len(self.independent) + len(self.dependent),):
            raise ValueError(f"parameters must have {len(self.independent) + len(self.dependent)} entries "
                             f"(ten per body), got shape {pi.shape}")
        return pi[..., self.independent] + pi[..., self.dependent] @ self.beta.T

    def nearest(self, values, prior):
        """The full parameter vector nearest to ``prior`` (Euclidean) whose base parameters are ``values``.

        ``prior + K^+ (values - K prior)``, with ``K`` the map ``pi -> pi_b`` and ``K^+`` its
        pseudo-inverse: the published parameters, say, moved as little as the identified base
        parameters ask.  Nothing makes it physically consistent.

        Parameters
        ----------
        values : array_like, shape (r,)
        prior : array_like, shape (10 n,)

        Returns
        -------
        ndarray, shape (10 n,)
        """
        r, p = len(self.independent), len(self.independent) + len(self.dependent)
        values, prior = np.asarray(values, dtype=float), np.asarray(prior, dtype=float)
        if values.shape != (r,) or prior.shape != (p,):
            raise ValueError(f"values must have shape ({r},) and prior ({p},), got {values.shape} and {prior.shape}")
        K = np.zeros((r, p))
        K[:, self.independent] = np.eye(r)
        K[:, self.dependent] = np.asarray(self.beta, dtype=float)
        return prior + np.linalg.lstsq(K, values - K @ prior, rcond=None)[0]

    def regressor(self, Y):
        """The base regressor ``Y[..., independent]``: ``Y @ pi = base.regressor(Y) @ base.of(pi)``.

        Parameters
        ----------
        Y : array_like, shape (..., 10 n)

        Returns
        -------
        ndarray, shape (..., r)
        """
        return np.asarray(Y)[..., self.independent]


def base_parameters(model, samples=None, rng=0, tolerance=1e-8):
    """The base parameters: which combinations of the inertial parameters the joint torques determine.

    Numeric models: the regressors of ``samples`` random states are stacked (``q`` from
    :func:`dynlib.random_configuration`, ``qd`` and ``qdd`` standard normal) and their columns scaled to
    unit length.  A QR factorisation with column pivoting reveals the rank ``r`` (diagonal entries above
    ``tolerance`` times the largest); the kept columns are then chosen from the first body outwards, a
    column being kept when it is not in the span of the columns before it (the diagonal of the
    unpivoted QR), so that each dependent parameter regroups onto parameters of its own body and of
    the bodies nearer the base (Gautier's convention).  ``beta`` solves
    ``Y[:, independent] beta = Y[:, dependent]`` by least squares.

    Symbolic models (``model.exact()`` or sympy lengths and masses): exactly, with sympy.  The regressor
    is computed on symbols, written as a polynomial in the cosines and sines of the joint angles (and
    the other coordinates, rates and accelerations) reduced by ``cos^2 + sin^2 = 1``, whose monomials
    are independent functions; the exact reduced row echelon form of the stacked coefficients gives the
    kept columns and ``beta``.  The cost grows quickly with the number of bodies: meant for small
    models such as planar chains.

    Parameters
    ----------
    model : Model
    samples : int, optional
        Number of random states (numeric route); default enough for three times as many rows as
        parameters.
    rng : int or numpy.random.Generator
        Seed or generator of the random states (numeric route).
    tolerance : float
        Relative size below which a column counts as dependent (numeric route).

    Returns
    -------
    BaseParameters

    Raises
    ------
    ValueError
        If the two QR factorisations disagree on the rank (ask for more samples).

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-base``); Gautier & Khalil (1990); Gautier (1991).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)        # two links turning about z, gravity in their plane
    >>> base = dl.base_parameters(arm)
    >>> len(base.independent)           # m c_x, m c_y, I_zz of each link; the second link's mass regroups
    6
    >>> Y = dl.joint_torque_regressor(arm, [0.3, -0.5], [1.0, 2.0], [0.5, -1.0])
    >>> pi = dl.inertial_parameters(arm)
    >>> bool(np.allclose(base.regressor(Y) @ base.of(pi), Y @ pi))
    True
    """
    check_model(model)
    if model.symbolic:
        return _exact_base_parameters(model)
    if not (isinstance(tolerance, (float, int)) and 0 < tolerance < 1):
        raise ValueError(f"tolerance must be a number between 0 and 1, got {tolerance!r}")
    p = 10 * model.n_bodies
    if samples is None:
        samples = max(3 * p // max(model.nv, 1) + 1, 10)
    if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
        raise ValueError(f"samples must be a positive int, got {samples!r}")
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        rng = np.random.default_rng(rng)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a seed (int) or a numpy.random.Generator, got {type(rng).__name__}")
    if model.nv == 0:
        return BaseParameters(np.zeros(0, int), np.arange(p), np.zeros((0, p)))
    Q = np.array([random_configuration(model, rng) for _ in range(samples)])
    QD, QDD = rng.normal(size=(2, samples, model.nv))
    W = joint_torque_regressor(model, Q, QD, QDD).reshape(-1, p)
    return _numeric_base(W, tolerance)


def _numeric_base(W, tolerance):
    """Kept columns and ``beta`` of a stacked regressor ``W`` (see :func:`base_parameters`)."""
    from scipy.linalg import qr

    p = W.shape[1]
    norms = np.linalg.norm(W, axis=0)
    live = np.flatnonzero(norms > tolerance * max(norms.max(initial=0.0), np.finfo(float).tiny))
    if live.size == 0:
        return BaseParameters(np.zeros(0, int), np.arange(p), np.zeros((0, p)))
    scaled = W[:, live] / norms[live]
    diagonal = np.abs(np.diag(qr(scaled, mode="r", pivoting=True)[0]))
    rank = int(np.sum(diagonal > tolerance * diagonal[0]))
    in_order = np.abs(np.diag(qr(scaled, mode="r")[0]))
    kept = live[in_order > tolerance]
    if len(kept) != rank:
        raise ValueError(f"the stacked regressor's rank is unclear: {rank} by pivoted QR, {len(kept)} column by "
                         "column; ask for more samples")
    dependent = np.setdiff1d(np.arange(p), kept)
    beta = np.linalg.lstsq(W[:, kept], W[:, dependent], rcond=None)[0]
    beta[np.abs(beta) <= tolerance * np.abs(beta).max(initial=1.0)] = 0.0  # structural zeros, not round-off
    return BaseParameters(kept, dependent, beta)


def _state_symbols(model):
    """Symbols for ``q``, ``qd``, ``qdd`` of ``model``, and the relations between the functions they make.

    Returns ``(q, qd, qdd, replace, generators, relations)``: each joint angle's ``cos``/``sin`` is
    replaced by a symbol ``c``/``s`` with ``s**2 + c**2 - 1`` a relation; a quaternion's entries get
    ``x**2 + y**2 + z**2 + w**2 - 1``.
    """
    sp = sympy_module()
    q, replace, angles, others, relations = [], {}, [], [], []
    for i, joint in enumerate(model.joints):
        if joint.kind in ("revolute", "helical"):
            x = sp.Symbol(f"q{i}", real=True)
            c, s = sp.symbols(f"c{i} s{i}", real=True)
            replace[sp.cos(x)], replace[sp.sin(x)] = c, s
            angles += [s, c]
            relations.append(s**2 + c**2 - 1)
            q.append(x)
            if joint.kind == "helical":
                others.append(x)
        elif joint.kind in ("spherical", "free"):
            position = list(sp.symbols(f"q{i}_x q{i}_y q{i}_z", real=True)) if joint.kind == "free" else []
            quaternion = list(sp.symbols(f"q{i}_qx q{i}_qy q{i}_qz q{i}_qw", real=True))
            q += position + quaternion
            angles += [quaternion[3]] + quaternion[:3]
            others += position
            relations.append(sum(e**2 for e in quaternion) - 1)
        else:
            coordinates = list(sp.symbols(f"q{i}_0:{joint.nq}", real=True))
            q += coordinates
            others += coordinates
    qd = list(sp.symbols(f"qd0:{model.nv}", real=True))
    qdd = list(sp.symbols(f"qdd0:{model.nv}", real=True))
    return q, qd, qdd, replace, angles + others + qd + qdd, relations


def _exact_base_parameters(model):
    """:func:`base_parameters` of a symbolic model, exactly (see there)."""
    sp = sympy_module()
    p = 10 * model.n_bodies
    q, qd, qdd, replace, generators, relations = _state_symbols(model)
    Y = joint_torque_regressor(model, np.array(q, dtype=object), np.array(qd, dtype=object),
                               np.array(qdd, dtype=object))
    rows, columns = {}, []
    for column in range(p):
        coefficients = {}
        for r in range(model.nv):
            entry = sp.expand(sp.sympify(Y[r, column]).xreplace(replace))
            if entry == 0:
                continue
            if relations:
                entry = sp.reduced(entry, relations, *generators, order="lex")[1]
            for monomial, coefficient in sp.Poly(entry, *generators).terms():
                key = (r, monomial)
                rows.setdefault(key, len(rows))
                coefficients[rows[key]] = coefficient
        columns.append(coefficients)
    C = sp.zeros(len(rows), p)
    for column, coefficients in enumerate(columns):
        for row, coefficient in coefficients.items():
            C[row, column] = coefficient
    echelon, pivots = C.rref(simplify=True)
    kept = np.array(pivots, dtype=int)
    dependent = np.setdiff1d(np.arange(p), kept)
    beta = np.empty((len(kept), len(dependent)), dtype=object)
    for a in range(len(kept)):
        for b, column in enumerate(dependent):
            beta[a, b] = sp.simplify(echelon[a, column])
    return BaseParameters(kept, dependent, exact(beta) if beta.size else beta)
