//! Parameter generation for a Filecoin test sector size (`cuzk params generate`), with the
//! fixed-base multiplications on the GPU and then on the CPU, from the same secrets: times
//! both and checks that the files are byte for byte the same. Before that, the
//! multiplications alone: 2^22 G1 and 2^20 G2 products on each side, the GPU's checked equal
//! to the CPU's.
//!
//! Usage: `bench_params [--sector-size 2KiB] [--kinds porep,winning,wpost,snap] [--no-cpu]`
//! (`--no-cpu` skips the CPU's generation, which takes minutes on few cores). Output folders
//! are made under the system's temporary directory and removed afterwards.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use bellperson_lite::generator::{CpuFixedBase, FixedBaseMultiplier, FixedBaseTable, GpuFixedBase};
use blstrs::{G1Projective, G2Projective, Scalar};
use cuzk_core::filecoin::{generate_parameters, parse_sector_size, CircuitKind, GenerateOptions};
use ff::Field;
use group::Group;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

struct Options {
    sector_size: u64,
    kinds: Vec<CircuitKind>,
    cpu: bool,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        sector_size: 2048,
        kinds: vec![CircuitKind::PoRep],
        cpu: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--sector-size" => {
                o.sector_size = parse_sector_size(&value()?).map_err(|e| e.to_string())?
            }
            "--kinds" => {
                o.kinds = value()?
                    .split(',')
                    .map(|k| CircuitKind::from_name(k).ok_or(format!("unknown kind {k}")))
                    .collect::<Result<_, _>>()?
            }
            "--no-cpu" => o.cpu = false,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_params: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let o = options()?;
    let mut rng = ChaCha20Rng::seed_from_u64(1);
    let mut rows = Vec::new();

    // The multiplications alone, affine points out (the GPU's figure includes the copies).
    let scalars: Vec<Scalar> = (0..1 << 22).map(|_| Scalar::random(&mut rng)).collect();
    let g1 = FixedBaseTable::new(G1Projective::random(&mut rng));
    let g2 = FixedBaseTable::new(G2Projective::random(&mut rng));
    let g2_scalars = &scalars[..1 << 20];
    // A small call first, so that the CUDA context and the module load are not timed.
    let gpu_warm = GpuFixedBase
        .mul_g1(&g1, &scalars[..1024])
        .map_err(|e| e.to_string())?;
    drop(gpu_warm);
    // Each side's products, timed; the GPU's must be the CPU's.
    let sides: [(&str, &dyn FixedBaseMultiplier); 2] =
        [("GPU", &GpuFixedBase), ("CPU", &CpuFixedBase)];
    let mut products = Vec::new();
    for (side, multiplier) in sides {
        let started = Instant::now();
        let g1_points = multiplier
            .mul_g1(&g1, &scalars)
            .map_err(|e| e.to_string())?;
        rows.push((format!("G1 2^22 {side}"), started.elapsed().as_secs_f64()));
        let started = Instant::now();
        let g2_points = multiplier
            .mul_g2(&g2, g2_scalars)
            .map_err(|e| e.to_string())?;
        rows.push((format!("G2 2^20 {side}"), started.elapsed().as_secs_f64()));
        products.push((g1_points, g2_points));
    }
    if products[0] != products[1] {
        return Err("the GPU's products differ from the CPU's".into());
    }
    drop(products);
    drop(scalars);

    // Whole parameter sets from the same seed.
    let root = std::env::temp_dir().join(format!("cuzk-bench-params-{}", std::process::id()));
    let generate = |folder: &Path, cpu_only: bool| -> Result<f64, String> {
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let options = GenerateOptions {
            force: false,
            cpu_only,
        };
        let started = Instant::now();
        let sets = generate_parameters(folder, o.sector_size, &o.kinds, options, &mut rng)
            .map_err(|e| e.to_string())?;
        let s = started.elapsed().as_secs_f64();
        for set in &sets {
            println!(
                "{} {}: {:.1} s, multiplied on the {}",
                if cpu_only { "cpu" } else { "gpu" },
                set.circuit_id,
                set.elapsed.as_secs_f64(),
                if set.on_gpu { "GPU" } else { "CPU" }
            );
            if set.on_gpu == cpu_only {
                return Err(format!("{}: multiplied on the wrong side", set.circuit_id));
            }
        }
        Ok(s)
    };
    let result = (|| {
        let gpu_dir = root.join("gpu");
        rows.push(("generate on GPU".to_string(), generate(&gpu_dir, false)?));
        if o.cpu {
            let cpu_dir = root.join("cpu");
            rows.push(("generate on CPU".to_string(), generate(&cpu_dir, true)?));
            compare_folders(&gpu_dir, &cpu_dir)?;
            println!("the GPU's and the CPU's files are identical");
        }
        Ok::<_, String>(())
    })();
    let _ = std::fs::remove_dir_all(&root);
    result?;

    println!("\n{:<20} {:>10}", "what", "seconds");
    for (what, s) in rows {
        println!("{what:<20} {s:>10.3}");
    }
    Ok(())
}

/// Every file of `a` has the same bytes in `b`, and `b` has no others.
fn compare_folders(a: &Path, b: &Path) -> Result<(), String> {
    let names = |dir: &Path| -> Result<Vec<_>, String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        Ok(names)
    };
    let (in_a, in_b) = (names(a)?, names(b)?);
    if in_a != in_b {
        return Err(format!("different files: {in_a:?} / {in_b:?}"));
    }
    for name in in_a {
        let read = |dir: &Path| std::fs::read(dir.join(&name)).map_err(|e| e.to_string());
        if read(a)? != read(b)? {
            return Err(format!(
                "{name:?} differs between the GPU's and the CPU's generation"
            ));
        }
    }
    Ok(())
}
