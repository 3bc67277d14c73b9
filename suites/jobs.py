"""A marker file per session that saves a run (results/.jobs/): the other jobs that ran beside it,
the machine's load, and the jobs killed before they could save (a reboot, SIGKILL, the OOM killer)."""
import json
import os
import socket
import time
from pathlib import Path

KEEP_S = 7 * 86400  # a finished job's marker stays this long, for the jobs that overlapped it
BEAT_S = 10  # a running job rewrites its marker at most this often


def load():
    """The 1, 5 and 15 minute load averages, or None where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _read(path):
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def identity(pid):
    """(boot id, start time in clock ticks) of a process, or Nones off Linux: with its pid, a
    process that a reused pid cannot pass for."""
    stat = _read(f"/proc/{pid}/stat")
    return (_read("/proc/sys/kernel/random/boot_id"),
            int(stat.rsplit(")", 1)[1].split()[19]) if stat else None)


def alive(job):
    """Whether the job's process still runs (on this host)."""
    if job.get("boot") and (job["boot"], job.get("ticks")) != identity(job["pid"]):
        return False  # another boot, or its pid reused
    try:
        os.kill(job["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class Job:
    """This session's marker."""

    def __init__(self, folder, what):
        self.folder, self.last = Path(folder), 0.0
        boot, ticks = identity(os.getpid())
        self.data = {"host": socket.gethostname(), "pid": os.getpid(), "boot": boot,
                     "ticks": ticks, "started": time.time(), "load_start": load(), **what}
        self.path = self.folder / f"{self.data['host']}-{os.getpid()}-{ticks}.job"

    def others(self):
        """The markers of this host's other jobs: {path: job}."""
        found = {}
        for path in self.folder.glob("*.job"):
            try:
                job = json.loads(path.read_text())
            except (OSError, ValueError):
                continue
            if path != self.path and job.get("host") == self.data["host"]:
                found[path] = job
        return found

    def start(self):
        """Write the marker; return the jobs found killed (their markers removed) and drop the
        finished markers no job can still overlap."""
        self.folder.mkdir(parents=True, exist_ok=True)
        killed = []
        for path, job in self.others().items():
            if not job.get("ended") and not alive(job):
                killed.append(job)
            elif not job.get("ended") or time.time() - job["ended"] < KEEP_S:
                continue
            path.unlink(missing_ok=True)
        self.write()
        return killed

    def beat(self, cases_run, cases):
        """Record progress and that the job is alive now (what a killed job's marker keeps)."""
        self.data.update(cases_run=cases_run, cases=cases, seen=time.time())
        if self.data["seen"] - self.last >= BEAT_S:
            self.write()

    def beside(self):
        """The other jobs that ran at some time since this one started."""
        now, jobs = time.time(), []
        for job in self.others().values():
            end = job.get("ended") or (now if alive(job) else job.get("seen", job["started"]))
            if job["started"] <= now and end >= self.data["started"]:
                jobs.append({k: job.get(k) for k in ("pid", "tox_env", "profile", "started",
                                                     "ended")})
        return jobs

    def finish(self):
        self.data["ended"] = time.time()
        self.write()

    def write(self):
        self.last = time.time()
        staged = self.path.with_suffix(".tmp")
        try:
            staged.write_text(json.dumps(self.data))
            os.replace(staged, self.path)
        except OSError:  # a marker is a note, never a reason for a run to fail
            pass


def killed_line(job):
    """One line on a job that was killed before it saved its run."""
    at = lambda t: time.strftime("%Y-%m-%d %H:%M", time.localtime(t))
    done = (f", last seen {at(job['seen'])} after {job.get('cases_run')} of {job.get('cases')} "
            "cases" if job.get("seen") else "")
    return (f"found a job killed before it saved its run (a reboot, SIGKILL or the OOM killer): "
            f"pid {job['pid']}, tox env {job.get('tox_env')}, profile {job.get('profile')}, "
            f"started {at(job['started'])}{done}; nothing of it was saved")


def beside_line(jobs, start, end):
    """One warning line on the jobs that ran beside this one."""
    at = lambda t: time.strftime("%H:%M", time.localtime(t)) if t else "still running"
    who = "; ".join(f"pid {j['pid']} ({j.get('tox_env')}, profile {j.get('profile')}, "
                    f"{at(j['started'])} to {at(j['ended'])})" for j in jobs)
    loads = (f"; load average {start[0]} at the start, {end[0]} at the end on {os.cpu_count()} "
             "CPUs" if start and end else "")
    return (f"another graphbench job ran beside this run: {who}: they shared the cores, so its "
            f"times are not a quiet machine's{loads}")
