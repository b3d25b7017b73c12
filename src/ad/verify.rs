//! A declared [`Structure`] — or translation invariance — checked against the general
//! derivation of the same energies at sample states when a user's term is added
//! ([`ModelBuilder::term`](crate::model::ModelBuilder::term)). A declaration promises more than
//! the toolkit can find out exactly (`detect`); one that does not hold would give wrong
//! equations, so the model refuses it and names the term.

use super::TermAd;
use super::dense::Untagged;
#[cfg(doc)]
use crate::model::KineticForm;
use crate::model::euler_lagrange::el_residual;
use crate::model::kernel::KernelCoefficients;
use crate::model::{Declared, Structure, no_kinetic};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualNum};

/// The same energies with nothing declared: `L`, `R` and `Q` of the wrapped term through the
/// general path.
struct General<'a, T>(&'a T);

impl<T: Declared<N>, const N: usize> Declared<N> for General<'_, T> {
    fn lagrangian<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.lagrangian(t, q, v)
    }
    fn dissipation<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> D {
        self.0.dissipation(t, q, v)
    }
    fn force<D: DualNum<Primitive = f64> + Copy>(
        &self,
        t: D,
        q: &SVector<D, N>,
        v: &SVector<D, N>,
    ) -> SVector<D, N> {
        self.0.force(t, q, v)
    }
}

/// The general derivation's residual and `J = c_M M + c_D ∂r/∂v + c_K ∂r/∂q`, a column per
/// pass along the Newton direction on `Dual64`: instantiations of its own, so the check adds
/// no call site to the ones the general path runs on (a function with one caller is inlined
/// almost whatever its size). Whether that matters is not measured: the `kinetic`-written
/// chain was as slow with this as with the kernels' passes (benches/README.md).
fn general_blocks<T: Declared<N>, const N: usize>(
    term: &General<'_, T>,
    (t, q, v, a): (f64, &SVector<f64, N>, &SVector<f64, N>, &SVector<f64, N>),
    c: &KernelCoefficients,
) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
    let (mut r, mut j) = (SVector::zeros(), SMatrix::zeros());
    for col in 0..N {
        let seed = |x: &SVector<f64, N>, w: f64| {
            SVector::<Dual64, N>::from_fn(|i, _| Dual64::new(x[i], if i == col { w } else { 0.0 }))
        };
        let (rd, _) = el_residual(
            term,
            Dual64::from_re(t),
            &seed(q, c.stiffness),
            &seed(v, c.damping),
            &seed(a, c.mass),
        );
        for i in 0..N {
            r[i] = rd[i].re;
            j[(i, col)] = rd[i].eps;
        }
    }
    (r, j)
}

/// Whether a term declares anything beyond what is found exactly: a [`Structure`],
/// translation invariance or [`KineticForm::Zero`]. Of the kinetic forms only `Zero` can be
/// wrong (a type that declares [`KineticForm::Function`] and writes a mass matrix after all
/// takes the slower path of its `kinetic`), so only it is checked.
pub(crate) fn declares<T: Declared<N>, const N: usize>(term: &T) -> bool {
    term.structure() != Structure::General
        || T::TRANSLATION_INVARIANT.is_some()
        || no_kinetic::<T, N>()
}

/// What a term declares ([`declares`]), in words, for the message that refuses it.
pub(crate) fn declaration<T: Declared<N>, const N: usize>(term: &T) -> String {
    let mut said = Vec::new();
    match term.structure() {
        Structure::General => {}
        s => said.push(format!("Structure::{s:?}")),
    }
    if let Some(d) = T::TRANSLATION_INVARIANT {
        said.push(format!("TRANSLATION_INVARIANT = Some({d})"));
    }
    if no_kinetic::<T, N>() {
        said.push("KINETIC = KineticForm::Zero".to_string());
    }
    said.join(" and ")
}

/// The largest difference of `x` from `want`, relative to `1 + max |want|`, and where.
fn worst(x: &[f64], want: &[f64]) -> Option<(f64, usize)> {
    let scale = 1.0 + want.iter().fold(0.0f64, |m, w| m.max(w.abs()));
    let mut w = (0.0, 0);
    for (i, (a, b)) in x.iter().zip(want).enumerate() {
        let e = (a - b).abs() / scale;
        if !e.is_finite() {
            return None;
        }
        if e > w.0 {
            w = (e, i);
        }
    }
    Some(w)
}

/// Relative differences above this are a wrong declaration (the paths differ by rounding).
const TOLERANCE: f64 = 1e-8;

impl<T: Declared<N>, const N: usize> TermAd<T, N> {
    /// Compare the declared derivation with the general one at three states with no special
    /// values: the residual, and the weighted Jacobians `M` and `0.7 M − 0.3 ∂r/∂v + 1.9 ∂r/∂q`.
    /// `Err` names what differs, by how much and where. States where either side is not
    /// finite (a pole of the term) are skipped.
    pub(crate) fn verify_declaration(&self) -> Result<(), String> {
        let general = General(&self.term.term);
        let weights = [(1.0, 0.0, 0.0), (0.7, -0.3, 1.9)];
        for k in 0..3 {
            let kf = k as f64;
            let q = SVector::<f64, N>::from_fn(|i, _| {
                0.4 + 0.9 * (1.3 * i as f64 + 2.1 * kf + 0.5).sin()
            });
            let v = SVector::<f64, N>::from_fn(|i, _| (0.7 * i as f64 + 1.1 * kf).cos());
            let a = SVector::<f64, N>::from_fn(|i, _| (0.37 * i as f64 - 0.8 * kf).sin());
            let t = 0.3 + 0.45 * kf;
            let mut checks: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
            for (mass, damping, stiffness) in weights {
                let c = KernelCoefficients {
                    mass,
                    damping,
                    stiffness,
                };
                let (r, want) = general_blocks(&general, (t, &q, &v, &a), &c);
                if checks.is_empty() {
                    let mine = self.residual_at::<Untagged>(t, &q, &v, &a);
                    checks.push((
                        "residual".into(),
                        mine.as_slice().into(),
                        r.as_slice().into(),
                    ));
                }
                let (_, got) = self.jacobian_at(t, &q, &v, &a, &c);
                let what = if damping == 0.0 && stiffness == 0.0 {
                    "mass matrix".to_string()
                } else {
                    format!("Jacobian {mass} M + {damping} ∂r/∂v + {stiffness} ∂r/∂q")
                };
                checks.push((what, got.as_slice().into(), want.as_slice().into()));
            }
            for (what, got, want) in checks {
                let Some((e, i)) = worst(&got, &want) else {
                    break;
                };
                if e > TOLERANCE {
                    return Err(format!(
                        "its {what} differs from the general derivation of the same energies \
                         by {e:.1e} (relative; entry {i}: {:.6e} against {:.6e}) at t = {t}, \
                         q = {:?}",
                        got[i],
                        want[i],
                        q.as_slice()
                    ));
                }
            }
        }
        Ok(())
    }
}
