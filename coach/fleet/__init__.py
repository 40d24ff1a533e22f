"""More than one bot process: who holds which Discord shard (leases, the standby) and how
identifies are spaced across processes. No discord import: the bot passes callbacks."""

from coach.fleet.identify import IdentifyGate, SessionStartLimit
from coach.fleet.leases import ShardKeeper, shard_of
from coach.fleet.pace import Pace

__all__ = ["IdentifyGate", "Pace", "SessionStartLimit", "ShardKeeper", "shard_of"]
