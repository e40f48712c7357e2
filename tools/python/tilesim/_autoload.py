"""Imported at interpreter start-up by the `tilesim-interpret.pth` file when TILESIM_INTERPRET=1, so unchanged
scripts run their Triton launches on tilesim (importing tilesim with the variable set does the rest)."""
import tilesim  # noqa: F401
