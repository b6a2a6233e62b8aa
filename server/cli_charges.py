"""`umpire` commands for the charges part (registered on `server.cli.app`)."""

from __future__ import annotations
