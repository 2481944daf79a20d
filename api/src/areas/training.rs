//! Training sessions and their rosters (issue 5).
