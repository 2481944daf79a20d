//! Training sessions tests (issue 5).
