"""The task kernel's environment: the server's secrets are not passed on."""

from __future__ import annotations

import pytest

from cibench_lab.kernels.launch import HIDE_VAR, kernel_env
from cibench_lab.kernels.spec import kernelspec_dict

pytestmark = pytest.mark.fast


def test_secret_looking_and_named_variables_are_dropped():
    env = {
        "PATH": "/usr/bin",
        "OPENAI_API_KEY": "k1",
        "ANTHROPIC_APIKEY": "k2",
        "VLLM_KEY": "k3",
        "JUPYTERHUB_API_TOKEN": "t",
        "AWS_SECRET_ACCESS_KEY": "s",
        "DB_PASSWORD": "p",
        "MY_ENDPOINT_CREDENTIAL": "c",
        "PLAIN_NAME": "kept unless listed",
        "KEYBOARD_LAYOUT": "us",
        HIDE_VAR: "PLAIN_NAME",
    }
    assert kernel_env(env) == {"PATH": "/usr/bin", "KEYBOARD_LAYOUT": "us"}


def test_the_kernelspec_starts_kernels_through_the_launcher():
    argv = kernelspec_dict("/kernel/python", "/py")["argv"]
    launcher = ["/py", "-m", "cibench_lab.kernels.launch"]
    kernel = ["--kernel-python", "/kernel/python", "-f", "{connection_file}", "--matplotlib=inline"]
    assert argv == [*launcher, *kernel]


def test_kernels_drop_exactly_what_the_redactor_masks(monkeypatch):
    """One secret-name rule: a variable a kernel does not inherit is one whose value ``redact``
    masks, and the other way round."""
    from cibench_lab.models.redact import is_secret_name, redact

    names = [
        "OPENAI_API_KEY",
        "VLLM_KEY",
        "GH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "PGPASSWORD",
        "CIBENCH_LAB_DATABASE_URL",  # a class role's URL, password included (docs/teach/reference.md)
        "JUPYTERHUB_API_TOKEN",
        "HOME",
        "KEYMAP",
    ]
    values = {name: f"value-of-{name.lower()}-0123" for name in names}
    kept = kernel_env(values)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    for name, value in values.items():
        assert (name not in kept) == is_secret_name(name) == (redact(value) == "***"), name
    assert sorted(kept) == ["HOME", "KEYMAP"]
