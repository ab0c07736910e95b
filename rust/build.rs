// SPDX-License-Identifier: GPL-2.0

//! With the `faults` feature (tests/faults.rs), the host build takes the map with the debug
//! kernel's fault switches: the `mm/pasr/map.rs` part of `patches/faults/*.patch`, applied with
//! patch(1) to a copy in `OUT_DIR`. Without it, the production sources are built as they are.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

const FILE: &str = "mm/pasr/map.rs";

fn main() {
    println!("cargo::rustc-check-cfg=cfg(CONFIG_PASR_FAULT_INJECTION)");
    println!("cargo::rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_FAULTS").is_none() {
        return;
    }
    println!("cargo::rustc-cfg=CONFIG_PASR_FAULT_INJECTION");
    let patches = Path::new("../patches/faults");
    println!("cargo::rerun-if-changed={}", patches.display());
    println!("cargo::rerun-if-changed={FILE}");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("faults");
    fs::create_dir_all(out.join("mm/pasr")).unwrap();
    fs::copy(FILE, out.join(FILE)).unwrap();

    let mut names: Vec<_> = fs::read_dir(patches)
        .expect("patches/faults")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    names.sort();
    for p in names {
        // Only the part of the patch about FILE: the others are kernel files.
        let text = fs::read_to_string(&p).unwrap();
        let mut part = String::new();
        let mut keep = false;
        for line in text.split_inclusive('\n') {
            if line.starts_with("diff ") {
                keep = line.trim_end().ends_with(&format!("b/{FILE}"));
            }
            if keep {
                part.push_str(line);
            }
        }
        if part.is_empty() {
            continue;
        }
        let part_path = out.join("part.patch");
        fs::write(&part_path, part).unwrap();
        let ok = Command::new("patch")
            .args([
                "-s",
                "-p1",
                "-N",
                "--no-backup-if-mismatch",
                "-r",
                "-",
                "-d",
            ])
            .arg(&out)
            .arg("-i")
            .arg(&part_path)
            .status()
            .expect("patch(1)")
            .success();
        assert!(ok, "{} does not apply to {FILE}", p.display());
    }
    // `include!` takes no inner doc comments.
    let src = fs::read_to_string(out.join(FILE)).unwrap();
    let src: String = src
        .split_inclusive('\n')
        .map(|l| {
            l.strip_prefix("//!")
                .map_or(l.to_string(), |r| format!("//{r}"))
        })
        .collect();
    fs::write(out.join("map.rs"), src).unwrap();
}
