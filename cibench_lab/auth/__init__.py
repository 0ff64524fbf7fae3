"""Who the caller is: roles, and JupyterHub's groups as the server's own token reads them."""
