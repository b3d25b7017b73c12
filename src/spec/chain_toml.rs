//! The PHYS389 N-pendulum simulator's own `config.toml`, read as it is written there: the
//! tables `[system.sim]` (`g`, `timedelta`, `steps`) with `[[system.sim.pendula]]` (`length`,
//! `mass`, `theta`, `phi`, their rates `thetadot`/`phidot`, `zPolar`), and `[system.plot]`,
//! whose toggles choose the panels of `lagrangian plot`. The older layout with the settings
//! directly in `[system]` and angles as `[value, unit]` (`'r'` radians, `'d'` degrees, `'p'`
//! multiples of π) is read too.
//!
//! ```
//! let text = "filename = \"double\"\n[system.sim]\ng = 9.81\ntimedelta = 0.001\nsteps = 100\n\
//!             [[system.sim.pendula]]\nlength = 1.0\nmass = 1.0\ntheta = 1.0\nphi = 0.0\nzPolar = true\n\
//!             [[system.sim.pendula]]\nlength = 1.0\nmass = 2.0\ntheta = [90, 'd']\nphi = 0.5\nphidot = 1.0\n\
//!             [system.plot]\nx = [true, false, true]\ntotalME = true\n";
//! let c = lagrangian::spec::parse_chain(text, "config.toml")?;
//! assert_eq!((c.chain.rods.len(), c.steps, c.title.as_str()), (2, 100, "double"));
//! assert!((c.chain.rods[1].theta - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
//! assert_eq!(c.plots[0].columns, ["P1.x", "P1.z", "P2.x", "P2.z"]);
//! assert_eq!(c.plots[1].columns, ["total"]);
//! # Ok::<(), lagrangian::spec::SpecError>(())
//! ```

use super::locate::line_col;
use super::{Ctx, KeyPath, SpecError, kind, path, sub};
use crate::problem::PlotPanel;
use serde_yaml::{Mapping, Value};

/// Whether `file` names a TOML document.
pub fn is_toml(file: &str) -> bool {
    file.to_ascii_lowercase().ends_with(".toml")
}

/// The TOML text as the YAML value of a pendulum-chain file: the `[system.sim]` settings at the
/// top, `plot` from `[system.plot]`, `filename` kept.
pub(crate) fn document(text: &str, file: &str) -> Result<Value, SpecError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map_or((1, 1), |s| line_col(text, s.start));
        SpecError {
            file: file.to_string(),
            line,
            column,
            field: String::new(),
            message: format!("not valid TOML: {}", e.message()),
        }
    })?;
    let err = |p: &[&str], message: String| {
        let p: Vec<String> = p.iter().map(|s| s.to_string()).collect();
        let (line, column) = super::locate::locate(text, &p);
        SpecError {
            file: file.to_string(),
            line,
            column,
            field: p.join("."),
            message,
        }
    };
    let root = yaml(toml::Value::Table(table));
    let Value::Mapping(root) = root else {
        unreachable!("a TOML document is a table")
    };
    if root.contains_key("pendula") {
        return Ok(Value::Mapping(root)); // written like the YAML chain file
    }
    let mut out = Mapping::new();
    for (k, v) in &root {
        match k.as_str() {
            Some("system") => {}
            Some("filename") | Some("title") => {
                out.insert(k.clone(), v.clone());
            }
            _ => {
                let k = k.as_str().unwrap_or("?");
                return Err(err(
                    &[k],
                    format!(
                        "unknown key '{k}' (expected [system] with [system.sim] and [system.plot], and filename)"
                    ),
                ));
            }
        }
    }
    let system =
        match root.get("system") {
            Some(Value::Mapping(m)) => m,
            Some(other) => {
                return Err(err(
                    &["system"],
                    format!("expected a table, found {}", kind(other)),
                ));
            }
            None => return Err(err(
                &[],
                "missing table [system] (the N-pendulum configuration has [system.sim] with g, \
                 timedelta, steps and [[system.sim.pendula]])"
                    .into(),
            )),
        };
    let sim = match system.get("sim") {
        Some(Value::Mapping(m)) => m,
        Some(other) => {
            return Err(err(
                &["system", "sim"],
                format!("expected a table, found {}", kind(other)),
            ));
        }
        None => system, // the older layout: settings directly in [system]
    };
    for (k, v) in sim {
        if k.as_str() != Some("plot") && k.as_str() != Some("sim") {
            out.insert(k.clone(), v.clone());
        }
    }
    if let Some(p) = system.get("plot") {
        out.insert("plot".into(), p.clone());
    }
    if !out.contains_key("pendula") {
        let at: &[&str] = match system.contains_key("sim") {
            true => &["system", "sim"],
            false => &["system"],
        };
        return Err(err(
            at,
            "no pendulums: the chain needs [[system.sim.pendula]] entries (length, mass, theta, \
             phi, thetadot, phidot, zPolar)"
                .into(),
        ));
    }
    Ok(Value::Mapping(out))
}

/// A TOML value as YAML (dates become text).
fn yaml(v: toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::Number(i.into()),
        toml::Value::Float(x) => Value::Number(x.into()),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Sequence(a.into_iter().map(yaml).collect()),
        toml::Value::Table(t) => Value::Mapping(
            t.into_iter()
                .map(|(k, v)| (Value::String(k), yaml(v)))
                .collect(),
        ),
    }
}

/// An angle or rate: a number or expression (radians), or `[value, unit]` with the unit `'r'`
/// (radians), `'d'` (degrees) or `'p'` (multiples of π).
pub(crate) fn angle(ctx: &Ctx, v: &Value, p: &KeyPath) -> Result<f64, SpecError> {
    let Value::Sequence(s) = v else {
        return ctx.num(v, p);
    };
    let unit = match s.as_slice() {
        [_, Value::String(u)] => u.as_str(),
        _ => {
            return Err(ctx.err(
                p,
                "expected a number or [value, unit] with the unit 'r', 'd' or 'p'",
            ));
        }
    };
    let x = ctx.num(&s[0], p)?;
    match unit {
        "r" => Ok(x),
        "d" => Ok(x.to_radians()),
        "p" => Ok(x * std::f64::consts::PI),
        other => Err(ctx.err(
            p,
            format!("unknown angle unit '{other}': 'r' (radians), 'd' (degrees) or 'p' (×π)"),
        )),
    }
}

/// Per-pendulum toggles: the key, its columns for pendulum `i` (1-based).
fn per_pendulum(key: &str, i: usize) -> Option<Vec<String>> {
    let v = |names: &[&str]| {
        Some(
            names
                .iter()
                .map(|n| n.replace('#', &i.to_string()))
                .collect(),
        )
    };
    match key {
        "x" | "pos" => v(&["P#.x", "P#.y", "P#.z"]),
        "v" | "vel" => v(&["P#.vx", "P#.vy", "P#.vz"]),
        "theta" => v(&["theta#"]),
        "phi" => v(&["phi#"]),
        "thetadot" | "theta_dot" | "thetaDot" => v(&["theta#.v"]),
        "phidot" | "phi_dot" | "phiDot" => v(&["phi#.v"]),
        "zPolar" | "z_polar" | "chart" => v(&["chart#"]),
        "LM" => v(&["p#.x", "p#.y", "p#.z"]),
        "absLM" => v(&["|p#|"]),
        "AM" => v(&["L#.x", "L#.y", "L#.z"]),
        "absAM" => v(&["|L#|"]),
        "KE" => v(&["KE#"]),
        "PE" => v(&["PE#"]),
        "ME" => v(&["ME#"]),
        _ => None,
    }
}

/// Whole-system toggles.
fn total(key: &str) -> Option<&'static [&'static str]> {
    Some(match key {
        "totalLM" => &["Px", "Py", "Pz"],
        "absTotalLM" => &["|P|"],
        "totalAM" => &["Lx", "Ly", "Lz"],
        "absTotalAM" => &["|L|"],
        "totalKE" => &["kinetic"],
        "totalPE" => &["potential"],
        "totalME" => &["total"],
        _ => return None,
    })
}

/// The `plot` toggles (`true`/`false`, or a list of them: per component for vectors, per
/// pendulum for the others) as panels, one per toggle that selects anything; unknown toggles
/// are returned as notes (they are ignored, not refused: the simulator's plotter may know more).
pub(crate) fn plots(
    ctx: &Ctx,
    v: &Value,
    n: usize,
) -> Result<(Vec<PlotPanel>, Vec<String>), SpecError> {
    let p = path(&["plot"]);
    let m = ctx.map(v, &p)?;
    let (mut panels, mut notes) = (Vec::new(), Vec::new());
    for (k, val) in m {
        let key = k.as_str().unwrap_or("?");
        let q = sub(&p, key);
        let flags: Vec<bool> = match val {
            Value::Bool(b) => vec![*b],
            Value::Sequence(s) => s
                .iter()
                .map(|x| x.as_bool())
                .collect::<Option<_>>()
                .ok_or_else(|| ctx.err(&q, "expected true, false or a list of them"))?,
            other => {
                return Err(ctx.err(
                    &q,
                    format!(
                        "expected true, false or a list of them, found {}",
                        kind(other)
                    ),
                ));
            }
        };
        let on = |k: usize| {
            flags
                .get(k)
                .copied()
                .unwrap_or(flags.len() == 1 && flags[0])
        };
        let columns: Vec<String> = if let Some(cols) = total(key) {
            (cols.iter().enumerate())
                .filter(|(k, _)| on(*k))
                .map(|(_, c)| c.to_string())
                .collect()
        } else if per_pendulum(key, 1).is_some() {
            let mut out = Vec::new();
            for i in 1..=n {
                let cols = per_pendulum(key, i).unwrap_or_default();
                for (k, c) in cols.iter().enumerate() {
                    // a list picks components of a vector, pendulums of a scalar
                    if (cols.len() > 1 && on(k)) || (cols.len() == 1 && on(i - 1)) {
                        out.push(c.clone());
                    }
                }
            }
            out
        } else {
            notes.push(format!(
                "plot toggle '{key}' is not known here and was ignored"
            ));
            continue;
        };
        if !columns.is_empty() {
            panels.push(PlotPanel {
                title: key.to_string(),
                columns,
            });
        }
    }
    Ok((panels, notes))
}
