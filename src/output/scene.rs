//! The scene of a mechanism: what a picture of its motion needs besides the trajectory — the
//! dimension, the points (fixed ones with their place, moving ones with their trajectory
//! columns), the links between them by kind, the bodies by their basic items, the drives, and
//! the file's `Animation` settings. A run writes it as `scene.json` beside the trajectory.
//!
//! ```
//! use lagrangian::output::scene::Scene;
//! use lagrangian::spec;
//! let text = "Dimension: 2\nPartData: { Fixed: { O: [0, 0] }, Particles: { A: 1 }, Bars: { OA: 1 } }\n\
//!             ProblemData: { tend: 1, positions: { A: [1, 0] } }\n";
//! let scene = Scene::of(&spec::parse(text, "f.yaml")?.0);
//! assert_eq!(scene.dimension, 2);
//! assert_eq!(scene.points[0].position, Some([0.0, 0.0, 0.0]));  // O is fixed
//! assert_eq!(scene.points[1].columns, ["A.x", "A.y"]);           // A moves
//! assert_eq!(scene.links[0].ends, ["O", "A"]);
//! # Ok::<(), lagrangian::Error>(())
//! ```

/// What a link is (a link's `kind` in the scene).
pub use crate::model::geometry::LinkKind;
use crate::model::geometry::{Body, Drive, Link, PointKind};
/// The solids a body is drawn with (a body's `shapes` in the scene).
pub use crate::model::geometry::{Shape, ShapeKind};
use crate::solve::Problem;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Version of the scene layout.
pub const SCENE_FORMAT: u32 = 1;

/// How a point of the scene moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScenePointKind {
    /// Never moves (a support, a pivot): drawn at its `position`.
    Fixed,
    /// Its components are coordinates.
    #[default]
    Free,
    /// Computed from the coordinates (a body point, an assignment, a pendulum bob).
    Derived,
}

/// A point of the scene.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScenePoint {
    /// The point's name.
    pub name: String,
    /// Fixed, free or derived.
    pub kind: ScenePointKind,
    /// Where a fixed point is (at the start time); `None` for a moving one.
    pub position: Option<[f64; 3]>,
    /// The trajectory columns of a moving point's position (`A.x`, `A.y`[, `A.z`]).
    pub columns: Vec<String>,
}

/// What a picture of a mechanism's motion needs besides the trajectory. It reads back from
/// `scene.json` ([`Scene::read`]); what a file leaves out is empty (a scene of `{}` has
/// dimension 0: no spatial picture).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Scene {
    /// [`SCENE_FORMAT`].
    pub format: u32,
    /// The problem's title.
    pub title: String,
    /// 2 or 3 (0: no spatial picture).
    pub dimension: usize,
    /// The points, in order of definition.
    pub points: Vec<ScenePoint>,
    /// Links between points (bars, springs, ropes) with their kind.
    pub links: Vec<Link>,
    /// Rigid bodies and the basic items that carry them.
    pub bodies: Vec<Body>,
    /// Drives (prescribed motions) and their constraints.
    pub drives: Vec<Drive>,
    /// The file's `Animation` settings, as read (the animation page reads them as they are:
    /// `trails`, `colour`, `frames`, `Scene: { view }`, …; [`Scene::setting`]).
    pub animation: Option<serde_json::Value>,
}

impl Scene {
    /// The scene of `problem`, from its geometry.
    pub fn of(problem: &Problem) -> Scene {
        let g = &problem.geometry;
        let dim = g.dimension.clamp(1, 3);
        let axes = ["x", "y", "z"];
        let points = g
            .points
            .iter()
            .filter(|p| p.kind != PointKind::Direction)
            .map(|p| {
                let fixed = p.kind == PointKind::Fixed;
                ScenePoint {
                    name: p.name.clone(),
                    kind: match p.kind {
                        PointKind::Fixed => ScenePointKind::Fixed,
                        PointKind::Free => ScenePointKind::Free,
                        PointKind::Derived | PointKind::Direction => ScenePointKind::Derived,
                    },
                    position: fixed.then(|| p.map.eval(&problem.q_guess, problem.t0)),
                    columns: match fixed {
                        true => Vec::new(),
                        false => axes[..dim]
                            .iter()
                            .map(|a| format!("{}.{a}", p.name))
                            .collect(),
                    },
                }
            })
            .collect();
        Scene {
            format: SCENE_FORMAT,
            title: problem.title.clone(),
            dimension: g.dimension,
            points,
            links: g.links.clone(),
            bodies: g.bodies.clone(),
            drives: g.drives.clone(),
            animation: g.animation.clone(),
        }
    }

    /// The scene written to `path` (`scene.json`); the message says what is wrong with it.
    pub fn read(path: &Path) -> Result<Scene, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
        serde_json::from_str(&text).map_err(|e| e.to_string())
    }

    /// The `Animation` setting at `path` (`["Scene", "view"]`), `Null` when absent.
    pub fn setting(&self, path: &[&str]) -> &serde_json::Value {
        static NULL: serde_json::Value = serde_json::Value::Null;
        let mut v = self.animation.as_ref().unwrap_or(&NULL);
        for key in path {
            v = v.get(key).unwrap_or(&NULL);
        }
        v
    }

    /// Write the scene as JSON to `path`.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        std::fs::write(path, text + "\n")
    }
}
