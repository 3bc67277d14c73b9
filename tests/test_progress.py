"""The progress line of a long run: where it is, how much is left, updated, not flooded."""
import io
from dataclasses import replace

from suites.profiles import PROFILES
from suites.progress import EVERY_S, Progress


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_line_names_the_suite_the_counts_and_the_time_left():
    clock = Clock()
    progress = Progress("tf (1 of 3)", io.StringIO(), clock)
    progress.total = 40
    clock.now = 120.0
    progress.finished("suites/test_steady.py::test_train[mnist_cnn-graph]")
    assert progress.stream.getvalue() == ("\n[tf (1 of 3)] suites/test_steady.py: 1 of 40 cases "
                                          "done, 39 left; 2.0 min so far\n")
    for n in range(8):
        progress.finished(f"suites/test_steady.py::t{n}")
    clock.now += EVERY_S
    progress.finished("suites/test_steady.py::t8")
    assert progress.stream.getvalue().endswith("10 of 40 cases done, 30 left; 3.0 min so far, "
                                               "about 9.0 min left\n")


def test_the_time_left_counts_a_group_at_its_share_and_a_marked_skip_at_nothing():
    """Was: every case at the average so far, so a steady suite whose groups take 100 s each in
    their first case (the others read its times) showed 'about 3.8 min left' with 11 to go."""
    clock = Clock()
    progress = Progress("tf", io.StringIO(), clock)
    progress.plan([*((f"c.py::p{n}", False, None) for n in range(12)),
                   *((f"c.py::m{n}", True, None) for n in range(2)),
                   *((f"s.py::g{n}", False, (("steady", "tf", "vgg", "train"), 100.0))
                     for n in range(3))])
    for n in range(10):
        clock.now += 20.0 if n % 2 else 0.0  # half of them skipped at once
        progress.finished(f"c.py::p{n}", ran=bool(n % 2))
    assert progress.time_left() == 2 * 10.0 + 100.0  # 2 cases at 10 s (20 s a run case, half run)
    progress.finished("c.py::m0", ran=False)
    progress.finished("s.py::g0", ran=False)  # skipped: the group is still to come
    assert progress.time_left() == 120.0
    clock.now += 95.0
    progress.finished("s.py::g1")  # it timed the group
    assert progress.time_left() == 20.0
    assert "about 20 s left" in progress.line("s.py")


def test_a_log_gets_a_line_per_suite_and_at_most_one_a_minute():
    clock = Clock()
    progress = Progress("torch", io.StringIO(), clock)
    progress.total = 10
    for n in range(5):
        clock.now = n * 10.0
        progress.finished(f"suites/test_steady.py::t{n}")
    clock.now = 50.0 + EVERY_S
    progress.finished("suites/test_steady.py::t5")
    progress.finished("suites/test_retrace.py::t0")
    lines = [line for line in progress.stream.getvalue().splitlines() if line]
    assert [line.split("]")[1].split(":")[0] for line in lines] == [
        " suites/test_steady.py", " suites/test_steady.py", " suites/test_retrace.py"]


def test_a_terminal_line_is_rewritten_in_place():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    progress = Progress("chainer", Tty(), Clock())
    progress.total = 2
    progress.finished("a.py::x")
    progress.finished("a.py::y")
    assert progress.stream.getvalue().count("\r") == 2 and "\n" not in progress.stream.getvalue()


def test_the_main_job_turns_the_line_on_for_each_env(monkeypatch):
    import os

    import run
    seen = []
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: seen.append(
        (args, os.environ.get("GRAPHBENCH_PROGRESS"))) or 0)
    assert run.main(["bench", "--envs", "chainer,tf", "--profile", "quick"]) == 0
    suites = [(args, label) for args, label in seen if "suites" in args]
    assert [label for _, label in suites] == ["chainer, env 1 of 2", "tf, env 2 of 2"]
    assert all("suites.progress" in args for args, _ in suites)
    assert "GRAPHBENCH_PROGRESS" not in os.environ


def test_a_user_run_ends_with_its_answer_in_the_terminal(monkeypatch, capsys, tmp_path):
    import run
    folder = tmp_path / "results" / "user" / "m"
    folder.mkdir(parents=True)
    (folder / "user-old.md").write_text("# Should I compile `old`?\\n\\nstale\\n")
    user = tmp_path / "mine.py"
    user.write_text("def torch_model():\n    pass\n\ndef inputs(shape, seed):\n    pass\n"
                    "SHAPES = [(1, 2)]\n")
    report = "# Should I compile `mine`?\n\n**torch: stay eager.** No gain.\n\nMachine `m`; ...\n\n### torch\n| table |\n"
    monkeypatch.setattr(run, "ROOT", tmp_path)
    monkeypatch.setattr(run, "tox", lambda: "tox")
    monkeypatch.setattr(run, "call", lambda *args: (folder / "user-mine.md").write_text(report) and 0)
    assert run.main(["bench", "--user", str(user)]) == 0
    out = capsys.readouterr().out
    assert "**torch: stay eager.** No gain." in out and "| table |" not in out
    assert "the full report: results/user/m/user-mine.md" in out and "stale" not in out


def test_a_user_run_says_each_part_as_it_starts_and_then_the_time_left():
    """`run.py bench --user` measures in one test for minutes: a line per part, k of n, and once
    a steady process has run, the time the others take."""
    from user.measure import progress
    clock, lines = Clock(), []
    say = progress(lines.append, "jax", 4, clock)
    say("eager: first calls")
    clock.now = 90.0
    say("graph: first calls")
    clock.now = 150.0
    say("steady rounds, process 1 of 2")
    clock.now = 210.0
    say("steady rounds, process 2 of 2", 60.0)
    assert lines == ["user: jax: part 1 of 4, eager: first calls; 0 s so far",
                     "user: jax: part 2 of 4, graph: first calls; 1.5 min so far",
                     "user: jax: part 3 of 4, steady rounds, process 1 of 2; 2.5 min so far",
                     "user: jax: part 4 of 4, steady rounds, process 2 of 2; 3.5 min so far, "
                     "about 1.0 min left"]


def test_a_user_run_says_the_time_its_first_call_parts_have_left(monkeypatch):
    """Most of a torch run is its variants' first calls (inductor: 10.9 of 13.6 minutes in the
    example): once one variant's part has run, the line says about how long the others take."""
    from user import measure
    clock, lines = Clock(), []
    took = {"eager": 10.0, "graph": 120.0, "graph_dynamic": 240.0, "graph_static": 60.0}

    def child(argv):  # each child's time passes on the fake clock
        clock.now += 30.0 if "steady" in argv else took[argv[argv.index("--arms") + 1]]
        return {"failed": {}}
    monkeypatch.setattr(measure, "run_child", child)
    plan = replace(measure.plan_for(PROFILES["quick"]), warm=False)
    measure.measure("m.py", "torch", plan, threads=2, log=lines.append, clock=clock)
    said = [line.split("; ", 1)[1] for line in lines]
    assert said == ["0 s so far",  # eager (no estimate: it compiles nothing)
                    "10 s so far",  # graph: no variant's part has run yet
                    "2.2 min so far, about 4.0 min left before the steady rounds",
                    "6.2 min so far, about 3.0 min left before the steady rounds",
                    "7.2 min so far",  # the first steady process
                    "7.7 min so far, about 30 s left"], lines
