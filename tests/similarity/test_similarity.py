"""grader similarity: the function's own code, canonical forms, wrong-reply digests (instructors only),
the pages (escaped, no script) and the command's JSON."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from grader.cli import main
from grader.core import wrongreplies
from grader.core.course import load_course
from grader.core.diagnosis import Call, Raised
from grader.core.results import SubmissionResult, TestOutcome, score_function
from grader.engine.record import GradeRecord
from grader.engine.store import ResultStore
from grader.feedback import function_report
from grader.feedback.gradescope import gradescope_results
from grader.similarity.analyse import analyse
from grader.similarity.code import function_code
from grader.similarity.normalise import canonical
from grader.similarity.sources import Submission, stub_code
from grader.studentfeedback.write import render_html, render_markdown
from tests.helpers import ROOT
from tests.similarity_corpus import DISGUISES, disguise, synthetic_class, versions, write_class


@pytest.fixture(scope="module")
def course():
    return load_course(ROOT)


def test_function_code_cuts_the_docstring_and_keeps_the_body(course):
    text = (ROOT / "solutions" / "score_functions.py").read_text(encoding="utf-8")
    code = function_code(text, "stable_softmax")
    assert code.startswith("def stable_softmax(logits):")
    assert "Softmax of a vector" not in code and "np.max(z)" in code
    assert function_code(text, "no_such_function") is None
    # A module that does not parse is read by indentation.
    assert "return 1" in function_code("def f(x):\n    return 1\n\ndef g(:\n", "f")


def test_every_disguise_of_a_corpus_function_has_the_original_canonical_text(course):
    pool = versions(["gae_advantages", "stable_softmax"])
    rng = random.Random(7)
    same = total = 0
    for versions_of in pool.values():
        for v in versions_of:
            base = canonical(v.code).text
            for how in DISGUISES:
                total += 1
                copied = canonical(disguise(v.code, how, rng))
                same += copied is not None and copied.text == base
    assert same / total >= 0.95
    # Dead code and a reordering the normaliser knows, on a small example.
    a = "def f(x):\n    a = x + 1\n    b = x * 2\n    return a - b\n"
    b = "def f(x):\n    q = x * 2\n    unused = 3\n    p = x + 1\n    if False:\n        p = 0\n    return p - q\n"
    assert canonical(a).text == canonical(b).text


def test_a_long_function_is_made_canonical_in_memory_in_proportion_to_its_size():
    # A25: a function of 12,000 two-character statements (24 KB, inside the 40,000-character cut) once cost
    # a dependency for every pair of its statements: 4 GiB and 25 s in the instructor's process. Under a 1 GiB
    # address space it must come out as a short one does: each statement on its line, in its place.
    import subprocess
    import sys

    probe = (
        "import resource\n"
        "from grader.similarity.normalise import canonical\n"
        "resource.setrlimit(resource.RLIMIT_AS, (2**30, resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
        "bare = canonical('def f(x):\\n a' + ';a' * 11999 + '\\n')\n"  # expressions: each keeps its place
        "chain = canonical('def f(x):\\n a=a' + ';a=a' * 9999 + '\\n')\n"  # assignments, each after the last
        "print(bare is not None and bare.text == 'def f(x):\\n' + '    a\\n' * 12000)\n"
        "print(chain is not None and chain.text == 'def f(x):\\n' + '    v1 = v1\\n' * 10000)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.stdout.split() == ["True", "True"], done.stdout + done.stderr[-2000:]


def test_the_canonical_order_is_the_one_every_pair_of_dependent_statements_gives():
    # The normaliser builds only the dependencies that carry the order (each name's last writer and its
    # readers since); on random blocks its order must be the one the dependencies of every pair give.
    import ast
    import heapq

    from grader.similarity import normalise

    def every_pair(block, local):
        effects = [normalise._effects(s) for s in block]
        needs = [sum(1 for i in range(j) if depends(effects[i], effects[j])) for j in range(len(block))]
        keys = [normalise._key(s, local) for s in block]
        ready, out = [(keys[j], j) for j in range(len(block)) if needs[j] == 0], []
        heapq.heapify(ready)
        while ready:
            _, i = heapq.heappop(ready)
            out.append(i)
            for j in range(i + 1, len(block)):
                if depends(effects[i], effects[j]):
                    needs[j] -= 1
                    if needs[j] == 0:
                        heapq.heappush(ready, (keys[j], j))
        return out

    def depends(first, then):
        (ri, wi, bi), (rj, wj, bj) = first, then
        return bool(bi or bj or wi & (rj | wj) or wj & ri)

    rng = random.Random(11)
    names = "abcdx"
    shapes = ("{n} = {e}", "{n} += {e}", "{n}[{m}] = {e}", "{n}, {m} = {e}, {e}", "{n}.y = {e}", "print({e})")
    for _ in range(300):
        lines = []
        for _ in range(rng.randint(2, 30)):
            e = " + ".join(rng.choice(names + "12") for _ in range(rng.randint(1, 3)))
            lines.append(rng.choice(shapes).format(n=rng.choice(names), m=rng.choice(names), e=e))
        block = ast.parse("\n".join(lines)).body
        local = set(names)
        ordered = normalise._order(list(block), local)
        assert [block.index(s) for s in ordered] == every_pair(block, local), lines


def test_the_stub_is_not_code_of_the_student(course):
    stubs = {"stable_softmax": stub_code(course, "stable_softmax")}
    subs = {s: Submission(s, {"stable_softmax": stubs["stable_softmax"][0]}) for s in ("a", "b", "c")}
    result = analyse("ps4a", ["stable_softmax"], subs, stubs)
    assert result.pairs == [] and not result.codes


def _call(value, *args):
    return Call(tuple(args), {}, value)


def test_digest_keeps_wrong_values_only(course):
    logits = np.array([1.0, 2.0, 3.0])
    right = course.reference("stable_softmax")(logits)
    wrong = np.exp(logits) / 7.0
    entries = wrongreplies.digest(course, "stable_softmax", [_call(right, logits), _call(wrong, logits)])
    assert len(entries) == 1 and entries[0].split(":")[1] == wrongreplies.value_hash(wrong)
    # A right answer, or an exception, is never evidence.
    assert wrongreplies.digest(course, "stable_softmax", [_call(right, logits)]) == []
    assert wrongreplies.digest(course, "stable_softmax", [_call(Raised("ValueError"), logits)]) == []
    # The same wrong value for the same input: the same entry, whoever gives it.
    again = wrongreplies.digest(course, "stable_softmax", [_call(wrong.copy(), logits.copy())])
    assert again == entries


def _record(course, student: str, digests: dict) -> GradeRecord:
    failed = TestOutcome("test_x", False, 1.0, "stable_softmax: wrong on a hand-built input")
    result = SubmissionResult(student, {"stable_softmax": score_function(course, "stable_softmax", [failed], None)})
    result.wrong_replies = digests
    return GradeRecord(student, f"{student}.py", result, course=course.id)


def test_the_digest_is_kept_in_the_record_and_never_in_what_a_student_reads(course):
    digest = {"stable_softmax": ["0123456789ab:ba9876543210"]}
    record = _record(course, "alice", digest)
    data = record.to_json()
    assert data["wrong_replies"] == digest
    assert GradeRecord.from_json(json.loads(json.dumps(data))).wrong_replies == digest
    broken = dict(data, wrong_replies={"stable_softmax": [{"not": "a string"}]})
    assert GradeRecord.from_json(broken).wrong_replies == {}
    student_sees = [
        json.dumps(record.result.to_json()),  # grader grade --json
        json.dumps(gradescope_results(record)),  # Gradescope's results.json
        render_html(record, "course"),  # grader feedback
        render_markdown(record, "course"),
        function_report(record, "stable_softmax"),  # nbgrader's autograded cells
    ]
    for text in student_sees:
        assert "0123456789ab" not in text and "ba9876543210" not in text and "wrong_replies" not in text


def test_shared_rare_wrong_replies_are_listed_common_ones_are_not(course):
    stubs = {"stable_softmax": stub_code(course, "stable_softmax")}
    students = [f"s{i:02d}" for i in range(30)]
    records = {s: _record(course, s, {}) for s in students}
    records["s01"].wrong_replies = {"stable_softmax": ["aaaaaaaaaaaa:111111111111", "bbbbbbbbbbbb:222222222222"]}
    records["s02"].wrong_replies = {"stable_softmax": ["aaaaaaaaaaaa:111111111111"]}
    for s in students[3:20]:  # a wrong value 17 of 30 give: common, no evidence
        records[s].wrong_replies = {"stable_softmax": ["bbbbbbbbbbbb:222222222222"]}
    subs = {s: Submission(s) for s in students}
    result = analyse("ps4a", ["stable_softmax"], subs, stubs, records)
    assert [(p.a, p.b) for p in result.pairs] == [("s01", "s02")]
    assert result.pairs[0].replies == [
        {"function": "stable_softmax", "input": "aaaaaaaaaaaa", "students": 2, "wrong": 2}
    ]
    assert not result.pairs[0].flagged  # wrong replies alone never flag


def test_the_command_ranks_a_planted_copy_first_and_writes_escaped_pages(course, tmp_path, capsys):
    functions = [e.function for e in course.exercises if e.assignment == "ps4b" and e.kind == "function"]
    cls = synthetic_class(functions, 24, 1, seed=3)
    original, copy = next(iter(cls.planted))
    hostile = "</pre><script>alert(1)</script><img src=x onerror=alert(2)>"
    code = cls.students[copy].code["gae_advantages"]
    cls.students[copy].code["gae_advantages"] = code.replace(":\n", f":\n    note = {hostile!r}  # {hostile}\n", 1)
    write_class(cls, course, tmp_path / "class")
    results = tmp_path / "results"
    store = ResultStore(results)
    store.results_dir.mkdir(parents=True)
    for student in (original, copy):
        store.save(_record(course, student, {}))
    code = main(["similarity", str(tmp_path / "class"), "--results", str(results), "--json", "--course", str(ROOT)])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    pairs = [p for p in report["pairs"] if p["evidence"]["assignment"] == "ps4b"]
    assert all(set(p) == {"a", "b", "functions", "score", "flagged", "evidence"} for p in report["pairs"])
    top = pairs[0]
    assert {top["a"], top["b"]} == {original, copy} and top["flagged"] and 0.5 < top["score"] <= 1.0
    assert set(top["functions"]) == set(cls.students[copy].copied)
    index = (results / "similarity" / "index.html").read_text(encoding="utf-8")
    page = (results / "similarity" / top["evidence"]["page"]).read_text(encoding="utf-8")
    assert top["evidence"]["page"] in index and "<mark>" in page
    for text in (index, page):
        assert "<script" not in text.lower() and "<img" not in text.lower()
        assert "default-src 'none'" in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page  # shown, as text


def test_an_unknown_assignment_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "class").mkdir()
    assert main(["similarity", str(tmp_path / "class"), "--assignment", "ps9", "--course", str(ROOT)]) == 2
    assert "not an assignment of this course: ps9" in capsys.readouterr().err


def test_the_class_report_links_the_similarity_pages_when_they_exist(course, tmp_path):
    from grader.report.build import write_report

    store = ResultStore(tmp_path)
    store.results_dir.mkdir(parents=True)
    store.save(_record(course, "alice", {}))
    (tmp_path / "class.json").write_text(json.dumps({"students": ["alice"], "course": str(ROOT)}), encoding="utf-8")
    assert "Similar pairs" not in write_report(tmp_path).read_text(encoding="utf-8")
    (tmp_path / "similarity").mkdir()
    (tmp_path / "similarity" / "index.html").write_text("<p>pairs</p>", encoding="utf-8")
    assert "href='similarity/index.html'>Similar pairs" in write_report(tmp_path).read_text(encoding="utf-8")


def _notebook(path: Path, cells: dict[str, str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    for function, source in cells.items():
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": function, "locked": False}
        nb.cells.append(cell)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def test_an_nbgrader_course_is_read_from_its_submitted_notebooks(course, tmp_path, capsys):
    functions = [e.function for e in course.exercises if e.assignment == "ps4b" and e.kind == "function"]
    cls = synthetic_class(functions, 6, 1, seed=5)
    original, copy = next(iter(cls.planted))
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    for sid, student in cls.students.items():
        _notebook(tmp_path / "submitted" / sid / "ps4b" / "ps4b.ipynb", student.code)
    code = main(["similarity", str(tmp_path), "--assignment", "ps4b", "--json", "--course", str(ROOT)])
    assert code == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert {pairs[0]["a"], pairs[0]["b"]} == {original, copy} and pairs[0]["flagged"]
    page = (tmp_path / "grader-results" / "similarity" / pairs[0]["evidence"]["page"]).read_text(encoding="utf-8")
    assert "ps4b.ipynb, cell" in page  # where each code came from


def test_grading_keeps_the_wrong_replies_in_the_record_not_in_the_result(course, tmp_path):
    from grader.engine.driver import grade_here
    from grader.engine.parcel import Parcel
    from tests.helpers import build_submission

    data = ROOT / "tests" / "data"
    wrong = {
        "x": data / "blind" / "stable_softmax" / "shift_by_min.py",
        "y": data / "blind" / "stable_softmax" / "shift_by_min.py",  # the same mistake, the same code
        "z": data / "blind" / "stable_softmax" / "not_normalised.py",
    }
    parcels = [
        Parcel.read(s, build_submission(tmp_path / s, [path]), only=["stable_softmax"]) for s, path in wrong.items()
    ]
    parcels.append(Parcel.read("ok", course.solutions_dir, only=["stable_softmax"]))
    records = grade_here(course, parcels, only=["stable_softmax"])
    digests = {s: r.wrong_replies.get("stable_softmax", []) for s, r in records.items()}
    assert digests["ok"] == []  # right answers: nothing kept
    assert digests["x"] and digests["x"] == digests["y"]
    assert not set(digests["x"]) & set(digests["z"])
    assert "wrong_replies" not in json.dumps(records["x"].result.to_json())


def test_an_lms_download_is_read_by_the_shared_collection_part(course, tmp_path, capsys):
    import zipfile

    functions = [e.function for e in course.exercises if e.assignment == "ps4b" and e.kind == "function"]
    cls = synthetic_class(functions, 6, 1, seed=8)
    original, copy = next(iter(cls.planted))
    folder = write_class(cls, course, tmp_path / "class")
    with zipfile.ZipFile(tmp_path / "ps4b_submissions.zip", "w") as archive:
        for student in sorted(folder.iterdir()):
            for module in sorted(student.iterdir()):
                archive.write(module, f"{student.name}_{module.name}")
    code = main(
        ["similarity", str(tmp_path / "ps4b_submissions.zip"), "--lms", "generic", "--assignment", "ps4b"]
        + ["--json", "--out", str(tmp_path / "out"), "--course", str(ROOT)]
    )
    assert code == 0
    pairs = json.loads(capsys.readouterr().out)["pairs"]
    assert {pairs[0]["a"], pairs[0]["b"]} == {original, copy} and pairs[0]["flagged"]


def test_fingerprints_are_the_same_in_every_process():
    # Python salts str hashes per process; copydetect's own k-gram hash would change the evidence per run.
    import subprocess
    import sys

    probe = (
        "from grader.similarity.fingerprints import fingerprint\n"
        "fp = fingerprint('def f(x):\\n    y = x * 2\\n    for i in range(10):\\n        y += i\\n    return y\\n')\n"
        "print(sorted(int(h) for h in fp.hashes))"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, env={"PYTHONHASHSEED": seed}, check=True
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(runs) == 1 and runs.pop().startswith("[")
