//! Pictures of a run: plots of its columns (`plot`: PNG and SVG), the movie — the run sampled
//! into frames with its camera and colours (`movie`) — drawn as the offline HTML animation page
//! (`animation`) and as a GIF (`gif`). Each reads what a run wrote (its table and scene, from a
//! folder or from memory: `output::table`, `output::scene`) and changes nothing of it.

pub mod animation;
pub mod gif;
pub mod movie;
pub mod plot;
pub mod shapes;
