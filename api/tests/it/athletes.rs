//! Athletes area tests (issue 5).
