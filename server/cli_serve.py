"""`umpire` commands for the serve part (registered on `server.cli.app`)."""

from __future__ import annotations
