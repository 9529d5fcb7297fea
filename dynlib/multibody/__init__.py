"""Trees of rigid bodies: joints, the immutable Model, builders, URDF files, kinematics, loop
closures and closed mechanisms.

Chapter: *Rigid-body motion and joints* and every chapter that builds a model.
"""

from . import builders, joints, kinematics, loops, mechanisms, model, urdf
from .builders import *  # noqa: F403
from .joints import *  # noqa: F403
from .kinematics import *  # noqa: F403
from .loops import *  # noqa: F403
from .mechanisms import *  # noqa: F403
from .model import *  # noqa: F403
from .urdf import *  # noqa: F403

# every public name is listed once, in its module's __all__
__all__ = [
    *joints.__all__, *model.__all__, *builders.__all__, *urdf.__all__, *kinematics.__all__, *loops.__all__,
    *mechanisms.__all__,
]
