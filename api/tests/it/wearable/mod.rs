//! Wearable (watch) data: sessions and samples, live sessions, labels and accuracy, clip
//! alignment and highlights, GPX import, the wearer's day and the coach's roster.

mod access;
mod files;
mod labels;
mod live;
mod sessions;
mod sync;
