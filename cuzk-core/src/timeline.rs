//! Timelines: which of the engine's threads did what, and when, so that the overlap of one
//! proof's CPU work with another's GPU work (the interlock) can be seen rather than inferred.
//!
//! Recording is off until [`crate::Engine::record_timeline`] is called, and costs one short
//! lock per phase of a partition while on. [`render_svg`] draws a recording as one lane per
//! thread (synthesis threads, CPU provers, GPU workers, finalizers) plus one lane per GPU
//! with the kernels of every proof; `cargo xtask bench-phases --timeline` and the GPU
//! bundle's benchmarks write such pictures.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use bellperson_lite::prover::PhaseTimings;

/// The thread (or device) a span ran on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Lane {
    /// Synthesis thread `i`.
    Synthesis(usize),
    /// CPU prover `i`.
    CpuProver(usize),
    /// GPU worker `worker` of device `device`.
    GpuWorker { device: i32, worker: usize },
    /// Finalizer `i` (B in G2, assembly and self-check of GPU proofs).
    Finalizer(usize),
    /// The kernels of device `i`, whichever worker launched them.
    Gpu(i32),
}

impl Lane {
    /// The label drawn at the left of the lane.
    pub fn label(&self) -> String {
        match self {
            Lane::Synthesis(i) => format!("synthesis {i}"),
            Lane::CpuProver(i) => format!("CPU prover {i}"),
            Lane::GpuWorker { device, worker } => format!("GPU {device} worker {worker}"),
            Lane::Finalizer(i) => format!("finalizer {i}"),
            Lane::Gpu(i) => format!("GPU {i} kernels"),
        }
    }
}

/// What a span was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// A partition's synthesis (witness, and products when the CPU computes them).
    Synthesis,
    /// The CPU prover's whole proof.
    Prove,
    /// GPU worker: checks, MSM splits and anything else before the memory lock.
    Prep,
    /// GPU worker: waiting for the memory lock and the VRAM reservation.
    WaitMemory,
    /// GPU worker: uploading the proof's inputs under the memory lock.
    Upload,
    /// GPU worker: waiting for the compute lock.
    WaitCompute,
    /// Kernels under the compute lock (on a worker's lane and on its GPU's lane).
    Kernels,
    /// Finalizer: B in G2 when on the CPU, and assembly (the self-check follows).
    Finish,
}

impl Phase {
    const ALL: [Phase; 8] = [
        Phase::Synthesis,
        Phase::Prove,
        Phase::Prep,
        Phase::WaitMemory,
        Phase::Upload,
        Phase::WaitCompute,
        Phase::Kernels,
        Phase::Finish,
    ];

    pub fn name(&self) -> &'static str {
        match self {
            Phase::Synthesis => "synthesis",
            Phase::Prove => "CPU proof",
            Phase::Prep => "prep (checks, splits)",
            Phase::WaitMemory => "wait: memory lock + VRAM",
            Phase::Upload => "upload",
            Phase::WaitCompute => "wait: compute lock",
            Phase::Kernels => "kernels",
            Phase::Finish => "finish (B_G2, assembly)",
        }
    }

    fn color(&self) -> &'static str {
        match self {
            Phase::Synthesis => "#66bb6a",
            Phase::Prove => "#26a69a",
            Phase::Prep => "#9e9e9e",
            Phase::WaitMemory => "#fdd835",
            Phase::Upload => "#4fc3f7",
            Phase::WaitCompute => "#fb8c00",
            Phase::Kernels => "#e53935",
            Phase::Finish => "#7e57c2",
        }
    }
}

/// One phase of one partition on one lane, in time since the recording started.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub lane: Lane,
    pub phase: Phase,
    /// The job's id and the partition's index, so that a proof can be followed across lanes.
    pub job: String,
    pub partition: usize,
    pub start: Duration,
    pub end: Duration,
}

/// A finished recording.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    /// In the order they were recorded (not sorted).
    pub spans: Vec<Span>,
    /// Spans left out because the recording was full.
    pub dropped: usize,
    /// How long the recording ran.
    pub duration: Duration,
}

/// The GPU half of one proof as spans, from its phase timings: on `worker`, prep, the wait
/// for memory, the upload, the wait for compute and the kernels back to back from `start`,
/// ending at `end` (prep is what the timings do not account for: checks, splits, the C
/// library's own overhead); on `gpu`, the same kernels. The C library times the waits, the
/// upload and the kernels itself, so no clock needs to be shared with it.
pub fn gpu_half(
    (worker, gpu): (Lane, Lane),
    (job, partition): (&str, usize),
    (start, end): (Duration, Duration),
    t: &PhaseTimings,
) -> Vec<Span> {
    let copying = t.upload.saturating_sub(t.wait_memory + t.wait_compute);
    let accounted = t.wait_memory + copying + t.wait_compute + t.gpu_kernels();
    let prep = end.saturating_sub(start).saturating_sub(accounted);
    let span = |lane, phase, start, end| Span {
        lane,
        phase,
        job: job.to_string(),
        partition,
        start,
        end,
    };
    let mut spans = Vec::with_capacity(6);
    let mut at = start;
    for (phase, d) in [
        (Phase::Prep, prep),
        (Phase::WaitMemory, t.wait_memory),
        (Phase::Upload, copying),
        (Phase::WaitCompute, t.wait_compute),
    ] {
        let until = (at + d).min(end);
        spans.push(span(worker, phase, at, until));
        at = until;
    }
    spans.push(span(worker, Phase::Kernels, at, end));
    spans.push(span(gpu, Phase::Kernels, at, end));
    spans
}

/// A recording in progress (the engine keeps it behind a lock; spans are appended from any
/// of its threads until it is taken).
pub(crate) struct Recorder {
    origin: Instant,
    /// A bound on the spans kept, so that a recording left on cannot grow without end.
    capacity: usize,
    spans: Vec<Span>,
    dropped: usize,
}

impl Recorder {
    pub(crate) fn new(capacity: usize) -> Recorder {
        Recorder {
            origin: Instant::now(),
            capacity,
            spans: Vec::with_capacity(capacity.min(1 << 16)),
            dropped: 0,
        }
    }

    /// Records `[start, end)`; a span that began before the recording is cut at its start,
    /// one that ended before it is left out.
    pub(crate) fn record(
        &mut self,
        lane: Lane,
        phase: Phase,
        (job, partition): (&str, usize),
        start: Instant,
        end: Instant,
    ) {
        if end <= self.origin || end < start {
            return;
        }
        if self.spans.len() >= self.capacity {
            self.dropped += 1;
            return;
        }
        self.spans.push(Span {
            lane,
            phase,
            job: job.to_string(),
            partition,
            start: start.saturating_duration_since(self.origin),
            end: end.duration_since(self.origin),
        });
    }

    /// [`gpu_half`] of a proof whose GPU half ran from `start` to `end`.
    #[cfg(feature = "cuda")]
    pub(crate) fn record_gpu_half(
        &mut self,
        lanes: (Lane, Lane),
        key: (&str, usize),
        (start, end): (Instant, Instant),
        t: &PhaseTimings,
    ) {
        let length = end.saturating_duration_since(start);
        for s in gpu_half(lanes, key, (Duration::ZERO, length), t) {
            self.record(s.lane, s.phase, key, start + s.start, start + s.end);
        }
    }

    pub(crate) fn finish(self) -> Timeline {
        Timeline {
            duration: self.origin.elapsed(),
            spans: self.spans,
            dropped: self.dropped,
        }
    }
}

/// Escapes text for an SVG text node.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The timeline as an SVG picture titled `title`: one lane per lane that has spans, in the
/// order synthesis threads, CPU provers, GPU workers, finalizers, GPUs; a legend of the
/// phases that occur; the time axis from 0 to the recording's end.
pub fn render_svg(timeline: &Timeline, title: &str) -> String {
    let mut lanes: Vec<Lane> = timeline.spans.iter().map(|s| s.lane).collect();
    lanes.sort();
    lanes.dedup();
    let end = timeline
        .spans
        .iter()
        .map(|s| s.end)
        .max()
        .unwrap_or_default()
        .max(timeline.duration)
        .as_secs_f64()
        .max(1e-9);
    let (width, lane_height, left, top) = (1400.0, 22.0, 130.0, 40.0);
    let height = top + lane_height * lanes.len() as f64 + 50.0;
    let x = |t: Duration| left + (width - left - 10.0) * t.as_secs_f64() / end;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        out,
        r#"<text x="10" y="18" font-size="13">{}</text>"#,
        escape(title)
    );
    for (row, lane) in lanes.iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<text x="8" y="{:.1}">{}</text>"#,
            top + lane_height * row as f64 + 13.0,
            escape(&lane.label())
        );
    }
    for span in &timeline.spans {
        let row = lanes.binary_search(&span.lane).unwrap_or(0);
        let y = top + lane_height * row as f64;
        let _ = writeln!(
            out,
            r#"<rect x="{:.1}" y="{y:.1}" width="{:.2}" height="{:.1}" fill="{}"><title>{} {}: {} ({:.1} ms)</title></rect>"#,
            x(span.start),
            (x(span.end) - x(span.start)).max(0.5),
            lane_height - 4.0,
            span.phase.color(),
            escape(&span.job),
            span.partition,
            span.phase.name(),
            (span.end - span.start).as_secs_f64() * 1e3
        );
    }
    let legend_y = top + lane_height * lanes.len() as f64 + 20.0;
    let mut lx = left;
    for phase in Phase::ALL {
        if !timeline.spans.iter().any(|s| s.phase == phase) {
            continue;
        }
        let _ = writeln!(
            out,
            r#"<rect x="{lx:.0}" y="{:.0}" width="12" height="12" fill="{}"/><text x="{:.0}" y="{:.0}">{}</text>"#,
            legend_y - 10.0,
            phase.color(),
            lx + 16.0,
            legend_y,
            phase.name()
        );
        // About 6.5 px per character at this font size, and room for the swatch.
        lx += 30.0 + 6.5 * phase.name().len() as f64;
    }
    // A full recording is said so on the picture, not left to look like idle lanes.
    let dropped = if timeline.dropped > 0 {
        format!(
            " ({} spans left out: the recording was full)",
            timeline.dropped
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        r#"<text x="{:.0}" y="{:.0}" text-anchor="end">{end:.2} s{dropped}</text>"#,
        width - 10.0,
        legend_y + 18.0
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(lane: Lane, phase: Phase, start_ms: u64, end_ms: u64) -> Span {
        Span {
            lane,
            phase,
            job: "j<1>".into(),
            partition: 0,
            start: Duration::from_millis(start_ms),
            end: Duration::from_millis(end_ms),
        }
    }

    #[test]
    fn the_recorder_cuts_spans_at_its_start_and_counts_what_does_not_fit() {
        let before = Instant::now();
        std::thread::sleep(Duration::from_millis(2));
        let mut recorder = Recorder::new(2);
        let t = Instant::now();
        let key = ("job", 3);
        // Ended before the recording began: left out.
        recorder.record(Lane::Synthesis(0), Phase::Synthesis, key, before, before);
        // Began before: cut at the start.
        recorder.record(Lane::Synthesis(0), Phase::Synthesis, key, before, t);
        recorder.record(Lane::CpuProver(1), Phase::Prove, key, t, t);
        recorder.record(Lane::CpuProver(1), Phase::Prove, key, t, t);
        let timeline = recorder.finish();
        assert_eq!(timeline.spans.len(), 2);
        assert_eq!(timeline.dropped, 1);
        assert_eq!(timeline.spans[0].start, Duration::ZERO);
        assert!(timeline.spans[0].end > Duration::ZERO);
        assert_eq!(timeline.spans[1].lane, Lane::CpuProver(1));
        assert_eq!(timeline.spans[1].partition, 3);
    }

    #[test]
    fn a_gpu_half_is_laid_out_from_its_timings_and_ends_with_its_kernels() {
        let ms = Duration::from_millis;
        let t = PhaseTimings {
            wait_memory: ms(5),
            upload: ms(5 + 10 + 3), // wait for memory, the copies, wait for compute
            wait_compute: ms(3),
            ntt: ms(20),
            msm_h: ms(30),
            ..PhaseTimings::default()
        };
        let (worker, gpu) = (
            Lane::GpuWorker {
                device: 0,
                worker: 1,
            },
            Lane::Gpu(0),
        );
        let spans = gpu_half((worker, gpu), ("j", 2), (ms(100), ms(200)), &t);
        let laid: Vec<_> = spans
            .iter()
            .map(|s| (s.lane, s.phase, s.start, s.end))
            .collect();
        assert_eq!(
            laid,
            [
                (worker, Phase::Prep, ms(100), ms(132)),
                (worker, Phase::WaitMemory, ms(132), ms(137)),
                (worker, Phase::Upload, ms(137), ms(147)),
                (worker, Phase::WaitCompute, ms(147), ms(150)),
                (worker, Phase::Kernels, ms(150), ms(200)),
                (gpu, Phase::Kernels, ms(150), ms(200)),
            ]
        );
        // Timings longer than the half (clocks disagree): no prep, and nothing past the end.
        let spans = gpu_half((worker, gpu), ("j", 2), (ms(0), ms(40)), &t);
        assert_eq!(spans[0].end, ms(0));
        assert!(spans.iter().all(|s| s.start <= s.end && s.end <= ms(40)));
    }

    #[test]
    fn the_picture_has_a_lane_per_thread_in_order_and_a_box_per_span() {
        let timeline = Timeline {
            spans: vec![
                span(Lane::Finalizer(0), Phase::Finish, 30, 40),
                span(
                    Lane::GpuWorker {
                        device: 0,
                        worker: 1,
                    },
                    Phase::Kernels,
                    10,
                    30,
                ),
                span(Lane::Gpu(0), Phase::Kernels, 10, 30),
                span(Lane::Synthesis(2), Phase::Synthesis, 0, 10),
                span(Lane::Synthesis(0), Phase::Synthesis, 0, 12),
            ],
            dropped: 0,
            duration: Duration::from_millis(50),
        };
        let svg = render_svg(&timeline, "a & b");
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("a &amp; b"), "the title is escaped");
        assert!(svg.contains("j&lt;1&gt;"), "job ids are escaped");
        assert_eq!(
            svg.matches("<rect").count(),
            5 + 3,
            "5 spans and 3 legend entries"
        );
        let order: Vec<usize> = [
            "synthesis 0",
            "synthesis 2",
            "GPU 0 worker 1",
            "finalizer 0",
            "GPU 0 kernels",
        ]
        .iter()
        .map(|label| svg.find(&format!(">{label}<")).expect(label))
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "lanes in order");
        assert!(
            !svg.contains("CPU proof"),
            "no legend entry for an absent phase"
        );
        assert!(
            svg.contains(">0.05 s<"),
            "the axis ends at the recording's end"
        );
        let full = render_svg(
            &Timeline {
                dropped: 7,
                ..timeline
            },
            "t",
        );
        assert!(
            full.contains("7 spans left out"),
            "a full recording says so"
        );
    }
}
