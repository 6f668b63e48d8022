//! `cuzk demo` (what `cargo xtask demo` runs, the first thing a newcomer runs): the real
//! binary, its exit status, its proofs checked here against the verifying key it wrote, and
//! its timeline picture.

use std::process::Command;

use cuzk_core::bellperson_lite::circuits::TestCircuit;
use cuzk_core::bellperson_lite::params::read_verifying_key;
use cuzk_core::bellperson_lite::verifier::{prepare_verifying_key, verify_proof};
use cuzk_core::bellperson_lite::{Proof, Scalar};

#[test]
fn the_demo_proves_verifiable_proofs_and_draws_its_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args([
            "demo",
            "--log-size",
            "10",
            "--jobs",
            "3",
            "--partitions",
            "2",
        ])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "cuzk demo failed\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("proofs verified"), "{stdout}");

    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("demo.json")).unwrap()).unwrap();
    let jobs = summary["jobs"].as_array().unwrap();
    // Three NORMAL jobs of two partitions, then the CRITICAL one of one.
    let partitions: Vec<u64> = jobs
        .iter()
        .map(|j| j["partitions"].as_u64().unwrap())
        .collect();
    assert_eq!(partitions, [2, 2, 2, 1]);
    assert_eq!(jobs[3]["priority"], "CRITICAL");
    let mut order: Vec<u64> = summary["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    order.sort_unstable();
    assert_eq!(order, [1, 2, 3, 4], "every job ended once");

    // The proofs verify here too, with the key the demo wrote, and not with another input.
    let vk_file = std::fs::File::open(dir.path().join("vk.bin")).unwrap();
    let pvk = prepare_verifying_key(&read_verifying_key(vk_file).unwrap());
    let input = TestCircuit::by_name("sha", 10, 0).unwrap().public_input();
    let mut checked = 0;
    for job in jobs {
        let bytes = std::fs::read(dir.path().join(job["proof_file"].as_str().unwrap())).unwrap();
        let proofs = Proof::read_many(&bytes).unwrap();
        assert_eq!(proofs.len() as u64, job["partitions"].as_u64().unwrap());
        for proof in &proofs {
            assert!(verify_proof(&pvk, proof, &[input]).unwrap());
            assert!(!verify_proof(&pvk, proof, &[input + Scalar::from(1u64)]).unwrap());
            checked += 1;
        }
    }
    assert_eq!(checked, 7);

    let svg = std::fs::read_to_string(dir.path().join("demo-timeline.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("synthesis"),
        "the timeline has no synthesis span"
    );
    // The daemon drained and removed its socket.
    assert!(
        stdout.contains("daemon drained: every job had ended"),
        "{stdout}"
    );
}

#[test]
fn the_demo_refuses_an_unknown_circuit_before_starting() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cuzk"))
        .args(["demo", "--circuit", "rsa"])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("rsa"), "{stderr}");
    assert!(!dir.path().join("cuzk-demo.toml").exists());
}
