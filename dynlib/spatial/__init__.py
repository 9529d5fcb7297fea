"""Part I of the course: 6-vector algebra, rotations, the Lie group SE(3), screws, projective
geometry, subspace decompositions and spatial inertia.

Chapter: Part I, *Screws, twists and wrenches* to *Projective geometry* (chapters 1-4).
"""

from . import algebra, conventions, decompositions, inertia, liegroup, projective, rotations, screws
from .algebra import *  # noqa: F403
from .conventions import *  # noqa: F403
from .decompositions import *  # noqa: F403
from .inertia import *  # noqa: F403
from .liegroup import *  # noqa: F403
from .projective import *  # noqa: F403
from .rotations import *  # noqa: F403
from .screws import *  # noqa: F403

# every public name is listed once, in its module's __all__
__all__ = [
    *algebra.__all__, *conventions.__all__, *rotations.__all__, *liegroup.__all__, *screws.__all__,
    *projective.__all__, *decompositions.__all__, *inertia.__all__,
]
