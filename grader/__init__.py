"""Trusted grader for the module 'Policy gradients: from REINFORCE to PPO'."""

import importlib
import importlib.util
import sys
import types

__version__ = "0.1.0"


def _defer_rfc3987_syntax() -> None:
    """Let ``rfc3987_syntax`` build its parser when a check needs it, not when jsonschema is imported.

    nbformat imports jsonschema, which imports ``rfc3987_syntax`` when it is installed (Jupyter's
    jsonschema[format-nongpl] brings it), and that module builds an Earley parser of RFC 3987 at
    import: 1.2 s of CPU in every grader and nbgrader process that reads a notebook (`grader --help`
    1.6 s -> 0.5 s). Only JSON-schema's "iri" formats use it, and no schema that nbformat, nbgrader or
    the grader validates has one. A stand-in takes the name: jsonschema's ``is_valid_syntax`` and any
    other use import the real module on first call, so every check still gives the same answer.
    """
    name = "rfc3987_syntax"
    spec = None if name in sys.modules else importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = types.ModuleType(name)
    stand_in.__path__ = spec.submodule_search_locations  # its submodules import as they would

    def real():
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        return importlib.import_module(name)

    def is_valid_syntax(term, value):
        return real().is_valid_syntax(term, value)

    def attribute_of_the_real(attribute):
        if attribute.startswith("__"):  # the import system's questions (__path__, ...): a plain module
            raise AttributeError(attribute)
        return getattr(real(), attribute)

    stand_in.is_valid_syntax = is_valid_syntax
    stand_in.__getattr__ = attribute_of_the_real
    sys.modules[name] = stand_in


_defer_rfc3987_syntax()
