//! Summaries of repeated timings and the table they are printed in.

use std::time::Duration;

/// Median, minimum and maximum of a set of durations.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    pub median: Duration,
    pub min: Duration,
    pub max: Duration,
}

impl Summary {
    pub fn of(samples: &[Duration]) -> Option<Self> {
        let mut sorted = samples.to_vec();
        sorted.sort();
        let n = sorted.len();
        if n == 0 {
            return None;
        }
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        };
        Some(Self {
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

pub fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

/// Prints rows of `(phase, samples)` as a `median / min / max` table in milliseconds.
pub fn print_table(title: &str, rows: &[(&str, Vec<Duration>)]) {
    println!("{title}");
    println!(
        "  {:<12} {:>11} {:>11} {:>11}",
        "phase", "median ms", "min ms", "max ms"
    );
    for (name, samples) in rows {
        if let Some(s) = Summary::of(samples) {
            println!(
                "  {:<12} {:>11} {:>11} {:>11}",
                name,
                ms(s.median),
                ms(s.min),
                ms(s.max)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_even_and_odd_counts() {
        let d = |ms| Duration::from_millis(ms);
        let s = Summary::of(&[d(5), d(1), d(3)]).unwrap();
        assert_eq!((s.median, s.min, s.max), (d(3), d(1), d(5)));
        assert_eq!(Summary::of(&[d(4), d(2)]).unwrap().median, d(3));
        assert!(Summary::of(&[]).is_none());
    }
}
