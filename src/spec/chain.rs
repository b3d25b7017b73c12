//! The PHYS389 N-pendulum simulator's configuration (its `config.toml`, as YAML): N spherical pendulums in angle
//! coordinates, with that project's future work as optional keys.
//!
//! ```
//! let text = "title: two rods\ng: 9.81\ntimedelta: 1e-3\nsteps: 100\npendula:\n\
//!   - { length: 1, mass: 1, theta: pi/4, phi: 0, theta_dot: 0, phi_dot: 1, z_polar: true }\n\
//!   - { length: 0.5, mass: 2, theta: 1, phi: 0, theta_dot: 0, phi_dot: 0, z_polar: false, damping: 0.1 }\n";
//! let c = lagrangian::spec::parse_chain(text, "two.yaml").unwrap();
//! assert_eq!((c.chain.rods.len(), c.steps), (2, 100));
//! ```

use super::chain_toml;
use super::{Ctx, KeyPath, SpecError, kind, path, sub};
use crate::error::Error;
use crate::mechanisms::spherical_chain::{Chart, ChartLog, Rod, SphericalChain};
use crate::problem::{GenAlphaOptions, MAX_STEPS, Method, PlotPanel, Problem, Rk4Options, RunPlan};
use serde_yaml::Value;
use std::sync::{Arc, Mutex};

/// A pendulum chain file: the chain and how to integrate it.
#[derive(Clone, Debug)]
pub struct ChainSpec {
    /// Title.
    pub title: String,
    /// The chain with its initial state.
    pub chain: SphericalChain,
    /// Step size (`timedelta`).
    pub h: f64,
    /// Number of steps.
    pub steps: usize,
    /// The method of `integrator`: generalized-α (default, with `rho_inf`) or RK4, at step `h`.
    pub method: Method,
    /// Record every k steps.
    pub output_every: usize,
    /// Panels for `lagrangian plot` (the configuration's `plot` toggles).
    pub plots: Vec<PlotPanel>,
    /// Settings read but ignored.
    pub notes: Vec<String>,
}

impl ChainSpec {
    /// The file's problem and plan: the chain (in charts where every `sin θ ≥ switch_below`)
    /// over `steps` steps of `h`, with chart switches as restart events; its method, stride
    /// and plot panels.
    pub fn problem(&self) -> Result<(Problem, RunPlan), Error> {
        let mut chain = self.chain.clone();
        chain.normalize();
        let log = Arc::new(Mutex::new(ChartLog {
            charts: chain.rods.iter().map(|r| r.chart).collect(),
            switches: Vec::new(),
        }));
        let t_end = chain.t + self.steps as f64 * self.h;
        let mut problem = chain.problem(t_end, log)?.title(self.title.clone());
        problem.notes.extend(self.notes.iter().cloned());
        let mut plan = RunPlan::new(self.method.clone()).output_every(self.output_every);
        plan.outputs.plots = self.plots.clone();
        Ok((problem, plan))
    }
}

/// Whether a YAML document is a pendulum chain file (it has `pendula`).
pub fn is_chain(text: &str) -> bool {
    serde_yaml::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.as_mapping().map(|m| m.contains_key("pendula")))
        .unwrap_or(false)
}

pub(crate) fn build(ctx: Ctx, v: &Value) -> Result<ChainSpec, SpecError> {
    let root = path(&[]);
    let m = ctx.map(v, &root)?;
    ctx.keys(
        m,
        &root,
        Some(&[
            "title",
            "g",
            "timedelta",
            "steps",
            "integrator",
            "rho_inf",
            "output_every",
            "pendula",
            "switch_below",
            "filename",
            "plot",
        ]),
    )?;
    let title = m
        .get("title")
        .or_else(|| m.get("filename"))
        .and_then(|t| t.as_str())
        .unwrap_or("pendulum chain")
        .to_string();
    let g = m
        .get("g")
        .map(|x| ctx.num(x, &path(&["g"])))
        .transpose()?
        .unwrap_or(9.81);
    let h = ctx.positive(
        ctx.required(m, &root, "timedelta")?,
        &path(&["timedelta"]),
        "timedelta",
    )?;
    let steps = ctx.count(
        ctx.required(m, &root, "steps")?,
        &path(&["steps"]),
        "steps",
        MAX_STEPS,
    )?;
    let rho = m
        .get("rho_inf")
        .map(|x| ctx.num(x, &path(&["rho_inf"])))
        .transpose()?
        .unwrap_or(0.8);
    if !(0.0..1.0).contains(&rho) {
        return Err(ctx.err(&path(&["rho_inf"]), "rho_inf must lie in [0, 1)"));
    }
    let method: Method = match m.get("integrator") {
        None => GenAlphaOptions::new(h).rho_inf(rho).into(),
        Some(Value::String(s)) if s == "genalpha" => GenAlphaOptions::new(h).rho_inf(rho).into(),
        Some(Value::String(s)) if s == "rk4" => Rk4Options::new(h).into(),
        Some(_) => return Err(ctx.err(&path(&["integrator"]), "expected genalpha or rk4")),
    };
    let output_every = m
        .get("output_every")
        .map(|x| ctx.count(x, &path(&["output_every"]), "output_every", MAX_STEPS))
        .transpose()?
        .unwrap_or(1);
    let pp = path(&["pendula"]);
    let list = ctx
        .required(m, &root, "pendula")?
        .as_sequence()
        .ok_or_else(|| ctx.err(&pp, "expected a list of pendulums"))?;
    if list.is_empty() {
        return Err(ctx.err(&pp, "at least one pendulum"));
    }
    let rods = list
        .iter()
        .enumerate()
        .map(|(i, item)| rod(&ctx, &pp, i, item))
        .collect::<Result<Vec<_>, _>>()?;
    let (plots, notes) = match m.get("plot") {
        Some(p) => chain_toml::plots(&ctx, p, rods.len())?,
        None => (Vec::new(), Vec::new()),
    };
    let mut chain = SphericalChain::new(rods, g);
    if let Some(x) = m.get("switch_below") {
        chain.switch_below = ctx.num(x, &path(&["switch_below"]))?;
    }
    Ok(ChainSpec {
        title,
        chain,
        h,
        steps,
        method,
        output_every,
        plots,
        notes,
    })
}

/// Pendulum `i` (0-based) of the `pendula` list at `pp`.
fn rod(ctx: &Ctx, pp: &KeyPath, i: usize, item: &Value) -> Result<Rod, SpecError> {
    let pm = item.as_mapping().ok_or_else(|| {
        ctx.err(
            pp,
            format!(
                "pendulum {}: expected a mapping, found {}",
                i + 1,
                kind(item)
            ),
        )
    })?;
    ctx.keys(
        pm,
        pp,
        Some(&[
            "length",
            "mass",
            "theta",
            "phi",
            "theta_dot",
            "phi_dot",
            "thetadot",
            "phidot",
            "thetaDot",
            "phiDot",
            "z_polar",
            "zPolar",
            "zPole",
            "com",
            "inertia",
            "damping",
            "stiffness",
        ]),
    )?;
    // the first spelling present of a key (the YAML one, then the PHYS389 ones)
    let find = |keys: &[&'static str]| keys.iter().find_map(|k| pm.get(*k).map(|x| (*k, x)));
    let num = |keys: &[&'static str], default: Option<f64>| -> Result<f64, SpecError> {
        match (find(keys), default) {
            (Some((k, x)), _) => chain_toml::angle(ctx, x, &sub(pp, k)),
            (None, Some(d)) => Ok(d),
            (None, None) => Err(ctx.err(
                pp,
                format!("pendulum {}: missing field '{}'", i + 1, keys[0]),
            )),
        }
    };
    let mut rod = Rod::new(
        num(&["length"], None)?,
        num(&["mass"], None)?,
        num(&["theta"], None)?,
        num(&["phi"], None)?,
    );
    for (key, value) in [("length", rod.length), ("mass", rod.mass)] {
        if !(value > 0.0) {
            return Err(ctx.err(
                &sub(pp, key),
                format!(
                    "pendulum {}: the {key} must be positive, got {value}",
                    i + 1
                ),
            ));
        }
    }
    rod.theta_dot = num(&["theta_dot", "thetadot", "thetaDot"], Some(0.0))?;
    rod.phi_dot = num(&["phi_dot", "phidot", "phiDot"], Some(0.0))?;
    rod.chart = match find(&["z_polar", "zPolar", "zPole"]) {
        None | Some((_, Value::Bool(true))) => Chart::ZPolar,
        Some((_, Value::Bool(false))) => Chart::XPolar,
        Some((k, _)) => return Err(ctx.err(&sub(pp, k), "expected true or false")),
    };
    rod.com = num(&["com"], Some(1.0))?;
    if !(0.0..=1.0).contains(&rod.com) {
        return Err(ctx.err(
            &sub(pp, "com"),
            "the centre of mass lies on the rod: 0 ≤ com ≤ 1",
        ));
    }
    rod.inertia = num(&["inertia"], Some(0.0))?;
    rod.damping = num(&["damping"], Some(0.0))?;
    if rod.inertia < 0.0 || rod.damping < 0.0 {
        return Err(ctx.err(
            pp,
            format!(
                "pendulum {}: inertia and damping must not be negative",
                i + 1
            ),
        ));
    }
    if let Some(k) = pm.get("stiffness") {
        let k = ctx.positive(k, &sub(pp, "stiffness"), "stiffness")?;
        rod.stiffness = Some(k);
    }
    Ok(rod)
}
