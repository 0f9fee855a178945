//! What several benches share: the statistics of repeated runs, and the time of a commit
//! made during a benchmarked episode. (A module, not a bench: cargo only takes
//! `benches/*.rs` and `benches/*/main.rs` as bench targets.)
#![allow(dead_code)] // each bench uses what it needs

use std::time::{Duration, Instant};

/// Median and nearest-rank p90 of repeated runs.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub runs: usize,
    pub median: Duration,
    pub p90: Duration,
}

impl Stats {
    pub fn of(mut samples: Vec<Duration>) -> Stats {
        assert!(!samples.is_empty(), "a measurement needs at least one run");
        samples.sort();
        let n = samples.len();
        let median = if n % 2 == 1 {
            samples[n / 2]
        } else {
            (samples[n / 2 - 1] + samples[n / 2]) / 2
        };
        // Nearest-rank p90: the smallest sample with at least 90 % of runs at or below it.
        let rank = (n * 9).div_ceil(10).max(1);
        Stats {
            runs: n,
            median,
            p90: samples[rank - 1],
        }
    }
}

/// Times `f` `runs` times.
pub fn repeat(runs: usize, mut f: impl FnMut()) -> Stats {
    Stats::of(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

/// Now, in seconds since the epoch: the time of the commit made during the episode (an
/// earlier time would make it work the episode did not do).
pub fn committed_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(1_764_000_120)
}
