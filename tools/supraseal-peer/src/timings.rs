//! bellperson's own timings of a proof, read from its log lines ("synthesis time: {:?}",
//! "prover time: {:?}"): the only place it reports the time after synthesis.

use std::sync::Mutex;
use std::time::Duration;

/// What the last proof's log lines said.
#[derive(Clone, Copy, Debug, Default)]
pub struct Seen {
    pub synthesis: Option<Duration>,
    pub prover: Option<Duration>,
}

static SEEN: Mutex<Seen> = Mutex::new(Seen {
    synthesis: None,
    prover: None,
});

struct Recorder;

impl log::Log for Recorder {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.level() <= log::Level::Info
    }

    fn log(&self, record: &log::Record<'_>) {
        let message = record.args().to_string();
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = message.strip_prefix("synthesis time: ") {
            seen.synthesis = parse_debug_duration(d);
        } else if let Some(d) = message.strip_prefix("prover time: ") {
            seen.prover = parse_debug_duration(d);
        }
    }

    fn flush(&self) {}
}

/// Starts recording (once per process).
pub fn install() {
    static RECORDER: Recorder = Recorder;
    if log::set_logger(&RECORDER).is_ok() {
        log::set_max_level(log::LevelFilter::Info);
    }
}

pub fn clear() {
    *SEEN.lock().unwrap_or_else(|e| e.into_inner()) = Seen::default();
}

pub fn take() -> Seen {
    std::mem::take(&mut *SEEN.lock().unwrap_or_else(|e| e.into_inner()))
}

/// A `Duration` as `{:?}` writes it: a decimal number and one of s, ms, µs, ns.
fn parse_debug_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let seconds = match unit {
        "s" => value,
        "ms" => value * 1e-3,
        "µs" | "us" => value * 1e-6,
        "ns" => value * 1e-9,
        _ => return None,
    };
    Some(Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::parse_debug_duration;
    use std::time::Duration;

    #[test]
    fn debug_durations_parse_back() {
        for d in [
            Duration::from_secs(3),
            Duration::from_millis(1234),
            Duration::from_micros(1500),
            Duration::from_nanos(999),
            Duration::from_secs_f64(0.4155),
        ] {
            let back = parse_debug_duration(&format!("{d:?}")).unwrap();
            let diff = (back.as_secs_f64() - d.as_secs_f64()).abs();
            assert!(diff < 1e-9, "{d:?} -> {back:?}");
        }
        assert_eq!(parse_debug_duration("soon"), None);
        assert_eq!(parse_debug_duration("12 parsecs"), None);
    }
}
