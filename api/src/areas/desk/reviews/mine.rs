//! The athlete's (and a guardian's) view of their published reviews.
