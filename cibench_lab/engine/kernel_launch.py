"""The launcher's former path: a kernelspec written by an earlier version runs ``-m`` this."""

from ..kernels.launch import main

if __name__ == "__main__":
    main()
