# SPDX-License-Identifier: LGPL-2.1-or-later
"""A bench script (a Python file without .py) loaded as a module: by the
bench scripts that build on another (policy-quality's target, live's knob
safety net) and by the tests that call a script's functions directly."""
import importlib.machinery
import importlib.util


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
