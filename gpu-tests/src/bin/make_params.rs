//! Parameters for a test circuit, generated with the fixed-base multiplications on the GPU
//! from secrets drawn from a seed, streamed to a file in bellperson's format: the same file
//! serves cuzk's benchmarks (`bench_groth16 --params`) and the supraseal peer
//! (`tools/supraseal-peer`), so both prove with the same parameters and, given the same r and
//! s, must give the same proof bytes. These are test parameters: whoever has the seed can
//! forge proofs.
//!
//! Usage: `make_params --circuit KIND:LOG --out FILE [--seed N]` (KIND a test circuit name:
//! `sha`, `mix`, `mix50`; the circuit itself is made with seed 1, as the benchmarks make it).

use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use bellperson_lite::circuits::TestCircuit;
use bellperson_lite::generator::{setup_scalars, GpuFixedBase, SetupSecrets};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// Points per chunk of the streamed multiplications.
const CHUNK_POINTS: usize = 1 << 22;

struct Options {
    kind: String,
    log: u32,
    out: PathBuf,
    seed: u64,
}

fn options() -> Result<Options, String> {
    let (mut circuit, mut out, mut seed) = (None, None, 1u64);
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--circuit" => circuit = Some(value()?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--seed" => seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let circuit = circuit.ok_or("--circuit KIND:LOG is required")?;
    let (kind, log) = circuit
        .split_once(':')
        .ok_or(format!("--circuit {circuit:?}: expected KIND:LOG"))?;
    let log = log
        .parse()
        .map_err(|e| format!("--circuit {circuit:?}: {e}"))?;
    Ok(Options {
        kind: kind.to_string(),
        log,
        out: out.ok_or("--out FILE is required")?,
        seed,
    })
}

fn main() -> ExitCode {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}\nusage: make_params --circuit KIND:LOG --out FILE [--seed N]");
            return ExitCode::FAILURE;
        }
    };
    let circuit = match TestCircuit::by_name(&o.kind, o.log, 1) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}:{}: {e}", o.kind, o.log);
            return ExitCode::FAILURE;
        }
    };
    let file = match std::fs::File::create(&o.out) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("cannot create {}: {e}", o.out.display());
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let secrets = SetupSecrets::random(&mut ChaCha20Rng::seed_from_u64(o.seed));
    let written = setup_scalars(circuit, &secrets).and_then(|scalars| {
        let vk = scalars.verifying_key(&GpuFixedBase)?;
        scalars.write_parameters(&vk, &GpuFixedBase, BufWriter::new(file), CHUNK_POINTS)
    });
    match written {
        Ok(w) => {
            if let Err(e) = w.into_inner() {
                eprintln!("cannot write {}: {}", o.out.display(), e.error());
                return ExitCode::FAILURE;
            }
            println!(
                "{}:{} parameters in {} ({:.1} s, seed {})",
                o.kind,
                o.log,
                o.out.display(),
                started.elapsed().as_secs_f64(),
                o.seed
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}:{}: {e}", o.kind, o.log);
            ExitCode::FAILURE
        }
    }
}
