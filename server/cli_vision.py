"""`umpire` commands for the vision part (registered on `server.cli.app`)."""

from __future__ import annotations
