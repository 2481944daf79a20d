//! Wearable (watch) data: sessions with their samples, the ride detector, ground-truth labels
//! and the detector's accuracy, clip-to-watch alignment and highlights, GPX import and export.
//! The flows and decisions: `docs/wearable.md`.

pub mod accuracy;
pub mod codec;
pub mod detect;
pub mod samples;
pub mod synth;
