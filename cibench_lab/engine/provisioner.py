"""The provisioner's former path: an install of an earlier version names this entry point."""

from ..kernels.provisioner import SandboxProvisioner

__all__ = ["SandboxProvisioner"]
