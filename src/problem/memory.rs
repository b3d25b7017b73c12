//! How much memory a run needs, estimated before anything large is allocated, and how much
//! the machine has: a model too large for the machine is refused with both figures instead of
//! being killed (or killing others) once the factorization grows.
//!
//! The estimate is [`BASE_BYTES`] and [`BYTES_PER_UNKNOWN`] per coordinate and constraint;
//! models that couple every block with every other one (the pendulum chain in angles) add
//! their terms and dense matrix ([`estimate_coupled`]). Measured against the peak resident
//! memory of short runs (`python3 benches/memory_estimate.py`, benches/README.md "Memory
//! estimates"): the cloth of 100², 200², 300² points and the hanging chain of 10⁴, 10⁵, 3·10⁵
//! masses peak at 1.5–2.0 KB per coordinate (most of it the sparse LU factors; the 1000 × 1000
//! cloth at 6.6 GB, 2.2 KB), the pendulum chain at about 400 bytes per pair of rods. The
//! estimates lie between 1.2× and 1.8× of those peaks, except one: 250 pendulums peaked at
//! 0.111 GB inside the script (0.56× its estimate), though at 0.048 GB run alone.

/// Estimated bytes per unknown (coordinate or constraint) of a run.
pub const BYTES_PER_UNKNOWN: f64 = 2560.0;

/// Estimated bytes of any run besides its model: the program, its threads, the output
/// buffers (a run of a few coordinates peaks at 12 MB).
pub const BASE_BYTES: f64 = 16e6;

/// The environment variable that caps the memory a run may plan for, in bytes (`8e9`), below
/// what the machine has available.
pub const MEMORY_VARIABLE: &str = "LAGRANGIAN_MAX_MEMORY";

/// Estimated bytes a run of `unknowns` coordinates and constraints needs.
///
/// ```
/// use lagrangian::problem::memory;
/// assert_eq!(memory::estimate(1_000_000), 2.576e9);
/// ```
pub fn estimate(unknowns: usize) -> f64 {
    BASE_BYTES + unknowns as f64 * BYTES_PER_UNKNOWN
}

/// The bytes a run may use: the machine's available memory (`MemAvailable` of
/// `/proc/meminfo`), capped by [`MEMORY_VARIABLE`] and by what the process's address-space
/// limit (`ulimit -v`, `RLIMIT_AS`: "Max address space" of `/proc/self/limits`) leaves above
/// its present size (`VmSize` of `/proc/self/status`) — past that limit an allocation fails
/// and the process aborts; `None` when none is known.
pub fn available() -> Option<f64> {
    limits().0
}

/// [`available`], and whether the address-space limit is what bounds it.
fn limits() -> (Option<f64>, bool) {
    let free = machine_available();
    match address_space_left() {
        Some(left) if free.is_none_or(|f| left < f) => (Some(left), true),
        _ => (free, false),
    }
}

/// Bytes of address space the process may still map under its `RLIMIT_AS` (`None`: no limit,
/// or not Linux).
pub fn address_space_left() -> Option<f64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line.split_whitespace().nth(3)?;
    let limit: f64 = soft.parse().ok()?; // "unlimited" does not parse: no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let size = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kb: f64 = size.split_whitespace().nth(1)?.parse().ok()?;
    Some((limit - kb * 1024.0).max(0.0))
}

/// [`available`] without the address-space limit.
fn machine_available() -> Option<f64> {
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
    let what = format!(
        "{coordinates} coordinates and {constraints} constraints need about {:.3} GB of \
         memory ({:.1} KB per unknown, estimated)",
        need / 1e9,
        BYTES_PER_UNKNOWN / 1024.0,
    );
    check_bytes(need, &what)
}

/// `Err(message)` when `need` bytes are more than is available; `what` says what needs them
/// and is the start of the message.
pub fn check_bytes(need: f64, what: &str) -> Result<(), String> {
    let (available, limited) = limits();
    match available {
        Some(have) if need > have => Err(format!(
            "{what}, more than the {:.1} GB available{}{}",
            have / 1e9,
            match std::env::var(MEMORY_VARIABLE) {
                Ok(v) => format!(" ({MEMORY_VARIABLE}={v})"),
                Err(_) => String::new(),
            },
            match limited {
                true => " (what the process's address-space limit, ulimit -v, leaves)",
                false => "",
            }
        )),
        _ => Ok(()),
    }
}

/// Estimated bytes of a model whose iteration matrix has `entries` nonzero entries and
/// whose terms couple `pairs` pairs of coordinate blocks, besides its `unknowns`: what a
/// dense coupling costs (a pendulum chain in angle coordinates couples every rod with every
/// other one: `n²/2` terms and a dense matrix, stored and factorized as a sparse one).
pub fn estimate_coupled(unknowns: usize, entries: f64, pairs: f64) -> f64 {
    estimate(unknowns) + BYTES_PER_ENTRY * entries + BYTES_PER_PAIR * pairs
}

/// Estimated bytes per nonzero entry of the iteration matrix beyond [`BYTES_PER_UNKNOWN`]:
/// the matrix, its symbolic and numeric factors and the scatter slots.
pub const BYTES_PER_ENTRY: f64 = 120.0;

/// Estimated bytes per term coupling two blocks (its kernel and local blocks).
pub const BYTES_PER_PAIR: f64 = 480.0;
