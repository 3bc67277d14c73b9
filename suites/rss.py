"""This process's resident memory from /proc/self/status, and a resettable peak (Linux)."""
import resource

VMHWM_RESET = "vmhwm_reset"  # VmHWM reset through /proc/self/clear_refs (Linux >= 4.0)
RU_MAXRSS = "ru_maxrss_since_start"  # no reset possible: the peak since the process started


def _status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024  # the kernel reports kB
    raise OSError(f"/proc/self/status has no {field}")


def current():
    """Resident set size now, in bytes."""
    return _status_bytes("VmRSS")


def reset_peak():
    """Reset the peak to the current RSS; returns the method the peak is then read with."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")  # CLEAR_REFS_MM_HIWATER_RSS: VmHWM := VmRSS
        return VMHWM_RESET
    except OSError:
        return RU_MAXRSS


def peak(method=VMHWM_RESET):
    """Peak resident set size in bytes, since the last reset (or process start, for RU_MAXRSS)."""
    if method == VMHWM_RESET:
        return _status_bytes("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux
