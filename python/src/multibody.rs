//! `lagrangian._lagrangian.Multibody`: the Rust builder of bodies and joints
//! (`lagrangian::spec::multibody`) for Python. `lagrangian.Multibody`
//! (python/lagrangian/multibody.py) gives it Python's keywords; `Problem.from_multibody` builds
//! the problem from its values with the file reader's builder (no text in between), so a body
//! or joint from Python has the file's equations and checks. It can also write the mechanism
//! file it stands for.

use lagrangian::spec::multibody as mb;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Bodies and joints, the Rust builder's values.
#[pyclass(module = "lagrangian._lagrangian")]
pub struct Multibody {
    inner: mb::Multibody,
}

/// The joint kind a file calls `name`.
fn kind(name: &str) -> PyResult<mb::JointKind> {
    mb::JointKind::ALL
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, k)| *k)
        .ok_or_else(|| {
            let names: Vec<_> = mb::JointKind::ALL.iter().map(|(n, _)| *n).collect();
            PyValueError::new_err(format!(
                "unknown joint type '{name}': one of {} (or a gear, by `gear`)",
                names.join(", ")
            ))
        })
}

/// One side of a joint: the frame's origin, axis `z`, zero-angle direction `x`, planar angle.
type Side = (
    Option<Vec<f64>>,
    Option<[f64; 3]>,
    Option<[f64; 3]>,
    Option<f64>,
);

/// `j` with one side's frame given: the parent's (`parent`) or the child's.
fn side(mut j: mb::Joint, (at, z, x, angle): Side, parent: bool) -> mb::Joint {
    if let Some(at) = at {
        j = if parent {
            j.parent_at(at)
        } else {
            j.child_at(at)
        };
    }
    if let Some(z) = z {
        j = if parent {
            j.parent_axis(z)
        } else {
            j.child_axis(z)
        };
    }
    if let Some(x) = x {
        j = if parent { j.parent_x(x) } else { j.child_x(x) };
    }
    if let Some(a) = angle {
        j = if parent {
            j.parent_angle(a)
        } else {
            j.child_angle(a)
        };
    }
    j
}

impl Multibody {
    /// The Rust builder.
    pub fn builder(&self) -> &mb::Multibody {
        &self.inner
    }
}

#[pymethods]
impl Multibody {
    /// An independent copy (a `Problem` holds one, so later calls do not change it).
    fn copy(&self) -> Multibody {
        Multibody {
            inner: self.inner.clone(),
        }
    }

    #[new]
    fn new(dim: usize) -> PyResult<Self> {
        if dim != 2 && dim != 3 {
            return Err(PyValueError::new_err(format!(
                "a multibody mechanism is in 2 or 3 dimensions, not {dim}"
            )));
        }
        Ok(Multibody {
            inner: mb::Multibody::new(dim),
        })
    }

    fn title(&mut self, title: &str) {
        self.inner = std::mem::take(&mut self.inner).title(title);
    }

    fn parameter(&mut self, name: &str, value: f64) {
        self.inner = std::mem::take(&mut self.inner).parameter(name, value);
    }

    fn gravity(&mut self, g: Vec<f64>) {
        self.inner = std::mem::take(&mut self.inner).gravity(g);
    }

    fn t_end(&mut self, t: f64) {
        self.inner = std::mem::take(&mut self.inner).t_end(t);
    }

    /// A body; of `diagonal`, `tensor` and `moment` one at most, of `axis_angle`, `rotation`
    /// and `angle` one at most (python/lagrangian/multibody.py sorts a user's values).
    #[pyo3(signature = (name, mass, com=None, diagonal=None, tensor=None, moment=None,
        position=None, axis_angle=None, rotation=None, angle=None, markers=Vec::new(),
        velocity=None, angular_velocity=None))]
    #[allow(clippy::too_many_arguments)]
    fn body(
        &mut self,
        name: &str,
        mass: f64,
        com: Option<Vec<f64>>,
        diagonal: Option<[f64; 3]>,
        tensor: Option<[[f64; 3]; 3]>,
        moment: Option<f64>,
        position: Option<Vec<f64>>,
        axis_angle: Option<([f64; 3], f64)>,
        rotation: Option<[[f64; 3]; 3]>,
        angle: Option<f64>,
        markers: Vec<(String, Vec<f64>)>,
        velocity: Option<Vec<f64>>,
        angular_velocity: Option<Vec<f64>>,
    ) {
        let mut b = mb::Body::new(mass);
        if let Some(c) = com {
            b = b.com(c);
        }
        if let Some(d) = diagonal {
            b = b.inertia(d);
        }
        if let Some(t) = tensor {
            b = b.inertia_tensor(t);
        }
        if let Some(i) = moment {
            b = b.moment(i);
        }
        if let Some(p) = position {
            b = b.position(p);
        }
        if let Some((axis, a)) = axis_angle {
            b = b.turned(axis, a);
        }
        if let Some(r) = rotation {
            b = b.rotation(r);
        }
        if let Some(a) = angle {
            b = b.angle(a);
        }
        for (marker, at) in markers {
            b = b.marker(&marker, at);
        }
        if let Some(v) = velocity {
            b = b.velocity(v);
        }
        if let Some(w) = angular_velocity {
            b = b.angular_velocity(w);
        }
        self.inner = std::mem::take(&mut self.inner).body(name, b);
    }

    /// A joint of the kind a file names (`"revolute"`, …) from `parent` to `child`, with each
    /// side's frame as `(at, z, x, angle)`.
    #[pyo3(signature = (name, kind_name, parent, child, parent_frame=(None, None, None, None),
        child_frame=(None, None, None, None), initial=Vec::new(), coordinates=Vec::new(), dh=None,
        rates=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn joint(
        &mut self,
        name: &str,
        kind_name: &str,
        parent: &str,
        child: &str,
        parent_frame: Side,
        child_frame: Side,
        initial: Vec<f64>,
        coordinates: Vec<String>,
        dh: Option<[f64; 3]>,
        rates: Vec<f64>,
    ) -> PyResult<()> {
        let mut j = mb::Joint::new(kind(kind_name)?, parent, child);
        j = side(side(j, parent_frame, true), child_frame, false);
        if !initial.is_empty() {
            j = j.initial_all(&initial);
        }
        if !coordinates.is_empty() {
            let names: Vec<&str> = coordinates.iter().map(String::as_str).collect();
            j = j.coordinates(&names);
        }
        if let Some(dh) = dh {
            j = j.dh(dh);
        }
        if !rates.is_empty() {
            j = j.rates(&rates);
        }
        self.inner = std::mem::take(&mut self.inner).joint(name, j);
        Ok(())
    }

    fn gear(&mut self, name: &str, a: &str, b: &str, ratio: f64, offset: f64) {
        self.inner = std::mem::take(&mut self.inner).gear(name, a, b, ratio, offset);
    }

    fn drive(&mut self, name: &str, quantity: &str, motion: &str) {
        self.inner = std::mem::take(&mut self.inner).drive(name, quantity, motion);
    }

    fn force(&mut self, coordinate: &str, force: &str) {
        self.inner = std::mem::take(&mut self.inner).force(coordinate, force);
    }

    fn yaml(&mut self, text: &str) {
        self.inner = std::mem::take(&mut self.inner).yaml(text);
    }

    /// The mechanism file; `MechanismError` when the extra YAML cannot be merged.
    fn to_yaml(&self, py: Python<'_>) -> PyResult<String> {
        self.inner.to_yaml().map_err(|e| crate::spec_error(py, e))
    }
}

/// The joint kinds by the names files give them.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Multibody>()?;
    let kinds: Vec<&str> = mb::JointKind::ALL.iter().map(|(n, _)| *n).collect();
    m.add("JOINT_TYPES", kinds)?;
    Ok(())
}
