//! The mass–spring course's Python example (a fixed point, two masses on springs, a distance
//! constraint between the masses, gravity) in Rust, printing the final positions and velocities
//! as JSON — the reference the Python package's `mass_spring` API is tested against.
//!
//! ```sh
//! cargo run --release --example course
//! ```

use lagrangian::library::mass_spring::MassSpringSystem;

fn main() -> Result<(), lagrangian::Error> {
    let mut mss = MassSpringSystem::<3>::new([0.0, -9.81, 0.0]);
    let f = mss.add_fix([0.0, 0.0, 0.0]);
    let m1 = mss.add_mass(1.0, [1.0, 0.0, 0.0]);
    let m2 = mss.add_mass(1.0, [2.0, 0.0, 0.0]);
    mss.add_spring(f, m1, 1.0, 20.0);
    mss.add_spring(m1, m2, 1.0, 20.0);
    mss.add_distance_constraint(m1, m2, 1.0);
    mss.simulate(5.0, 500)?;
    let pos: Vec<[f64; 3]> = mss.masses.iter().map(|m| m.pos).collect();
    let vel: Vec<[f64; 3]> = mss.masses.iter().map(|m| m.vel).collect();
    let out = serde_json::json!({
        "t": mss.time(),
        "positions": pos,
        "velocities": vel,
        "constraint_forces": mss.constraint_forces(),
    });
    println!("{out}");
    Ok(())
}
