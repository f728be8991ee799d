//! Float and bool kernel parameters: each is in the signature with its type, read once
//! at the kernel's entry with its register type, and a bool arrives as a 32-bit
//! integer that the kernel compares with 0.

#[path = "support/lower.rs"]
mod support;

use support::kir_text;

const SOURCE: &str = "kernel axpy_if(
    n: i32,
    alpha: f32,
    beta: f64,
    gamma: bf16,
    delta: f16,
    flag: bool,
    x: gmem f32[n:1],
    y: gmem f32[n:1],
) launch grid(n / 128) block(128) {
    let i = block_idx.x * 128 + thread_idx.x;
    if flag {
        y[i] = alpha * x[i] + y[i];
    } else {
        y[i] = x[i] * beta.to(f32) + gamma.to(f32) * delta.to(f32) + alpha;
    }
}
";

fn kir() -> String {
    kir_text(SOURCE)
}

#[test]
fn float_and_bool_parameters_are_in_the_signature() {
    let kir = kir();
    for param in [
        "param 1 alpha: f32",
        "param 2 beta: f64",
        "param 3 gamma: bf16",
        "param 4 delta: f16",
        "param 5 flag: bool",
    ] {
        assert!(kir.contains(param), "{param} missing:\n{kir}");
    }
}

#[test]
fn each_scalar_is_read_once_with_its_register_type() {
    let kir = kir();
    for (index, ty) in [(1, "f32"), (2, "f64"), (3, "bf16"), (4, "f16"), (5, "i32")] {
        let reads: Vec<&str> = kir
            .lines()
            .filter(|line| line.contains(&format!("= param {index} ")))
            .collect();
        assert_eq!(reads.len(), 1, "param {index} read once:\n{kir}");
        assert!(
            reads[0].contains(&format!(":{ty} = param")),
            "param {index} as {ty}: {}",
            reads[0]
        );
        assert!(
            !reads[0].starts_with("    "),
            "read at the kernel's entry: {}",
            reads[0]
        );
    }
    let flag = kir
        .lines()
        .find(|line| line.contains("= param 5 "))
        .and_then(|line| line.trim().split(':').next())
        .unwrap();
    assert!(
        kir.contains(&format!(":pred = cmp.ne {flag}, ")),
        "the bool is its integer compared with 0:\n{kir}"
    );
}
