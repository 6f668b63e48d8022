//! `cuzk bench --witness-only`: one partition's witness on this machine's cores, through the
//! circuit's gadgets, through the kind's native generator, and with `--full` through a full
//! synthesis (the witness and a, b, c, what a CPU prover needs), compared value for value.
//! Needs neither a GPU nor parameters: how fast this host computes what synthesis costs a
//! proof, and whether the native witness is the gadgets' here.

use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use cuzk_core::bellperson_lite::matrices::Witness;
use cuzk_core::bellperson_lite::placement::WitnessSample;
use cuzk_core::filecoin::FilecoinJob;
use cuzk_core::Partition;

use super::BenchArgs;

/// A way to compute a partition's witness.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Full synthesis (`--full`): the gadgets, building every constraint.
    Full,
    /// The gadgets in bellperson-lite's witness-only constraint system.
    Gadgets,
    /// The kind's native generator.
    Native,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Full => "full",
            Source::Gadgets => "gadgets",
            Source::Native => "native",
        }
    }

    /// Whether the partition has this way (checked without computing anything).
    fn witness_exists(self, partition: &Partition) -> bool {
        match self {
            Source::Full | Source::Gadgets => true,
            Source::Native => partition.has_native_witness(),
        }
    }

    /// The partition's witness this way; `None` when the partition has no such way.
    fn witness(self, partition: &Partition) -> Option<Result<Witness>> {
        match self {
            Source::Full => Some(
                partition
                    .synthesize()
                    .map(|a| Witness {
                        inputs: a.input_assignment,
                        aux: a.aux_assignment,
                    })
                    .context("the full synthesis"),
            ),
            Source::Gadgets => partition
                .gadget_witness()
                .map(|w| w.context("the gadgets' witness")),
            Source::Native => partition
                .native_witness()
                .map(|w| w.map_err(|e| anyhow!("the native witness: {e}"))),
        }
    }
}

/// Times `--jobs` (default 2) runs of each witness of the job's first partition, then with
/// `--at-once N` N of each side by side.
pub(super) fn run(args: &BenchArgs, job: &FilecoinJob) -> Result<()> {
    let partition = job
        .partitions
        .first()
        .ok_or_else(|| anyhow!("{} has no partitions", job.circuit_id))?;
    if partition.gadget_witness().is_none() {
        bail!("{} is always synthesized in full", job.circuit_id);
    }
    let sources: Vec<Source> = [Source::Full, Source::Gadgets, Source::Native]
        .into_iter()
        .filter(|&s| (s != Source::Full || args.full) && s.witness_exists(partition))
        .collect();
    if !sources.contains(&Source::Native) {
        println!("{} has no native generator", job.kind);
    }
    let runs = args.jobs.unwrap_or(2).max(1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut seconds: Vec<Vec<f64>> = vec![Vec::new(); sources.len()];
    let mut equal = true;
    let mut aux_values = 0;
    let mut composition = None;
    for run in 1..=runs {
        let mut reference: Option<Witness> = None;
        let mut line = format!("run {run}:");
        for (i, &source) in sources.iter().enumerate() {
            let started = Instant::now();
            let witness = source.witness(partition).expect("filtered above")?;
            seconds[i].push(started.elapsed().as_secs_f64());
            line += &format!(" {} {:.2} s,", source.name(), seconds[i][run - 1]);
            match &reference {
                None => {
                    aux_values = witness.aux.len();
                    if composition.is_none() {
                        composition = Some(report_composition(&witness.aux));
                    }
                    reference = Some(witness);
                }
                Some(first) => equal &= *first == witness,
            }
        }
        println!(
            "{line} {aux_values} aux values, {}",
            if equal { "equal" } else { "DIFFERENT" }
        );
    }
    let medians: Vec<f64> = seconds.iter().map(|s| median(s)).collect();
    let gadgets = sources.iter().position(|&s| s == Source::Gadgets);
    let mut summary = format!("{} on {threads} threads, median of {runs}:", job.circuit_id);
    for (i, source) in sources.iter().enumerate() {
        summary += &format!(" {} {:.2} s", source.name(), medians[i]);
        if let (Source::Native, Some(g)) = (source, gadgets) {
            summary += &format!(" ({:.1}x the gadgets)", medians[g] / medians[i]);
        }
        summary += ",";
    }
    println!("{}", summary.trim_end_matches(','));
    let at_once = (args.at_once > 0)
        .then(|| at_once(args.at_once, threads, partition, &sources))
        .transpose()?;
    if let Some(path) = &args.json {
        let mut json = serde_json::json!({
            "kind": args.kind,
            "sector_size": args.sector_size,
            "circuit_id": job.circuit_id,
            "threads": threads,
            "aux_values": aux_values,
            "aux_composition": composition,
            "equal": equal,
            "at_once": at_once,
        });
        for (i, source) in sources.iter().enumerate() {
            json[format!("{}_seconds", source.name())] = serde_json::json!(seconds[i]);
            json[format!("median_{}_seconds", source.name())] = serde_json::json!(medians[i]);
        }
        std::fs::write(path, serde_json::to_vec_pretty(&json)?)
            .with_context(|| format!("writing {}", path.display()))?;
        println!("figures: {}", path.display());
    }
    if !equal {
        bail!("the witnesses differ (the engine would not use the native one)");
    }
    Ok(())
}

/// Prints what the aux values are (zero, one, full-width) and where the GPU prover's default
/// (`gpus.scalar_splits = "auto"`) splits the scalars of such a witness; the same as JSON.
fn report_composition(aux: &[cuzk_core::bellperson_lite::Scalar]) -> serde_json::Value {
    let all = WitnessSample::all(aux);
    let sample = WitnessSample::of(aux);
    let share = |n: usize| 100.0 * n as f64 / aux.len().max(1) as f64;
    let place = if sample.split_on_gpu() { "gpu" } else { "host" };
    println!(
        "aux values: {:.1}% zero, {:.1}% one, {:.1}% full-width; with gpus.scalar_splits = \"auto\" \
         the GPU prover splits them on the {place}",
        share(all.zeros),
        share(all.ones),
        share(all.others)
    );
    serde_json::json!({
        "zeros": all.zeros,
        "ones": all.ones,
        "full_width": all.others,
        "auto_split_on": place,
    })
}

/// The median (the mean of the middle two for an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// What `n` witnesses of `partition` computed at once cost, for each source in turn: the
/// wall time of each batch and the core-seconds per witness (wall time x threads / n). The
/// results are dropped after the clock stops.
fn at_once(
    n: usize,
    threads: usize,
    partition: &Partition,
    sources: &[Source],
) -> Result<serde_json::Value> {
    let mut json = serde_json::json!({ "witnesses": n });
    let mut line = format!("{n} at once:");
    let per = |wall: f64| wall * threads as f64 / n as f64;
    let mut gadgets = None;
    for &source in sources {
        let started = Instant::now();
        let witnesses = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|_| scope.spawn(move || source.witness(partition).expect("filtered")))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().map_err(|_| anyhow!("a witness thread panicked"))?)
                .collect::<Result<Vec<Witness>>>()
        })?;
        let wall = started.elapsed().as_secs_f64();
        drop(witnesses);
        line += &format!(
            " {} {wall:.2} s ({:.2} core-s per witness",
            source.name(),
            per(wall)
        );
        match (source, gadgets) {
            (Source::Gadgets, _) => gadgets = Some(wall),
            (Source::Native, Some(g)) => line += &format!(", {:.1}x the gadgets", g / wall),
            _ => {}
        }
        line += "),";
        json[format!("{}_seconds", source.name())] = serde_json::json!(wall);
        json[format!("{}_core_seconds_per_witness", source.name())] = serde_json::json!(per(wall));
    }
    println!("{}", line.trim_end_matches(','));
    Ok(json)
}
