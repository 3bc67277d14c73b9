"""Figures pooled over repeat jobs, the job the outer level of the bootstrap; the jobs' scatter
corrected for how few they are (stats.py is timing code: the report's own rules live here)."""
import math

import numpy as np

import stats


def pooled_ratio(jobs, resamples=stats.RESAMPLES, seed=0, level=stats.LEVEL):
    """The paired ratio a over b pooled over several jobs (`jobs`: [(a, b)], each as stats.ratio
    takes them): the geometric mean of the jobs' ratios, each job's own draws (stats.ratio_draws)
    resampled under an outer draw of jobs (_pool)."""
    estimates = [math.log(stats.ratio(a, b, resamples=2).estimate) for a, b in jobs]
    draws = [np.log(stats.ratio_draws(a, b, resamples, seed + j)) for j, (a, b) in enumerate(jobs)]
    return _pool(estimates, draws, resamples, seed, level)


def pooled_medians(jobs, resamples=stats.RESAMPLES, seed=0, level=stats.LEVEL):
    """median(a) ÷ median(b) pooled over several jobs (`jobs`: [(a, b)], each arm's values from
    its own child processes, unpaired): each job's draws resample each arm's children."""
    rng = np.random.default_rng(seed)
    estimates, draws = [], []
    for a, b in jobs:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        estimates.append(math.log(np.median(a) / np.median(b)))
        draws.append(np.log(np.median(a[rng.integers(0, a.size, (resamples, a.size))], axis=1)
                            / np.median(b[rng.integers(0, b.size, (resamples, b.size))], axis=1)))
    return _pool(estimates, draws, resamples, seed, level)


def _pool(estimates, draws, resamples, seed, level):
    """Each resample draws n jobs with replacement and one of each drawn job's own log draws.
    Drawing n of n values understates their variance by (n-1)/n (half of it for two jobs), so
    each job's offset from the jobs' mean is first scaled by sqrt(n/(n-1)): the outer level then
    holds the jobs' unbiased variance (docs/METHOD.md, Pooling repeat jobs)."""
    logs, n = np.array(estimates), len(estimates)
    centre = logs.mean()
    offsets = (logs - centre) * math.sqrt(n / (n - 1))
    draws = np.array(draws) - logs[:, None] + (centre + offsets)[:, None]
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, n, (resamples, n))
    column = rng.integers(0, resamples, (resamples, n))  # a job drawn twice brings two draws
    pooled = np.exp(draws[pick, column].mean(axis=1))
    tail = (1 - level) / 2
    low, high = np.quantile(pooled, [tail, 1 - tail])
    return stats.Ratio(float(math.exp(centre)), float(low), float(high))
