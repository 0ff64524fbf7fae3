"""Code shipped into task kernels as text: it runs inside the sandbox, never in the server."""
