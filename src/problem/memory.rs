//! How much memory a run needs, estimated before anything large is allocated, and how much
//! the machine has: a model too large for the machine is refused with both figures instead of
//! being killed (or killing others) once the factorization grows.
//!
//! The estimate is [`BYTES_PER_UNKNOWN`] per coordinate and constraint. Measured: the
//! 1000 × 1000 cloth (3·10⁶ coordinates, the largest `Grids` entry) peaks at 6.6 GB — 2.2 KB per
//! coordinate, most of it the sparse LU factors (`/usr/bin/time -f %M lagrangian run
//! cloth1000.yaml --t-end 0.002 --columns positions --format npy`); the 300 × 300 cloth at
//! 0.68 GB, 2.5 KB per coordinate. The constant allows about twice that, for meshes whose
//! factors fill in more.

/// Estimated bytes per unknown (coordinate or constraint) of a run.
pub const BYTES_PER_UNKNOWN: f64 = 4096.0;

/// The environment variable that caps the memory a run may plan for, in bytes (`8e9`), below
/// what the machine has available.
pub const MEMORY_VARIABLE: &str = "LAGRANGIAN_MAX_MEMORY";

/// Estimated bytes a run of `unknowns` coordinates and constraints needs.
///
/// ```
/// use lagrangian::problem::memory;
/// assert_eq!(memory::estimate(1_000_000), 4.096e9);
/// ```
pub fn estimate(unknowns: usize) -> f64 {
    unknowns as f64 * BYTES_PER_UNKNOWN
}

/// The bytes a run may use: the machine's available memory (`MemAvailable` of
/// `/proc/meminfo`), capped by [`MEMORY_VARIABLE`]; `None` when neither is known.
pub fn available() -> Option<f64> {
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb * 1024.0)
        });
    let cap = std::env::var(MEMORY_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|x| *x > 0.0);
    match (machine, cap) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `Err(message)` when a run of `unknowns` unknowns needs more than is available.
pub fn check(coordinates: usize, constraints: usize) -> Result<(), String> {
    let need = estimate(coordinates + constraints);
    match available() {
        Some(have) if need > have => Err(format!(
            "{coordinates} coordinates and {constraints} constraints need about {:.1} GB of \
             memory ({:.0} KB per unknown, estimated), more than the {:.1} GB available{}",
            need / 1e9,
            BYTES_PER_UNKNOWN / 1024.0,
            have / 1e9,
            match std::env::var(MEMORY_VARIABLE) {
                Ok(v) => format!(" ({MEMORY_VARIABLE}={v})"),
                Err(_) => String::new(),
            }
        )),
        _ => Ok(()),
    }
}
