# SPDX-License-Identifier: LGPL-2.1-or-later
"""A bench script (a Python file without .py) loaded as a module, for the
tests that call its functions directly."""
import importlib.machinery
import importlib.util


def load(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
