//! Wearable (watch) data: sessions and samples, live sessions, labels and accuracy, clip
//! alignment and highlights, GPX and FIT import, the wearer's day and the coach's roster.

mod access;
mod files;
mod fit;
mod labels;
mod live;
mod sessions;
mod sync;
