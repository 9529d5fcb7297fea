"""Identifying inertial parameters from measured torques: excitation, least squares, physical consistency.

The torques are linear in the base parameters, ``tau = Y_b(q, qd, qdd) pi_b``
(:mod:`dynlib.algorithms.regressor`), so the samples of a motion stack into an overdetermined linear
system that least squares solves (:func:`~dynlib.identify_base_parameters`), ordinarily or weighted by each
joint's noise, with a friction model beside it if asked.  A motion excites the parameters well when the
stacked regressor is well conditioned (:func:`~dynlib.excitation_condition`); periodic finite Fourier series
(:func:`~dynlib.fourier_trajectory`) are the usual choice.  A least-squares estimate may belong to no rigid
body at all; a body's parameters are physically consistent exactly when its 4 x 4 pseudo-inertia is positive
semidefinite (:func:`~dynlib.pseudo_inertia`, :func:`~dynlib.consistency_violations`), and
:func:`~dynlib.identify_consistent_parameters` fits the torques under that condition.

Chapter: *Identifying the inertial parameters* (``ch-identification``, ``eq-id-least-squares`` to
``eq-id-consistent``); Gautier & Khalil (1990); Swevers, Ganseman, Tukel, De Schutter & Van Brussel (1997);
Wensing, Kim & Slotine (2018); Rucker & Wensing (2022).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.backend import as_array, check_finite, check_magnitude, check_scalar, quoted, quoted_list
from ..core.compile import run
from ..multibody.model import check_model, check_state
from .regressor import BaseParameters, base_parameters, inertial_parameters, regressor_batch, regressor_passes

__all__ = [
    "pseudo_inertia",
    "parameters_from_pseudo_inertia",
    "consistency_violations",
    "fourier_trajectory",
    "excitation_condition",
    "Identification",
    "identify_base_parameters",
    "ConsistentIdentification",
    "identify_consistent_parameters",
]

_ROW, _COLUMN = (0, 0, 0, 1, 1, 2), (0, 1, 2, 1, 2, 2)


def pseudo_inertia(parameters):
    """The 4 x 4 pseudo-inertia of each body's ten parameters: ``J = [[Sigma, h], [h^T, m]]``.

    ``Sigma = tr(I_O) 1 / 2 - I_O`` is the body's second moment of mass about its frame's origin,
    ``integral of r r^T dm``, ``h = m c`` its first moment and ``m`` its mass, so that
    ``J = integral of [r; 1] [r; 1]^T dm``.  A body's parameters belong to some distribution of
    non-negative mass exactly when ``J`` is positive semidefinite (Wensing, Kim & Slotine, 2018).

    Parameters
    ----------
    parameters : array_like, shape (..., 10)
        One body's parameters in the order of ``dynlib.PARAMETER_NAMES`` (``(n, 10)`` for n bodies).

    Returns
    -------
    ndarray, shape (..., 4, 4)

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-pseudo-inertia``); Wensing, Kim & Slotine (2018).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> rod = dl.planar_chain(1, length=2.0, mass=3.0)       # 3 kg, centre of mass at (1, 0, 0)
    >>> J = dl.pseudo_inertia(dl.inertial_parameters(rod))
    >>> bool(np.allclose(J[3], [3.0, 0.0, 0.0, 3.0]) and np.linalg.eigvalsh(J).min() > -1e-12)   # a flat link
    True
    """
    pi = as_array(parameters, "parameters")
    if pi.shape[-1:] != (10,):
        raise ValueError(f"parameters must have shape (..., 10): ten per body, got {pi.shape}")
    if pi.dtype != object:
        check_finite(pi, "parameters")
    I_O = np.zeros(pi.shape[:-1] + (3, 3), dtype=pi.dtype)
    for k in range(6):
        I_O[..., _ROW[k], _COLUMN[k]] = I_O[..., _COLUMN[k], _ROW[k]] = pi[..., 4 + k]
    J = np.zeros(pi.shape[:-1] + (4, 4), dtype=pi.dtype)
    trace = I_O[..., 0, 0] + I_O[..., 1, 1] + I_O[..., 2, 2]
    J[..., :3, :3] = -I_O
    for r in range(3):
        J[..., r, r] += trace / 2
    J[..., :3, 3] = J[..., 3, :3] = pi[..., 1:4]
    J[..., 3, 3] = pi[..., 0]
    return J


def parameters_from_pseudo_inertia(J):
    """The ten parameters of a pseudo-inertia: the inverse of :func:`pseudo_inertia`.

    ``m = J[3, 3]``, ``h = J[:3, 3]`` and ``I_O = tr(Sigma) 1 - Sigma`` with ``Sigma = J[:3, :3]``.

    Parameters
    ----------
    J : array_like, shape (..., 4, 4)
        Symmetric.

    Returns
    -------
    ndarray, shape (..., 10)

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> pi = dl.inertial_parameters(dl.planar_chain(2))
    >>> bool(np.allclose(dl.parameters_from_pseudo_inertia(dl.pseudo_inertia(pi.reshape(2, 10))).ravel(), pi))
    True
    """
    J = as_array(J, "J")
    if J.shape[-2:] != (4, 4):
        raise ValueError(f"J must have shape (..., 4, 4), got {J.shape}")
    if J.dtype != object:
        check_finite(J, "J")
        if not np.allclose(J, np.swapaxes(J, -1, -2), rtol=0, atol=1e-12 * max(np.abs(J).max(initial=0.0), 1e-300)):
            raise ValueError("J must be symmetric")
    Sigma = J[..., :3, :3]
    trace = Sigma[..., 0, 0] + Sigma[..., 1, 1] + Sigma[..., 2, 2]
    pi = np.zeros(J.shape[:-2] + (10,), dtype=J.dtype)
    pi[..., 0] = J[..., 3, 3]
    pi[..., 1:4] = J[..., :3, 3]
    for k in range(6):
        r, c = _ROW[k], _COLUMN[k]
        pi[..., 4 + k] = (trace if r == c else 0) - Sigma[..., r, c]
    return pi


def _rows(model, parameters, name="parameters"):
    """Checked parameter rows ``(n, 10)`` of ``model`` (its own parameters when ``parameters`` is None)."""
    if parameters is None:
        parameters = inertial_parameters(model)
    p = as_array(parameters, name)
    n = model.n_bodies
    if p.shape not in ((10 * n,), (n, 10)):
        raise ValueError(f"{name} must have shape ({10 * n},) or ({n}, 10): ten per body of the model, "
                         f"got {p.shape}")
    if p.dtype == object:
        raise TypeError(f"{name} must be numbers, not sympy expressions")
    check_finite(p, name)
    check_magnitude(p, name)
    return p.reshape(n, 10)


def consistency_violations(model, parameters=None, tolerance=1e-10):
    """What makes inertial parameters physically impossible, body by body: an empty list when none does.

    Body ``i``'s parameters are consistent when its pseudo-inertia ``J_i`` (:func:`pseudo_inertia`) is
    positive semidefinite (its smallest eigenvalue at least ``-tolerance`` times its largest
    magnitude).  That holds exactly when the mass is not negative and, for a positive mass, the
    principal moments about the centre of mass obey the triangle inequalities ``I1 + I2 >= I3``
    (which make them non-negative); for a zero mass, everything must vanish.  Each message names the
    body and the condition it breaks.

    Parameters
    ----------
    model : Model
        Gives the number of bodies and their names.
    parameters : array_like, shape (10 n,) or (n, 10), optional
        Default: the model's own (:func:`dynlib.inertial_parameters`).
    tolerance : float
        Relative tolerance on the eigenvalues of the pseudo-inertia.

    Returns
    -------
    list of str

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-pseudo-inertia``); Wensing, Kim & Slotine (2018);
    chapter *Spatial inertia* for the triangle inequalities.

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> dl.consistency_violations(arm)
    []
    >>> pi = dl.inertial_parameters(arm)
    >>> pi[19] = 0.01                       # the second link's I_zz, far below m l^2 / 3
    >>> print(dl.consistency_violations(arm, pi)[0])   # doctest: +ELLIPSIS
    body 1 (body1): principal moments [...] kg m^2 about the centre of mass ... triangle inequality I1 + I2 >= I3 ...
    """
    check_model(model)
    rows = _rows(model, parameters)
    check_scalar(tolerance, "tolerance", low=0.0, high=1.0)
    messages = []
    for i, (pi, J) in enumerate(zip(rows, pseudo_inertia(rows))):
        eig = np.linalg.eigvalsh(J)
        scale = np.abs(J).max()
        floor = tolerance * scale
        if eig[0] >= -floor:
            continue
        m, h = pi[0], pi[1:4]
        where = f"body {i} ({model.names[i]}): "
        smallest = f"(the pseudo-inertia's smallest eigenvalue is {quoted(eig[0], floor, 2)})"
        if m < -floor:
            messages.append(where + f"mass {quoted(m, 0, 2)} kg is negative {smallest}")
            continue
        if m <= floor:
            messages.append(where + f"no mass, but a first moment or a rotational inertia {smallest}")
            continue
        c = h / m
        Sigma = J[:3, :3] - np.outer(h, c)          # second moment about the centre of mass
        moments = np.sort(np.trace(Sigma) - np.linalg.eigvalsh(Sigma))
        broken = f"principal moments {quoted_list(moments, floor, 2)} kg m^2 about the centre of mass"
        if moments[0] < -floor:
            broken += " include a negative one and"
        messages.append(where + broken + f" break the triangle inequality I1 + I2 >= I3 {smallest}")
    return messages


def fourier_trajectory(t, q0, a, b, frequency):
    """A periodic excitation trajectory: a finite Fourier series per joint, and its two derivatives.

    With ``w = 2 pi frequency`` and ``L`` harmonics::

        q_j(t) = q0_j + sum_l ( a_jl sin(l w t) - b_jl cos(l w t) ) / (l w),
        qd_j(t) = sum_l a_jl cos(l w t) + b_jl sin(l w t),
        qdd_j(t) = sum_l l w ( -a_jl sin(l w t) + b_jl cos(l w t) ),

    so that ``a`` and ``b`` set the joint rates directly, and every joint repeats with period
    ``1 / frequency`` (Swevers et al., 1997).

    Parameters
    ----------
    t : array_like, shape (N,)
        Times (s).
    q0 : array_like, shape (n,)
        Offsets of the joint coordinates.
    a, b : array_like, shape (n, L)
        Amplitudes of the rates (rad/s or m/s).
    frequency : float
        Base frequency (Hz), positive.

    Returns
    -------
    q, qd, qdd : ndarray, shape (N, n)

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-fourier``); Swevers, Ganseman, Tukel, De Schutter &
    Van Brussel (1997).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> t = np.linspace(0.0, 2.0, 5)
    >>> q, qd, qdd = dl.fourier_trajectory(t, [0.1], [[1.0]], [[0.0]], 0.5)
    >>> bool(np.allclose(q[0], q[-1]) and np.allclose(qd[:, 0], np.cos(np.pi * t)))
    True
    """
    t = as_array(t, "t")
    if t.ndim != 1 or t.dtype == object:
        raise ValueError(f"t must be a 1-D array of times, got shape {t.shape}")
    check_finite(t, "t")
    q0, a, b = as_array(q0, "q0"), as_array(a, "a"), as_array(b, "b")
    if q0.ndim != 1:
        raise ValueError(f"q0 must have shape (n,), got {q0.shape}")
    n = q0.shape[0]
    if a.ndim != 2 or a.shape[0] != n or b.shape != a.shape:
        raise ValueError(f"a and b must both have shape ({n}, L) (a row per joint of q0), got {a.shape} and {b.shape}")
    for x, name in ((q0, "q0"), (a, "a"), (b, "b")):
        check_finite(x, name)
    check_scalar(frequency, "frequency", low=0.0)
    if not frequency > 0:
        raise ValueError(f"frequency must be positive, got {frequency}")
    w = 2 * np.pi * float(frequency)
    lw = w * np.arange(1, a.shape[1] + 1)                       # (L,)
    sine, cosine = np.sin(t[:, None] * lw), np.cos(t[:, None] * lw)   # (N, L)
    q = q0 + (sine / lw) @ a.T - (cosine / lw) @ b.T
    qd = cosine @ a.T + sine @ b.T
    qdd = (-sine * lw) @ a.T + (cosine * lw) @ b.T
    return q, qd, qdd


def _friction_columns(qd):
    """Columns of viscous and Coulomb friction, ``qd_j`` and ``sign(qd_j)`` in joint ``j``'s rows: ``(N, nv, 2 nv)``."""
    N, nv = qd.shape
    F = np.zeros((N, nv, 2 * nv))
    joints = np.arange(nv)
    F[:, joints, joints] = qd
    F[:, joints, nv + joints] = np.sign(qd)
    return F


def _samples(model, q, qd, qdd, tau=None):
    """Checked samples of a motion: the regressor ``(N, nv, 10 n)``, ``qd`` ``(N, nv)`` and ``tau`` ``(N, nv)``."""
    state = check_state(model, q, qd=qd, qdd=qdd) if tau is None else check_state(model, q, qd=qd, qdd=qdd, tau=tau)
    if state.symbolic:
        raise TypeError("identification needs numbers, not sympy expressions")
    Y = run(regressor_passes, regressor_batch, state.m, (state.q, state.qd, state.qdd), state.batch, False)
    p, nv = 10 * model.n_bodies, model.nv
    out_tau = None if tau is None else state.tau.reshape(-1, nv)
    return Y.reshape(-1, nv, p), state.qd.reshape(-1, nv), out_tau


def _check_base(model, base):
    if base is None:
        return base_parameters(model)
    if not isinstance(base, BaseParameters):
        raise TypeError(f"base must be the BaseParameters of dynlib.base_parameters(model), got {type(base).__name__}")
    if len(base.independent) + len(base.dependent) != 10 * model.n_bodies:
        raise ValueError(f"base must be the base parameters of this model ({10 * model.n_bodies} parameters), "
                         f"got those of a model with {len(base.independent) + len(base.dependent)}")
    return base


def _design(Y, qd, base, friction):
    """The stacked design matrix ``(N nv, r [+ 2 nv])``: base regressor, then friction columns."""
    A = base.regressor(Y)
    if friction:
        A = np.concatenate([A, _friction_columns(qd)], axis=2)
    return A


def _condition(A):
    """Condition number of a stacked design matrix with its columns scaled to unit length."""
    norms = np.linalg.norm(A, axis=0)
    if A.shape[0] < A.shape[1] or not np.all(norms > 0):
        return np.inf
    s = np.linalg.svd(A / norms, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else np.inf


def excitation_condition(model, q, qd, qdd, base=None, friction=False):
    """How well a motion excites the base parameters: the condition number of the stacked base regressor.

    The regressors of every sample are stacked, their columns (the base parameters, and the friction
    coefficients if asked) scaled to unit length, and the ratio of the largest to the smallest singular
    value returned: the factor by which relative errors in the torques can grow in the estimate.
    ``inf`` when the motion leaves some base parameter undetermined.

    Parameters
    ----------
    model : Model
    q : array_like, shape (N, nq)
    qd, qdd : array_like, shape (N, nv)
    base : BaseParameters, optional
        Default :func:`dynlib.base_parameters` of the model.
    friction : bool
        Count the viscous and Coulomb friction coefficients of every joint too.

    Returns
    -------
    float

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-condition``); Gautier & Khalil (1992);
    Swevers et al. (1997).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> t = np.linspace(0.0, 4.0, 200)
    >>> still = [np.zeros((200, 2))] * 3
    >>> moving = dl.fourier_trajectory(t, [0.0, 0.5], [[1.0, 0.5], [-0.8, 1.2]], [[0.3, 0.0], [0.0, -0.6]], 0.25)
    >>> bool(dl.excitation_condition(arm, *still) == np.inf and dl.excitation_condition(arm, *moving) < 100)
    True
    """
    check_model(model)
    base = _check_base(model, base)
    Y, qd_rows, _ = _samples(model, q, qd, qdd)
    A = _design(Y, qd_rows, base, friction)
    return _condition(A.reshape(-1, A.shape[-1]))


class Identification(NamedTuple):
    """The result of :func:`identify_base_parameters`.

    Attributes
    ----------
    base : BaseParameters
        Which combinations were identified.
    parameters : ndarray, shape (r,)
        The estimated base parameters (compare with ``base.of(true_parameters)``).
    friction : ndarray, shape (nv, 2), or None
        Viscous and Coulomb coefficients of each joint, when a friction model was asked for.
    noise : ndarray, shape (nv,)
        Each joint's residual standard deviation (N m or N): the noise estimated from the fit.
    standard_errors : ndarray, shape (r,)
        Standard deviation of each estimated base parameter, from the residuals.
    """

    base: BaseParameters
    parameters: np.ndarray
    friction: np.ndarray | None
    noise: np.ndarray
    standard_errors: np.ndarray


def _least_squares(A, tau, weighted):
    """Solve the stacked system ``A x = tau`` (``A`` of shape ``(N, nv, k)``): ``(x, noise, standard errors)``."""
    N, nv, k = A.shape
    rows = N * nv
    if rows <= k:
        raise ValueError(f"{N} samples of {nv} joints give {rows} equations for {k} unknowns: "
                         "more samples are needed")
    cond = _condition(A.reshape(rows, k))
    if not cond < 1e10:
        raise ValueError(f"the motion does not determine every base parameter (condition number of the stacked "
                         f"base regressor {quoted(cond, 0, 1)}): excite every joint, with several harmonics")
    x = np.linalg.lstsq(A.reshape(rows, k), tau.reshape(rows), rcond=None)[0]
    residual = tau - A @ x
    dof = rows / (rows - k)                                     # the fit takes k degrees of freedom
    noise = np.sqrt(np.mean(residual**2, axis=0) * dof)
    if weighted:
        floor = 1e-6 * np.sqrt(np.mean(tau**2, axis=0)) + 1e-300
        sigma = np.maximum(noise, floor)
        A, tau = A / sigma[:, None], tau / sigma
        x = np.linalg.lstsq(A.reshape(rows, k), tau.reshape(rows), rcond=None)[0]
        residual = tau - A @ x
        noise = np.sqrt(np.mean(residual**2, axis=0) * dof) * sigma
    variance = np.sum(residual**2) / (rows - k)
    R = np.linalg.qr(A.reshape(rows, k), mode="r")
    R_inv = np.linalg.solve(R, np.eye(k))
    standard_errors = np.sqrt(variance * np.sum(R_inv**2, axis=1))
    return x, noise, standard_errors


def identify_base_parameters(model, q, qd, qdd, tau, base=None, weighted=False, friction=False):
    """Estimate the base parameters from measured torques by least squares.

    The samples ``(q, qd, qdd, tau)`` of a motion give ``tau_k = Y_b(q_k, qd_k, qdd_k) pi_b`` (plus, with
    ``friction``, ``F_v qd + F_c sign(qd)`` joint by joint); stacked, an overdetermined linear system
    ``W pi_b = T`` solved by ordinary least squares.  ``weighted`` solves it again with each joint's rows
    divided by that joint's noise, estimated from the ordinary fit's residuals (Gautier's weighted least
    squares): joints with small torques and small noise then count as much as the big ones.

    Parameters
    ----------
    model : Model
        Gives the tree and gravity; its inertial parameters are not used.
    q : array_like, shape (N, nq)
    qd, qdd, tau : array_like, shape (N, nv)
        Measured or filtered samples of one or several motions.
    base : BaseParameters, optional
        Default :func:`dynlib.base_parameters` of the model.
    weighted : bool
        Weighted least squares (each joint's rows by its estimated noise).
    friction : bool
        Identify a viscous and a Coulomb coefficient per joint as well.

    Returns
    -------
    Identification

    Raises
    ------
    ValueError
        If the samples do not fit the model, are too few, or leave a base parameter undetermined.

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-least-squares``, ``eq-id-weighted``); Gautier &
    Khalil (1990); Khalil & Dombre (2002) ch. 12.

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> t = np.linspace(0.0, 4.0, 200)
    >>> q, qd, qdd = dl.fourier_trajectory(t, [0.0, 0.5], [[1.0, 0.5], [-0.8, 1.2]], [[0.3, 0.0], [0.0, -0.6]], 0.25)
    >>> found = dl.identify_base_parameters(arm, q, qd, qdd, dl.rnea(arm, q, qd, qdd))
    >>> bool(np.allclose(found.parameters, found.base.of(dl.inertial_parameters(arm))))
    True
    """
    check_model(model)
    base = _check_base(model, base)
    Y, qd_rows, tau_rows = _samples(model, q, qd, qdd, tau)
    x, noise, errors = _least_squares(_design(Y, qd_rows, base, friction), tau_rows, weighted)
    r = len(base.independent)
    return Identification(base, x[:r], x[r:].reshape(2, -1).T.copy() if friction else None, noise, errors[:r])


class ConsistentIdentification(NamedTuple):
    """The result of :func:`identify_consistent_parameters`.

    Attributes
    ----------
    parameters : ndarray, shape (10 n,)
        Every body's ten parameters, each body's pseudo-inertia positive definite.
    friction : ndarray, shape (nv, 2), or None
        Viscous and Coulomb coefficients of each joint, when a friction model was asked for.
    noise : ndarray, shape (nv,)
        Each joint's residual standard deviation at the estimate.
    """

    parameters: np.ndarray
    friction: np.ndarray | None
    noise: np.ndarray


def _cholesky_upper(J):
    """Upper triangular ``U`` with positive diagonal and ``U U^T = J`` (positive definite 4 x 4)."""
    flip = J[::-1, ::-1]
    return np.linalg.cholesky(flip)[::-1, ::-1]


def _theta_of(U):
    """The ten log-Cholesky coordinates of an upper triangular factor (Rucker & Wensing, 2022)."""
    alpha = np.log(U[3, 3])
    e = np.exp(alpha)
    return np.array([alpha, np.log(U[0, 0] / e), np.log(U[1, 1] / e), np.log(U[2, 2] / e),
                     U[0, 1] / e, U[0, 2] / e, U[1, 2] / e, U[0, 3] / e, U[1, 3] / e, U[2, 3] / e])


def _factor(theta):
    """The factor ``U`` of ten log-Cholesky coordinates, and ``dU/dtheta`` ``(10, 4, 4)``."""
    alpha, d1, d2, d3, s12, s13, s23, t1, t2, t3 = theta
    e = np.exp(alpha)
    V = np.array([[np.exp(d1), s12, s13, t1], [0.0, np.exp(d2), s23, t2], [0.0, 0.0, np.exp(d3), t3],
                  [0.0, 0.0, 0.0, 1.0]])
    U = e * V
    dU = np.zeros((10, 4, 4))
    dU[0] = U
    for k, (r, c) in enumerate(((0, 0), (1, 1), (2, 2))):
        dU[1 + k, r, c] = U[r, c]
    for k, (r, c) in enumerate(((0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3))):
        dU[4 + k, r, c] = e
    return U, dU


def _nearest_positive_definite(J, floor):
    """``J`` with its eigenvalues raised to at least ``floor``."""
    eig, vectors = np.linalg.eigh((J + J.T) / 2)
    return (vectors * np.maximum(eig, floor)) @ vectors.T


def identify_consistent_parameters(model, q, qd, qdd, tau, prior=None, weighted=False, friction=False,
                                   regularization=1.0):
    """Estimate every body's parameters from measured torques, keeping each body physically possible.

    Minimises, over parameters whose pseudo-inertias are positive definite (:func:`pseudo_inertia`)::

        |D (Y pi + friction - tau)|^2 / 2 + regularization * sum_i |L_i^-1 (J_i - J0_i) L_i^-T|^2 / 2

    where ``D`` divides each joint's rows by its noise (one common noise unless ``weighted``), estimated
    by :func:`identify_base_parameters`; ``J0_i = L_i L_i^T`` are the pseudo-inertias of the ``prior``
    (the published values, say), which decide what the torques cannot (the parameters outside the base
    combinations) and pull weakly on the rest.  Both terms are convex in the pseudo-inertias; each
    ``J_i = U_i U_i^T`` is written with its upper triangular factor in log-Cholesky coordinates
    (Rucker & Wensing, 2022), a one-to-one map of ten free numbers onto the positive definite matrices, and
    the resulting smooth least-squares problem is solved by ``scipy.optimize.least_squares``.

    Parameters
    ----------
    model : Model
    q : array_like, shape (N, nq)
    qd, qdd, tau : array_like, shape (N, nv)
    prior : array_like, shape (10 n,), optional
        Default: the model's own parameters.  Inconsistent or massless bodies are moved into the
        positive definite matrices first (eigenvalues raised to a millionth of the largest).
    weighted : bool
        Weigh each joint by its own noise.
    friction : bool
        Identify a viscous and a Coulomb coefficient per joint as well (unconstrained).
    regularization : float
        Weight of the prior, non-negative.

    Returns
    -------
    ConsistentIdentification

    Raises
    ------
    ValueError
        If the samples do not fit the model, are too few, or leave a base parameter undetermined.

    References
    ----------
    Chapter *Identifying the inertial parameters* (``eq-id-consistent``); Wensing, Kim & Slotine (2018);
    Rucker & Wensing (2022).

    Examples
    --------
    >>> import numpy as np
    >>> import dynlib as dl
    >>> arm = dl.planar_chain(2)
    >>> t = np.linspace(0.0, 4.0, 200)
    >>> q, qd, qdd = dl.fourier_trajectory(t, [0.0, 0.5], [[1.0, 0.5], [-0.8, 1.2]], [[0.3, 0.0], [0.0, -0.6]], 0.25)
    >>> tau = dl.rnea(arm, q, qd, qdd) + np.random.default_rng(0).normal(scale=0.05, size=(200, 2))
    >>> found = dl.identify_consistent_parameters(arm, q, qd, qdd, tau)
    >>> dl.consistency_violations(arm, found.parameters)
    []
    """
    from scipy.optimize import least_squares

    check_model(model)
    prior = _rows(model, prior, "prior")
    check_scalar(regularization, "regularization", low=0.0)
    base = base_parameters(model)
    Y, qd_rows, tau_rows = _samples(model, q, qd, qdd, tau)
    first = _least_squares(_design(Y, qd_rows, base, friction), tau_rows, weighted)
    N, nv, p = Y.shape
    noise = first[1] if weighted else np.full(nv, np.sqrt(np.mean(first[1] ** 2)))
    noise = np.maximum(noise, 1e-6 * np.sqrt(np.mean(tau_rows**2, axis=0)) + 1e-300)
    columns = [Y / noise[:, None]] + ([_friction_columns(qd_rows) / noise[:, None]] if friction else [])
    stacked = np.concatenate(columns, axis=2).reshape(N * nv, -1)
    # |stacked x - target| = |R x - Q^T target| + a constant: the data term in as many rows as unknowns
    Q, R = np.linalg.qr(stacked)
    reduced = Q.T @ (tau_rows / noise).reshape(-1)
    A, F = R[:, :p], R[:, p:]
    n = model.n_bodies
    J0 = pseudo_inertia(prior)
    largest = max(np.abs(np.linalg.eigvalsh(J0)).max(), 1e-300)
    J0 = np.array([_nearest_positive_definite(J, 1e-6 * largest) for J in J0])
    L_inv = np.array([np.linalg.inv(np.linalg.cholesky(J)) for J in J0])
    weight = np.sqrt(regularization)
    k = F.shape[1]

    def unpack(x):
        factors = [_factor(x[10 * i:10 * i + 10]) for i in range(n)]
        J = np.array([U @ U.T for U, _ in factors])
        dJ = np.array([dU @ U.T + U @ np.swapaxes(dU, 1, 2) for U, dU in factors])     # (n, 10, 4, 4)
        return J, dJ

    def residuals(x):
        J, _ = unpack(x)
        pi = parameters_from_pseudo_inertia(J).reshape(-1)
        data = A @ pi + F @ x[10 * n:] - reduced
        whitened = L_inv @ (J - J0) @ np.swapaxes(L_inv, 1, 2)
        return np.concatenate([data, weight * whitened.reshape(-1)])

    def jacobian(x):
        J, dJ = unpack(x)
        dpi = parameters_from_pseudo_inertia(dJ)                # (n, 10 theta, 10 pi)
        top = np.einsum("rip,itp->rit", A.reshape(-1, n, 10), dpi).reshape(len(A), 10 * n)
        top = np.concatenate([top, F], axis=1)
        whitened = L_inv[:, None] @ dJ @ np.swapaxes(L_inv, 1, 2)[:, None]   # (n, 10, 4, 4)
        bottom = np.zeros((16 * n, 10 * n + k))
        for i in range(n):
            bottom[16 * i:16 * i + 16, 10 * i:10 * i + 10] = weight * whitened[i].reshape(10, 16).T
        return np.concatenate([top, bottom])

    start = np.concatenate([np.concatenate([_theta_of(_cholesky_upper(J)) for J in J0]),
                            first[0][len(base.independent):] if friction else np.zeros(0)])
    solution = least_squares(residuals, start, jac=jacobian, method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                             gtol=1e-12, max_nfev=500)
    J, _ = unpack(solution.x)
    pi = parameters_from_pseudo_inertia(J).reshape(-1)
    fitted = (stacked @ np.concatenate([pi, solution.x[10 * n:]])).reshape(N, nv) * noise - tau_rows
    return ConsistentIdentification(pi, solution.x[10 * n:].reshape(2, -1).T.copy() if friction else None,
                                    np.sqrt(np.mean(fitted**2, axis=0)))
