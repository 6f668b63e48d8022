//! `cargo xtask demo`: the whole CPU path on an embedded default circuit.

use std::time::Instant;

use anyhow::{ensure, Context, Result};
use bellperson_lite::circuits::ShaCircuit;
use bellperson_lite::generator::generate_random_parameters;
use bellperson_lite::params::{read_parameters_mmap, write_parameters};
use bellperson_lite::prover::{create_proof_batch_with_timings, PhaseTimings};
use bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use bellperson_lite::{Proof, Scalar};
use ff::Field;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::stats::{ms, print_table};
use crate::Options;

pub fn run(options: &Options) -> Result<()> {
    let log_size: u32 = options.number("log-size", 15)?;
    let proofs: usize = options.number("proofs", 3)?;
    let mut rng = ChaCha20Rng::seed_from_u64(0xc0ffee);

    let circuit = ShaCircuit::try_new(log_size, 0)?;
    println!(
        "circuit: sha, 2^{log_size} constraints ({} SHA-256 compressions), 1 public input",
        circuit.compressions()
    );

    let start = Instant::now();
    let params = generate_random_parameters(circuit.clone(), &mut rng)?;
    println!("parameters generated in {} ms", ms(start.elapsed()));

    let dir = std::env::temp_dir().join("cuzk-demo");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("sha-2^{log_size}.params"));
    let file =
        std::fs::File::create(&path).with_context(|| format!("create {}", path.display()))?;
    write_parameters(&params, std::io::BufWriter::new(file))?;
    let start = Instant::now();
    let loaded = read_parameters_mmap(&path, true)?;
    ensure!(
        loaded == params,
        "parameters read back differ from those written"
    );
    println!(
        "parameters written to {} ({} MiB) and read back (mmap, checked) in {} ms",
        path.display(),
        std::fs::metadata(&path)?.len() >> 20,
        ms(start.elapsed())
    );

    let pvk = prepare_verifying_key(&loaded.vk);
    let mut timings: Vec<PhaseTimings> = Vec::new();
    for seed in 0..proofs as u64 {
        let circuit = ShaCircuit::try_new(log_size, seed)?;
        let input = circuit.public_input();
        let (r, s) = (Scalar::random(&mut rng), Scalar::random(&mut rng));
        let (proof, t) = create_proof_batch_with_timings(vec![circuit], &loaded, &[r], &[s])?;
        let proof: Proof = proof[0];
        let start = Instant::now();
        ensure!(
            verify_proof(&pvk, &proof, &[input])?,
            "proof {seed} does not verify"
        );
        ensure!(
            !verify_proof(&pvk, &proof, &[input + Scalar::ONE])?,
            "proof {seed} verifies with a wrong public input"
        );
        println!(
            "proof {seed}: {} ms, verified in {} ms (and rejected with a wrong input)",
            ms(t.total),
            ms(start.elapsed() / 2)
        );
        timings.push(t);
    }
    print_table(
        &format!("\nper-phase timings over {proofs} proofs (CPU)"),
        &phase_rows(&timings),
    );
    Ok(())
}

/// The rows of a per-phase table, one sample per proof.
pub fn phase_rows(timings: &[PhaseTimings]) -> Vec<(&'static str, Vec<std::time::Duration>)> {
    let col = |f: fn(&PhaseTimings) -> std::time::Duration| timings.iter().map(f).collect();
    vec![
        ("synthesis", col(|t| t.synthesis)),
        ("H (NTT)", col(|t| t.ntt)),
        ("MSM h", col(|t| t.msm_h)),
        ("MSM l", col(|t| t.msm_l)),
        ("MSM a", col(|t| t.msm_a)),
        ("MSM b_g1", col(|t| t.msm_b_g1)),
        ("MSM b_g2", col(|t| t.msm_b_g2)),
        ("assembly", col(|t| t.assembly)),
        ("total", col(|t| t.total)),
    ]
}
