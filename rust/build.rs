// Host tests build the core with its test-only fault switches, as the kernel does with
// CONFIG_PASR_FAULT_INJECTION=y.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(CONFIG_PASR_FAULT_INJECTION)");
    println!("cargo::rustc-cfg=CONFIG_PASR_FAULT_INJECTION");
}
