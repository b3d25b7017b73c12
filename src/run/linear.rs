//! A state-space model of a file's mechanism into a folder (`lagrangian linearize`): the
//! linearization about its initial configuration, its equilibrium or its initial steady motion
//! ([`StateSpace`]), inputs its named parameters, outputs any of its
//! columns (positions, velocities, reactions, energies, the user's own — the ledger, an integral
//! over a run, excepted), written as `state_space.json` and `A.npy`, `B.npy`, `C.npy`, `D.npy`.
//!
//! ```
//! use lagrangian::run::linear::state_space;
//! use lagrangian::run::modes::ModesAt;
//! // a pendulum (m = 2, ℓ = 0.5) pushed by a force u on its bob; outputs its x and its angle
//! let text = "Dimension: 2\nPhysicalParams: { u: 0 }\nPartData: { Fixed: { O: [0, 0] }, \
//!             Particles: { A: 2 }, Bars: { OA: 0.5 } }\nAppliedForces: { Gravity: , \
//!             Forces: { A: [u, 0] } }\nProblemData: { tend: 1, positions: { A: [0, -0.5] } }\n\
//!             Output: { columns: [positions, { angle: 'atan2(A.x, -A.y)' }] }\n";
//! let (problem, _plan) = lagrangian::spec::parse(text, "pendulum.yaml")?;
//! let ss = state_space(&problem, ModesAt::Initial, &["u"], &["A.x", "angle"])?;
//! let cab = &ss.c * &ss.a * &ss.b; // the response's second derivative to a step in u
//! assert!((cab[(0, 0)] - 1.0 / 2.0).abs() < 1e-8 && (cab[(1, 0)] - 1.0 / (2.0 * 0.5)).abs() < 1e-8);
//! # Ok::<(), lagrangian::Error>(())
//! ```

use crate::analysis::{Equilibrium, EquilibriumOptions, Linearization, StateSpace};
use crate::error::{Error, OptionError};
use crate::model::StateView;
use crate::output::columns::Columns;
use crate::output::npy::NpyFile;
use crate::problem::{GROUPS, Outputs};
use crate::run::modes::ModesAt;
use crate::solve::Problem;
use nalgebra::DMatrix;
use std::path::Path;

/// The state-space model of `problem` about its initial configuration, equilibrium or initial
/// steady motion (`at`),
/// inputs the parameters `inputs`, outputs the columns `outputs`.
pub fn state_space(
    problem: &Problem,
    at: ModesAt,
    inputs: &[&str],
    outputs: &[&str],
) -> Result<StateSpace, Error> {
    let lin = match at {
        ModesAt::Initial => Linearization::at_rest(problem, &problem.initial_values()?.state.q),
        ModesAt::Equilibrium => Linearization::at_rest(
            problem,
            &Equilibrium::find(problem, &EquilibriumOptions::default())?.q,
        ),
        ModesAt::Motion => {
            let state = problem.initial_values()?.state;
            Linearization::in_motion(problem, &state.q, &state.v)
        }
    }?;
    // every group but the ledger (an integral over a run), with the accelerations
    let groups: Vec<&str> = GROUPS.into_iter().filter(|g| *g != "ledger").collect();
    let all = Outputs::from_names(&groups).expect("known groups");
    let names: Vec<String> = Columns::new(problem, &all).names().to_vec();
    let idx: Vec<usize> = (outputs.iter())
        .map(|o| {
            names.iter().position(|n| n == o).ok_or_else(|| -> Error {
                OptionError::UnknownName {
                    kind: "column",
                    name: o.to_string(),
                    message: format!(
                        "no column '{o}' to output (the ledger is not one); the columns are: {}",
                        names[1..].join(", ")
                    ),
                }
                .into()
            })
        })
        .collect::<Result<_, _>>()?;
    let h = |p: &Problem, q: &[f64], v: &[f64]| -> Result<Vec<f64>, Error> {
        let mut columns = Columns::new(p, &all);
        let zero = vec![0.0; p.model.n_constraints().max(p.model.n_coords())];
        let s = StateView {
            t: p.t0,
            q,
            v,
            qdd: &zero[..p.model.n_coords()],
            lambda: &zero[..p.model.n_constraints()],
        };
        let mut row = Vec::new();
        columns.row(p, s, &mut row);
        Ok(idx.iter().map(|&i| row[i]).collect())
    };
    let outputs: Vec<String> = outputs.iter().map(|s| s.to_string()).collect();
    StateSpace::about(problem, lin, inputs, &outputs, &h)
}

/// [`state_space`] written into `out`: `state_space.json` (the matrices as rows, the names, the
/// configuration and the basis `N`) and `A.npy` … `D.npy`, each through a temporary file.
pub fn state_space_to_folder(
    problem: &Problem,
    at: ModesAt,
    inputs: &[&str],
    outputs: &[&str],
    out: &Path,
) -> Result<StateSpace, Error> {
    let ss = state_space(problem, at, inputs, outputs)?;
    let io = |e: std::io::Error| Error::io(out, e);
    std::fs::create_dir_all(out).map_err(io)?;
    let place = |name: &str, write: &dyn Fn(&Path) -> std::io::Result<()>| {
        let part = out.join(format!(".{name}.partial"));
        write(&part).and_then(|_| std::fs::rename(&part, out.join(name)))
    };
    for (name, m) in [
        ("A.npy", &ss.a),
        ("B.npy", &ss.b),
        ("C.npy", &ss.c),
        ("D.npy", &ss.d),
    ] {
        place(name, &|p| npy(p, m)).map_err(io)?;
    }
    let text = serde_json::to_string_pretty(&ss).map_err(|e| io(std::io::Error::other(e)))?;
    place("state_space.json", &|p| {
        std::fs::write(p, format!("{text}\n"))
    })
    .map_err(io)?;
    Ok(ss)
}

/// `m` as a 2-D float64 `.npy` array.
fn npy(path: &Path, m: &DMatrix<f64>) -> std::io::Result<()> {
    let mut f = NpyFile::create(path, Some(m.ncols()))?;
    for i in 0..m.nrows() {
        f.row(&m.row(i).iter().copied().collect::<Vec<_>>())?;
    }
    f.finish()
}
