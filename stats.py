"""Ratios with a bootstrap interval: of paired timings (hierarchical) and of unpaired per-process
values such as memory peaks (NumPy only: suites, report)."""
from dataclasses import dataclass

import numpy as np

RESAMPLES = 2000
LEVEL = 0.95
TRIM = 0.2  # cut from each end of the per-round log ratios (Wilcox's default trimmed mean)


@dataclass(frozen=True)
class Ratio:
    """A ratio of two arms (or of two values), its interval, and whether the interval excludes 1."""
    estimate: float
    low: float
    high: float

    @property
    def significant(self):
        return not self.low <= 1.0 <= self.high

    def as_info(self, prefix="ratio", low="ci_low", high="ci_high", significant="significant"):
        """The extra_info keys of this ratio (names chosen by the caller)."""
        return {prefix: self.estimate, low: self.low, high: self.high,
                significant: self.significant}


def _paired(a, b):
    """Two arms' rounds as (processes, rounds) arrays, or, where processes ran different numbers
    of rounds (adaptive allocation), as lists of each process's rounds, paired process by process."""
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except ValueError:  # ragged: processes of different lengths
        return _ragged(a, b)
    if a.ndim != 2 or a.shape != b.shape or a.size == 0:
        raise ValueError(f"need two equal (processes, rounds) arrays, got {a.shape} and {b.shape}")
    return a, b


def _ragged(a, b):
    a = [np.asarray(p, dtype=float) for p in a]
    b = [np.asarray(p, dtype=float) for p in b]
    if not a or len(a) != len(b) or any(x.ndim != 1 or x.shape != y.shape or not x.size
                                        for x, y in zip(a, b)):
        raise ValueError("need two arms with the same rounds in each process")
    return a, b


def _percentiles(estimate, resampled, level):
    """The estimate with the central `level` percentile interval of its resampled ratios."""
    tail = (1 - level) / 2
    low, high = np.quantile(resampled, [tail, 1 - tail])
    return Ratio(float(estimate), float(low), float(high))


def trimmed_mean(x, axis=-1):
    """The mean left after cutting TRIM of the values from each end, along `axis` (NaN: absent)."""
    x = np.sort(np.moveaxis(np.asarray(x, dtype=float), axis, -1), axis=-1)  # NaN sorts last
    n = (~np.isnan(x)).sum(axis=-1)
    k = (n * TRIM).astype(int)
    sums = np.concatenate([np.zeros(x.shape[:-1] + (1,)), np.cumsum(np.nan_to_num(x), axis=-1)],
                          axis=-1)
    at = lambda i: np.take_along_axis(sums, i[..., None], axis=-1)[..., 0]
    return (at(n - k) - at(k)) / (n - 2 * k)


def _log_ratios(a, b):
    """log(a / b) of each round, in the shape _paired gave (an array, or a list per process)."""
    if isinstance(a, list):
        return [np.log(x / y) for x, y in zip(a, b)]
    return np.log(a / b)


def ratio_draws(a, b, resamples=RESAMPLES, seed=0):
    """Bootstrap draws of the paired ratio of a over b (see `ratio`)."""
    a, b = _paired(a, b)
    d = _log_ratios(a, b)
    if isinstance(d, list):
        return _ragged_draws(d, resamples, seed)
    processes, rounds = d.shape
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, processes, (resamples, processes))[:, :, None]
    within = rng.integers(0, rounds, (resamples, processes, rounds))
    return np.exp(trimmed_mean(d[pick, within].reshape(resamples, -1)))


def _ragged_draws(d, resamples, seed):
    """As ratio_draws, where a drawn process brings as many rounds as it ran."""
    sizes = np.array([len(p) for p in d])
    longest = sizes.max()
    d = np.array([np.pad(p, (0, longest - len(p)), constant_values=np.nan) for p in d])
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(sizes), (resamples, len(sizes)))[:, :, None]
    within = (rng.random((resamples, len(sizes), longest)) * sizes[pick]).astype(int)
    kept = np.arange(longest) < sizes[pick]  # a drawn process's own number of rounds
    return np.exp(trimmed_mean(np.where(kept, d[pick, within], np.nan).reshape(resamples, -1)))


def ratio(a, b, resamples=RESAMPLES, seed=0, level=LEVEL):
    """a over b: the 20% trimmed mean of the per-round log ratios log(a[p][r] / b[p][r]) over all
    rounds of all processes, exponentiated, with a percentile interval.

    a[p][r] and b[p][r] are round r of process p of two arms timed in the same process, in the
    same interleaved round, so what slows a whole round cancels in its ratio. Each resample draws
    processes with replacement, then rounds with replacement within each drawn process, the same
    indices for both arms."""
    a, b = _paired(a, b)
    return _percentiles(_estimate(a, b), ratio_draws(a, b, resamples, seed), level)


def _estimate(a, b):
    """The paired ratio of two arms (as _paired returns them) over every round."""
    d = _log_ratios(a, b)
    return float(np.exp(trimmed_mean(np.concatenate(d) if isinstance(d, list) else d.ravel())))


def pooled_ratio(jobs, resamples=RESAMPLES, seed=0, level=LEVEL):
    """The geometric mean of several jobs' paired ratios of one comparison (`jobs`: [(a, b)], each
    as `ratio` takes them) with a three-level bootstrap: each resample draws jobs with
    replacement, then, for each drawn job, one of its own process-and-round draws (ratio_draws),
    so that the interval holds the scatter between jobs as well as within one."""
    estimates, draws = [], []
    for j, (a, b) in enumerate(jobs):
        a, b = _paired(a, b)
        estimates.append(_estimate(a, b))
        draws.append(np.log(ratio_draws(a, b, resamples, seed + j)))
    draws, n = np.array(draws), len(estimates)
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, n, (resamples, n))
    column = rng.integers(0, resamples, (resamples, n))  # a job drawn twice brings two draws
    pooled = np.exp(draws[pick, column].mean(axis=1))
    return _percentiles(np.exp(np.mean(np.log(estimates))), pooled, level)


def ratio_of_ratios(a1, b1, a2, b2, resamples=RESAMPLES, level=LEVEL):
    """The paired ratio a2 over b2 divided by a1 over b1 (`ratio`), of two independent runs, each
    run's bootstrap drawn on its own (seeds 0 and 1)."""
    first, second = ratio_draws(a1, b1, resamples, 0), ratio_draws(a2, b2, resamples, 1)
    estimate = _estimate(*_paired(a2, b2)) / _estimate(*_paired(a1, b1))
    return _percentiles(estimate, second / first, level)


def ratio_of_medians(a, b, resamples=RESAMPLES, seed=0, level=LEVEL):
    """Unpaired median(a)/median(b) (arms in separate processes): peaks have no drift to cancel."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or not a.size or not b.size:
        raise ValueError(f"need two non-empty lists of per-process values, got {a.shape} and "
                         f"{b.shape}")
    rng = np.random.default_rng(seed)
    ra = np.median(a[rng.integers(0, a.size, (resamples, a.size))], axis=1)
    rb = np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)
    return _percentiles(np.median(a) / np.median(b), ra / rb, level)


@dataclass(frozen=True)
class Noise:
    """Where a paired comparison's noise lies: the log ratio's spread between rounds of one
    process and between processes (each a relative sd), and its mean drift over the first rounds."""
    within: float
    between: float
    first_rounds: float


def noise(a, b, first=2):
    """Noise of log(a/b) per round: the mean within-process sd, the between-process sd left after
    the within part of each process mean, and the mean of the first `first` rounds minus the
    rest's (a warm-up left in the timed rounds)."""
    d = _log_ratios(*_paired(a, b))
    if isinstance(d, list):
        return _ragged_noise(d, first)
    processes, rounds = d.shape
    within = float(np.sqrt(d.var(axis=1, ddof=1).mean())) if rounds > 1 else 0.0
    spread = float(d.mean(axis=1).var(ddof=1)) if processes > 1 else 0.0
    between = float(np.sqrt(max(0.0, spread - within ** 2 / rounds)))
    drift = float(d[:, :first].mean() - d[:, first:].mean()) if rounds > first else 0.0
    return Noise(within, between, drift)


def _ragged_noise(d, first):
    """noise() where processes ran different numbers of rounds: the same estimates, each process
    mean's round part taken at its own number of rounds."""
    sizes = np.array([len(p) for p in d])
    spread_of = [p.var(ddof=1) for p in d if len(p) > 1]
    within = float(np.sqrt(np.mean(spread_of))) if spread_of else 0.0
    spread = float(np.var([p.mean() for p in d], ddof=1)) if len(d) > 1 else 0.0
    between = float(np.sqrt(max(0.0, spread - float(np.mean(within ** 2 / sizes)))))
    head = np.concatenate([p[:first] for p in d])
    rest = np.concatenate([p[first:] for p in d])
    drift = float(head.mean() - rest.mean()) if rest.size else 0.0
    return Noise(within, between, drift)


def seen_shape_median(times, shapes):
    """Median seconds of the steps at a shape an earlier step had (nothing new to trace or
    compile, whatever a framework's counters say); None when every shape was new."""
    seen, found = set(), []
    for t, shape in zip(times, shapes):
        if shape in seen:
            found.append(t)
        seen.add(shape)
    return float(np.median(found)) if found else None
