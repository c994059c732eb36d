# Course helper (read-only): runs the visible tests of one exercise inside this notebook.
# The visible tests call your code as `impl.<name>`; here `impl` is this notebook itself.
import itertools as _itertools


class _ThisNotebook:
    """What the visible tests call ``impl``: the names defined in this notebook."""

    def __init__(self, namespace):
        self._namespace = namespace

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._namespace[name]
        except KeyError:
            raise NameError(f"{name} is not defined: run its cell first, and keep its name") from None

    def value(self, name):
        """A module-level answer of this notebook (concept checks)."""
        return self.__getattr__(name)


class VisibleChecksFailed(AssertionError):
    """Some visible checks failed; the lines above say which."""

    def _render_traceback_(self):
        # IPython shows this instead of a traceback: the details are already printed.
        return [f"\x1b[0;31m{type(self).__name__}\x1b[0m: {self}"]


def _cases(tests):
    """(label, test, keyword arguments) for every test, with @pytest.mark.parametrize expanded."""
    for test in tests:
        grids = []
        for mark in reversed(getattr(test, "pytestmark", [])):
            if getattr(mark, "name", "") != "parametrize":
                continue
            names, values = mark.args[0], list(mark.args[1])
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            ids = mark.kwargs.get("ids")
            rows = []
            for i, value in enumerate(values):
                value = getattr(value, "values", value)  # pytest.param(...)
                row = dict(zip(names, value if len(names) > 1 else [value]))
                label = ids[i] if isinstance(ids, (list, tuple)) else str(i)
                rows.append((str(label), row))
            grids.append(rows)
        if not grids:
            yield test.__name__, test, {}
            continue
        for combo in _itertools.product(*grids):
            kwargs = {}
            for _, row in combo:
                kwargs.update(row)
            yield f"{test.__name__}[{'-'.join(label for label, _ in combo)}]", test, kwargs


def run_visible_tests(name, tests):
    """Run the visible tests of ``name`` against this notebook and say what failed."""
    impl = _ThisNotebook(globals())
    try:  # checks written with the course's grader helpers look up their exercise by name
        from grader import testing as _testing

        _testing.CONTEXT.function = name
    except ImportError:
        pass
    cases = list(_cases(tests))
    if not cases:
        print(f"{name} has no visible checks; the hidden checks run when your notebook is graded.")
        return
    failed = 0
    for label, test, kwargs in cases:
        try:
            test(impl, **kwargs)
        except NotImplementedError:
            print(f"\u2717 {name} is not implemented yet: replace the NotImplementedError line in its cell.")
            raise VisibleChecksFailed(f"{name} is not implemented yet") from None
        except NameError as error:
            failed += 1
            print(f"\u2717 {label}: {error}")
        except AssertionError as error:
            failed += 1
            print(f"\u2717 {label}: {str(error).strip() or 'a check failed'}")
        except Exception as error:  # the student's function raised: say what, not where in the test
            failed += 1
            print(f"\u2717 {label}: {name} raised {type(error).__name__}: {error}")
        else:
            print(f"\u2713 {label}")
    if failed:
        raise VisibleChecksFailed(f"{failed} of {len(cases)} visible checks of {name} failed (see above)")
    print(f"All {len(cases)} visible checks of {name} passed. More checks run when your notebook is graded.")
