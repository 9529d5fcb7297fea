"""Parts II-IV of the course: inverse dynamics, the mass matrix, articulated inertia and mobility,
impulses, constrained dynamics, energy, simulation, the derivatives of the dynamics, and the regressors
and identification of the inertial parameters.

Chapter: Parts II to IV (chapters 5-11 and 13).
"""

from . import (
    articulated,
    body_frame,
    constrained_dynamics,
    derivatives,
    energy,
    identification,
    impulse,
    inverse_dynamics,
    mass_matrix,
    mobility,
    regressor,
    simulation,
    warm_up,
)
from .articulated import *  # noqa: F403
from .body_frame import *  # noqa: F403
from .constrained_dynamics import *  # noqa: F403
from .derivatives import *  # noqa: F403
from .energy import *  # noqa: F403
from .identification import *  # noqa: F403
from .impulse import *  # noqa: F403
from .inverse_dynamics import *  # noqa: F403
from .mass_matrix import *  # noqa: F403
from .mobility import *  # noqa: F403
from .regressor import *  # noqa: F403
from .simulation import *  # noqa: F403
from .warm_up import *  # noqa: F403

# every public name is listed once, in its module's __all__
__all__ = [
    *inverse_dynamics.__all__, *mass_matrix.__all__, *articulated.__all__, *derivatives.__all__,
    *body_frame.__all__, *mobility.__all__, *impulse.__all__, *constrained_dynamics.__all__, *energy.__all__,
    *simulation.__all__, *warm_up.__all__, *regressor.__all__, *identification.__all__,
]
