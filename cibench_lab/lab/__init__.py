"""The in-server executor: attempts played in the browser on kernels jupyter_server manages."""
