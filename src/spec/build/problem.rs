//! `ProblemData` (time span, guesses, pins), `SolverParams` (the method), `Animation`, and the
//! assembly of the [`Problem`].

use super::*;
use crate::problem::{
    Dop853Options, MAX_STEPS, MethodName, OutputTimes, Outputs, RadauOptions, RunPlan, StepControl,
    TaylorOptions,
};

/// The initial-value problem of a file.
pub(super) struct Guesses {
    t0: f64,
    t_end: f64,
    q_guess: Vec<f64>,
    v_guess: Vec<f64>,
    pinned_q: Vec<usize>,
    pinned_v: Vec<usize>,
}

/// `ProblemData`: `t0`, `tend`, position guesses (every coordinate needs one), pins and held
/// velocities; the `Define`/`Equations` expressions must be defined at the guesses.
pub(super) fn problem_data(
    b: &mut Builder,
    value: Option<&Value>,
    root_p: &KeyPath,
) -> Result<Guesses, SpecError> {
    // ProblemData
    let prob_p = path(&["ProblemData"]);
    let prob = b.ctx.map(
        value.ok_or_else(|| b.ctx.err(root_p, "missing field 'ProblemData'"))?,
        &prob_p,
    )?;
    b.ctx.keys(
        prob,
        &prob_p,
        Some(&["t0", "tend", "positions", "fixedpositions", "velocities"]),
    )?;
    let t0 = prob
        .get("t0")
        .map(|x| b.ctx.num(x, &sub(&prob_p, "t0")))
        .transpose()?
        .unwrap_or(0.0);
    let t_end = b.ctx.num(
        b.ctx.required(prob, &prob_p, "tend")?,
        &sub(&prob_p, "tend"),
    )?;
    if !(t_end > t0) {
        return Err(b.ctx.err(
            &sub(&prob_p, "tend"),
            format!("tend = {t_end} must be after t0 = {t0}"),
        ));
    }
    if let Some(pos) = prob.get("positions").filter(|v| !v.is_null()) {
        let p = sub(&prob_p, "positions");
        let m = b.ctx.map(pos, &p)?;
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            for (i, x) in components(b, &key, val, &q, false)? {
                b.guess[i] = Some(x);
            }
        }
    }
    let n = b.coord_names.len();
    if n == 0 {
        return Err(b
            .ctx
            .err(&b.part_path, "the mechanism has no moving points"));
    }
    let mut q_guess = vec![0.0; n];
    for (i, g) in b.guess.iter().enumerate() {
        match g {
            Some(x) => q_guess[i] = *x,
            None => {
                return Err(b.ctx.err(
                    &sub(&prob_p, "positions"),
                    format!(
                        "no position guess for {} (give it under ProblemData.positions)",
                        b.coord_names[i]
                    ),
                ));
            }
        }
    }
    defined_at_guesses(b, &q_guess, t0)?;
    let pinned_q = fixed_positions(b, prob, &prob_p)?;
    let mut v_guess = vec![0.0; n];
    let mut pinned_v = Vec::new();
    if let Some(vel) = prob.get("velocities").filter(|v| !v.is_null()) {
        let p = sub(&prob_p, "velocities");
        let m = b.ctx.map(vel, &p)?;
        let mut bodies: super::tree::BodyVelocities = Vec::new();
        for (key, val) in b.ctx.keys(m, &p, None)? {
            let q = sub(&p, &key);
            if let Some((body, which)) = super::tree::body_velocity_key(b, &key) {
                let x = b.ctx.vector(val, &q, b.dim)?;
                match bodies.iter_mut().find(|g| g.0 == body) {
                    Some(g) => g.1[which] = Some(x),
                    None => {
                        let mut g = [None; 3];
                        g[which] = Some(x);
                        bodies.push((body, g, q));
                    }
                }
                continue;
            }
            for (i, x) in components(b, &key, val, &q, false)? {
                v_guess[i] = x;
                pinned_v.push(i);
            }
        }
        super::tree::body_rates(b, &bodies, &q_guess, &mut v_guess, &mut pinned_v)?;
    }

    Ok(Guesses {
        t0,
        t_end,
        q_guess,
        v_guess,
        pinned_q,
        pinned_v,
    })
}

/// `ProblemData.fixedpositions`: the coordinates held at their guesses, as a map or a list of
/// point names (`A`, or `Bx` for one component).
fn fixed_positions(
    b: &mut Builder,
    prob: &serde_yaml::Mapping,
    prob_p: &KeyPath,
) -> Result<Vec<usize>, SpecError> {
    let mut pinned_q = Vec::new();
    if let Some(fx) = prob.get("fixedpositions").filter(|v| !v.is_null()) {
        let p = sub(prob_p, "fixedpositions");
        let keys: Vec<(String, KeyPath)> = match fx {
            Value::Mapping(m) => b
                .ctx
                .keys(m, &p, None)?
                .into_iter()
                .map(|(k, _)| (k.clone(), sub(&p, &k)))
                .collect(),
            Value::Sequence(s) => s
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(|k| (k.to_string(), sub(&p, k)))
                        .ok_or_else(|| b.ctx.err(&p, "expected point names"))
                })
                .collect::<Result<_, _>>()?,
            other => {
                return Err(b.ctx.err(
                    &p,
                    format!("expected {{ A, Bx, … }}, found {}", kind(other)),
                ));
            }
        };
        for (key, q) in keys {
            for (i, _) in components(b, &key, &Value::Null, &q, true)? {
                pinned_q.push(i);
            }
        }
    }
    Ok(pinned_q)
}

/// The `Define`/`Equations` expressions are finite at the position guesses.
fn defined_at_guesses(b: &Builder, q_guess: &[f64], t0: f64) -> Result<(), SpecError> {
    for (q, e) in &b.checks {
        let ok = match e.eval::<f64>(&|j| q_guess[j], t0) {
            crate::expr::Val::S(x) => x.is_finite(),
            crate::expr::Val::V(x) => x.iter().all(|c| c.is_finite()),
        };
        if !ok {
            return Err(b.ctx.err(
                q,
                "not defined at the position guesses (a division by zero or a value outside a function's domain)",
            ));
        }
    }
    Ok(())
}

/// `SolverParams`: the method (generalized-α with its defaults, or RK4) and the output stride.
/// DAETS' `Integration` settings are accepted and noted as unused.
pub(super) fn solver_params(
    b: &mut Builder,
    value: Option<&Value>,
    g: &Guesses,
) -> Result<(Method, usize), SpecError> {
    let span = g.t_end - g.t0;
    let mut opts = GenAlphaOptions::default();
    let mut steps = (span / opts.h).round().max(1.0) as usize;
    let (mut output_every, mut kind, mut h_given) = (1, None, None);
    let Some(sp) = value.filter(|v| !v.is_null()) else {
        return Ok((
            opts.clone().into_method(span / steps as f64, kind, None),
            output_every,
        ));
    };
    let p = path(&["SolverParams"]);
    let m = b.ctx.map(sp, &p)?;
    b.ctx.keys(
        m,
        &p,
        Some(&[
            "Integration",
            "step",
            "steps",
            "rho_inf",
            "newton_tol",
            "output_every",
            "reuse_factorization",
            "integrator",
            "tol",
            "rtol",
            "atol",
            "h_min",
            "h_max",
        ]),
    )?;
    if let Some(x) = m.get("integrator") {
        kind = Some(integrator_name(b, x, &p)?);
    }
    let mut control = step_control(b, m, &p)?;
    let order = integration(b, m, &p, &mut control)?;
    if let Some(c) = &control {
        let q = sub(&p, "tol");
        if m.get("step").is_some() || m.get("steps").is_some() {
            return Err(b
                .ctx
                .err(&q, "give a tolerance (error control) or a step, not both"));
        }
        let limits = c.h_max == 0.0 || c.h_max >= c.h_min;
        if !(c.rtol + c.atol > 0.0 && c.rtol < 1.0 && c.atol < 1.0 && limits) {
            return Err(b.ctx.err(
                &q,
                "the tolerances must lie in [0, 1), not both 0, and h_min ≤ h_max",
            ));
        }
        // the first step: a hundredth of the span at most; the controller takes it from there
        steps = steps.max(100);
    }
    opts.step_control = control;
    if let Some(x) = m.get("steps") {
        let q = sub(&p, "steps");
        steps = b.ctx.count(x, &q, "steps", MAX_STEPS)?;
    }
    if let Some(x) = m.get("step") {
        // a step that does not divide the span: the last one is shortened to land on tend
        let h = given_step(b, m, x, &p, span)?;
        h_given = Some(h);
        steps = (span / h - 1e-9).ceil().max(1.0) as usize;
    }
    newton_options(b, m, &p, &mut opts)?;
    if let Some(x) = m.get("output_every") {
        let q = sub(&p, "output_every");
        output_every = b.ctx.count(x, &q, "output_every", MAX_STEPS)?;
    }
    let h = h_given.unwrap_or(span / steps as f64);
    if kind == Some(MethodName::Rk4) && opts.step_control.is_some() {
        return Err(b.ctx.err(
            &sub(&p, "tol"),
            "RK4 runs at a fixed step; for error control give integrator: dop853 (order 8) \
             or genalpha",
        ));
    }
    let adaptive = matches!(
        kind,
        Some(MethodName::Dop853 | MethodName::Radau | MethodName::Taylor)
    );
    if adaptive && (m.get("step").is_some() || m.get("steps").is_some()) {
        return Err(b.ctx.err(
            &sub(&p, "integrator"),
            "dop853, radau and taylor choose their own steps under error control: give tol, \
             not step or steps",
        ));
    }
    Ok((opts.into_method(h, kind, order), output_every))
}

/// `SolverParams.integrator`: genalpha, rk4, dop853, radau or taylor.
fn integrator_name(b: &Builder, x: &Value, p: &KeyPath) -> Result<MethodName, SpecError> {
    (x.as_str().and_then(MethodName::parse)).ok_or_else(|| {
        b.ctx.err(
            &sub(p, "integrator"),
            format!("expected {}", MethodName::KNOWN),
        )
    })
}

/// `SolverParams.step`: positive, not longer than the span, at most [`MAX_STEPS`] of them.
fn given_step(
    b: &Builder,
    m: &serde_yaml::Mapping,
    x: &Value,
    p: &KeyPath,
    span: f64,
) -> Result<f64, SpecError> {
    let q = sub(p, "step");
    if m.get("steps").is_some() {
        return Err(b.ctx.err(&q, "give either step or steps, not both"));
    }
    let h = b.ctx.positive(x, &q, "the step")?;
    let n = (span / h).round().max(1.0);
    if !(n <= MAX_STEPS as f64) {
        return Err(b.ctx.err(
            &q,
            format!("step {h} over a span of {span} gives {n:.3e} steps; the limit is {MAX_STEPS}"),
        ));
    }
    if h > span * (1.0 + 1e-9) {
        return Err(b.ctx.err(
            &q,
            format!("step {h} is longer than the span {span} (give steps: 1 for one step)"),
        ));
    }
    Ok(h)
}

/// `SolverParams`' generalized-α settings: `rho_inf` in [0, 1), `newton_tol` above roundoff,
/// `reuse_factorization`.
fn newton_options(
    b: &Builder,
    m: &serde_yaml::Mapping,
    p: &KeyPath,
    opts: &mut GenAlphaOptions,
) -> Result<(), SpecError> {
    if let Some(x) = m.get("rho_inf") {
        let q = sub(p, "rho_inf");
        opts.rho_inf = b.ctx.num(x, &q)?;
        if !(0.0..1.0).contains(&opts.rho_inf) {
            return Err(b.ctx.err(&q, "rho_inf must lie in [0, 1)"));
        }
    }
    if let Some(x) = m.get("newton_tol") {
        let q = sub(p, "newton_tol");
        opts.newton_tol = b.ctx.positive(x, &q, "newton_tol")?;
        if opts.newton_tol < 1e-15 {
            return Err(b.ctx.err(
                &q,
                format!(
                    "newton_tol {} is below the roundoff of double precision (1e-15): Newton \
                     could never reach it",
                    opts.newton_tol
                ),
            ));
        }
    }
    if let Some(x) = m.get("reuse_factorization") {
        opts.reuse_factorization = x.as_bool().ok_or_else(|| {
            b.ctx
                .err(&sub(p, "reuse_factorization"), "expected true or false")
        })?;
    }
    Ok(())
}

/// DAETS' `Integration: { tol, order }`: `tol` is the error control's tolerance (when
/// `SolverParams` gives one of its own, the same or refused); `order` is that of the Taylor series, returned: the
/// file then runs by the Taylor-series method unless it names another integrator (an order
/// above [`TaylorOptions::MAX_ORDER`] runs at that order, and is noted).
fn integration(
    b: &mut Builder,
    m: &serde_yaml::Mapping,
    p: &[String],
    control: &mut Option<StepControl>,
) -> Result<Option<usize>, SpecError> {
    let p = p.to_vec();
    if let Some(i) = m.get("Integration").filter(|v| !v.is_null()) {
        let ip = sub(&p, "Integration");
        let im = b.ctx.map(i, &ip)?;
        b.ctx.keys(im, &ip, Some(&["tol", "order"]))?;
        if let Some(x) = im.get("tol") {
            let q = sub(&ip, "tol");
            let tol = b.ctx.positive(x, &q, "tol")?;
            if !(tol < 1.0) {
                return Err(b.ctx.err(&q, format!("tol {tol} must lie in (0, 1)")));
            }
            match control {
                None => *control = Some(StepControl::new(tol)),
                Some(c) if c.rtol != tol || c.atol != tol => {
                    let m = format!(
                        "tol {tol} contradicts SolverParams' own tolerance (rtol {}, atol {}): \
                         give the tolerance once",
                        c.rtol, c.atol
                    );
                    return Err(b.ctx.err(&q, m));
                }
                Some(_) => {}
            }
        }
        if let Some(x) = im.get("order") {
            let q = sub(&ip, "order");
            let k = b.ctx.num(x, &q)?;
            if !(k >= 2.0 && k.fract() == 0.0 && k <= 1e3) {
                return Err(b
                    .ctx
                    .err(&q, format!("order {k} must be a whole number ≥ 2")));
            }
            let most = TaylorOptions::MAX_ORDER;
            if k as usize > most {
                b.notes.push(format!(
                    "SolverParams.Integration.order = {k}: the Taylor series here hold up to \
                     order {most}; the file runs at {most}"
                ));
            }
            return Ok(Some((k as usize).min(most)));
        }
    }
    Ok(None)
}

/// `SolverParams: { tol, rtol, atol, h_min, h_max }`: error control, when a tolerance is given.
fn step_control(
    b: &mut Builder,
    m: &serde_yaml::Mapping,
    p: &[String],
) -> Result<Option<StepControl>, SpecError> {
    let p = p.to_vec();
    let get = |k: &str| -> Result<Option<f64>, SpecError> {
        match m.get(k) {
            Some(x) => Ok(Some(b.ctx.positive(x, &sub(&p, k), k)?)),
            None => Ok(None),
        }
    };
    let (tol, rtol, atol) = (get("tol")?, get("rtol")?, get("atol")?);
    let (h_min, h_max) = (get("h_min")?, get("h_max")?);
    let Some(base) = tol.or(rtol).or(atol) else {
        return Ok(None);
    };
    let mut c = StepControl::new(base);
    c.rtol = rtol.or(tol).unwrap_or(0.0);
    c.atol = atol.or(tol).unwrap_or(0.0);
    c.h_min = h_min.unwrap_or(c.h_min);
    c.h_max = h_max.unwrap_or(c.h_max);
    Ok(Some(c))
}

trait IntoMethod {
    /// The method the file names (`None`: generalized-α at a fixed step, DOP853 with a
    /// tolerance, switching to Radau IIA where the problem turns out stiff) with these options
    /// at the step `h` (DOP853 and Radau take the tolerances and step limits of the error
    /// control). A Taylor `order` (DAETS' `Integration.order`) without a named integrator
    /// chooses the Taylor-series method.
    fn into_method(self, h: f64, kind: Option<MethodName>, order: Option<usize>) -> Method;
}

impl IntoMethod for GenAlphaOptions {
    fn into_method(self, h: f64, kind: Option<MethodName>, order: Option<usize>) -> Method {
        // (rtol, atol, h_min, h_max) of the error control; generalized-α's default h_min is
        // not theirs (0: round-off in t)
        let limits = self.step_control.map(|c| {
            let h_min = if c.h_min != StepControl::new(1.0).h_min {
                c.h_min
            } else {
                0.0
            };
            (c.rtol, c.atol, h_min, c.h_max)
        });
        let dop853 = |switch_when_stiff: bool| {
            let mut d = Dop853Options {
                switch_when_stiff,
                ..Dop853Options::default()
            };
            if let Some(l) = limits {
                (d.rtol, d.atol, d.h_min, d.h_max) = l;
            }
            Method::Dop853(d)
        };
        let radau = || {
            let mut d = RadauOptions::default();
            if let Some(l) = limits {
                (d.rtol, d.atol, d.h_min, d.h_max) = l;
            }
            Method::Radau(d)
        };
        let taylor = || {
            let mut d = TaylorOptions::default();
            d.order = order.unwrap_or(d.order);
            if let Some(l) = limits {
                (d.rtol, d.atol, d.h_min, d.h_max) = l;
            }
            Method::Taylor(d)
        };
        match kind {
            Some(MethodName::Rk4) => Rk4Options::new(h).into(),
            Some(MethodName::Dop853) => dop853(false),
            Some(MethodName::Radau) => radau(),
            Some(MethodName::Taylor) => taylor(),
            None if order.is_some() => taylor(),
            None if self.step_control.is_some() => dop853(true),
            None | Some(MethodName::GenAlpha) => GenAlphaOptions { h, ..self }.into(),
        }
    }
}

/// The model, the geometry (points in order of definition, links, bodies, coordinate kinds,
/// Noether momenta, the `Animation` settings) and the [`Problem`].
/// What `Output` asks for.
pub(super) struct Written {
    outputs: Outputs,
    every: usize,
    times: Option<OutputTimes>,
    /// Whether the file gives a stride (`Output.every`, `SolverParams.output_every`).
    stride_given: bool,
    /// The columns of the user's own (`Output.columns` entries `name: expression`).
    user: Vec<(String, String, KeyPath)>,
}

/// `Output`: the column groups, the formats and the output stride (which `SolverParams` may
/// give as `output_every` instead) or the output times (`dt`, `at`) within `g`'s span.
pub(super) fn output(
    b: &Builder,
    v: Option<&Value>,
    every: usize,
    solver: Option<&Value>,
    g: &Guesses,
) -> Result<Written, SpecError> {
    let solver_stride = solver
        .and_then(|s| s.as_mapping())
        .is_some_and(|s| s.contains_key("output_every"));
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return Ok(Written {
            outputs: Outputs::default(),
            every,
            times: None,
            stride_given: solver_stride,
            user: Vec::new(),
        });
    };
    let p = path(&["Output"]);
    let m = b.ctx.map(v, &p)?;
    let keys = b
        .ctx
        .keys(m, &p, Some(&["columns", "format", "every", "dt", "at"]))?;
    let stride_given = m.contains_key("every") || solver_stride;
    let mut times = None;
    let names = |v: &Value, q: &KeyPath| -> Result<Vec<String>, SpecError> {
        match v {
            Value::String(s) => Ok(vec![s.clone()]),
            Value::Sequence(items) => items
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(String::from)
                        .ok_or_else(|| b.ctx.err(q, format!("expected names, found {}", kind(x))))
                })
                .collect(),
            other => Err(b.ctx.err(
                q,
                format!("expected a list of names, found {}", kind(other)),
            )),
        }
    };
    let mut outputs = Outputs::default();
    let mut user = Vec::new();
    let mut every = every;
    for (key, val) in keys {
        let q = sub(&p, &key);
        match key.as_str() {
            "columns" => {
                let formats = outputs.formats_names();
                let (groups, defined) = user_columns(b, val, &q)?;
                outputs = Outputs::from_names(&groups)
                    .and_then(|o| o.formats(&formats))
                    .map_err(|e| b.ctx.err(&q, e))?;
                outputs.user |= !defined.is_empty();
                user = defined;
            }
            "format" => {
                outputs = outputs
                    .formats(&names(val, &q)?)
                    .map_err(|e| b.ctx.err(&q, e))?;
            }
            "dt" | "at" => {
                if stride_given || times.is_some() {
                    return Err(b.ctx.err(
                        &q,
                        "give one of Output.every (or SolverParams.output_every), Output.dt \
                         and Output.at",
                    ));
                }
                let t = if key == "dt" {
                    OutputTimes::Every(b.ctx.positive(val, &q, "the output step")?)
                } else {
                    let Value::Sequence(items) = val else {
                        return Err(b
                            .ctx
                            .err(&q, format!("expected a list of times, found {}", kind(val))));
                    };
                    let list = items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| b.ctx.num(x, &sub(&q, &i.to_string())))
                        .collect::<Result<Vec<f64>, _>>()?;
                    OutputTimes::At(list)
                };
                t.check(g.t0, g.t_end).map_err(|e| b.ctx.err(&q, e))?;
                times = Some(t);
            }
            _ => {
                let given = solver
                    .and_then(|s| s.as_mapping())
                    .is_some_and(|s| s.contains_key("output_every"));
                if given {
                    return Err(b.ctx.err(
                        &q,
                        "the output stride is given twice (also SolverParams.output_every)",
                    ));
                }
                every = b.ctx.count(val, &q, "every", MAX_STEPS)?;
            }
        }
    }
    Ok(Written {
        outputs,
        every,
        times,
        stride_given,
        user,
    })
}

/// The entries of `Output.columns`: group names, and columns `name: expression` of the user's
/// own (with their paths).
#[allow(clippy::type_complexity)]
fn user_columns(
    b: &Builder,
    v: &Value,
    p: &KeyPath,
) -> Result<(Vec<String>, Vec<(String, String, KeyPath)>), SpecError> {
    let (mut groups, mut defined) = (Vec::new(), Vec::new());
    let items = match v {
        Value::Sequence(items) => items.iter().collect(),
        Value::String(_) => vec![v],
        other => {
            return Err(b.ctx.err(
                p,
                format!(
                    "expected a list of groups and columns, found {}",
                    kind(other)
                ),
            ));
        }
    };
    for (i, x) in items.into_iter().enumerate() {
        let q = sub(p, &i.to_string());
        match x {
            Value::String(s) => {
                Outputs::from_names(&[s]).map_err(|e| b.ctx.err(&q, e))?;
                groups.push(s.clone());
            }
            Value::Mapping(m) if m.len() == 1 => {
                let (key, val) = m.iter().next().expect("one entry");
                let name = match key {
                    Value::String(s) => s.clone(),
                    other => {
                        return Err(b.ctx.err(
                            &q,
                            format!("a column's name is a text, found {}", kind(other)),
                        ));
                    }
                };
                let q = sub(&q, &name);
                let text = match val {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    other => {
                        return Err(b
                            .ctx
                            .err(&q, format!("expected an expression, found {}", kind(other))));
                    }
                };
                defined.push((name, text, q));
            }
            other => {
                return Err(b.ctx.err(
                    &q,
                    format!(
                        "expected a group name or a column 'name: expression', found {}",
                        kind(other)
                    ),
                ));
            }
        }
    }
    Ok((groups, defined))
}

pub(super) fn finish(
    mut b: Builder,
    title: String,
    g: Guesses,
    (method, written): (Method, Written),
    animation: Option<&Value>,
) -> Result<(Problem, RunPlan), SpecError> {
    // Animation: kept for viewers (camera settings), not used by the solver
    let animation = match animation.filter(|v| !v.is_null()) {
        Some(a) => {
            b.ctx.map(a, &path(&["Animation"]))?;
            serde_json::to_value(a).ok()
        }
        None => None,
    };
    let n = b.coord_names.len();
    let mut mb: ModelBuilder = Model::builder(n).coordinate_names(b.coord_names.clone());
    for (tree, first) in &b.trees {
        tree.add_to(&mut mb, *first)
            .map_err(|e| b.ctx.err(&b.part_path, e.to_string()))?;
    }
    for (idx, k) in b.terms.drain(..) {
        mb.add_boxed_term(&idx, k);
    }
    for (name, idx, k) in b.cons.drain(..) {
        mb.add_boxed_constraint(name, &idx, k);
    }
    let model = mb
        .build()
        .map_err(|e| b.ctx.err(&b.part_path, e.to_string()))?;
    let Guesses {
        t0,
        t_end,
        q_guess,
        v_guess,
        mut pinned_q,
        mut pinned_v,
    } = g;
    pinned_q.sort_unstable();
    pinned_q.dedup();
    pinned_v.sort_unstable();
    pinned_v.dedup();
    let mut geometry = Geometry::new(b.dim);
    for name in &b.order {
        let map = b.pmap(name);
        let kind = if map.is_fixed() {
            PointKind::Fixed
        } else if matches!(b.points[name], Point::Free(_)) {
            PointKind::Free
        } else {
            PointKind::Derived
        };
        geometry
            .points
            .push(NamedPoint::new(name.clone(), kind, map));
    }
    geometry.points.append(&mut b.tree_points);
    geometry.links = std::mem::take(&mut b.links);
    geometry.drives = std::mem::take(&mut b.drives);
    geometry.bodies = std::mem::take(&mut b.body_items);
    geometry.coordinate_kinds = std::mem::take(&mut b.coord_kinds);
    geometry.quaternions = super::tree::quaternion_coords(&b.trees);
    geometry.momenta = match b.trees.first() {
        None => Momenta::Noether,
        Some((tree, first)) => {
            let (tree, first) = (tree.clone(), *first);
            let n = tree.n_coords();
            let f = std::sync::Arc::new(move |q: &[f64], v: &[f64], _t: f64| {
                tree.momenta(&q[first..first + n], &v[first..first + n])
            });
            // the Noether charges (p = M v of the whole model) only where points carry some
            let points =
                (geometry.coordinate_kinds.iter()).any(|k| !matches!(k, CoordKind::Scalar));
            match points {
                true => Momenta::NoetherAnd(f),
                false => Momenta::Custom(f),
            }
        }
    };
    geometry.animation = animation;
    let problem = Problem::new(model)
        .title(title)
        .guess(&q_guess, &v_guess)
        .pin_q(pinned_q)
        .pin_v(pinned_v)
        .t0(t0)
        .t_end(t_end)
        .geometry(geometry);
    let mut plan = RunPlan::new(method)
        .output_every(written.every)
        .outputs(written.outputs);
    plan.output_times = written.times;
    if plan.method.is_adaptive() && plan.output_times.is_none() && !written.stride_given {
        plan.bound_output(&problem);
    }
    let mut problem = super::columns::add(&b, problem, &written.user)?;
    problem.parameters = (b.ctx.names.iter())
        .filter_map(|n| b.ctx.scope.get(n).map(|v| (n.clone(), v)))
        .collect();
    problem.notes = b.notes;
    problem.overrides = (b.ctx.sets.iter())
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    Ok((problem, plan))
}
