//! The review state machine: every status change goes through [`next`].
//!
//! ```text
//! draft ─build─▶ building ─built─▶ ready ─publish─▶ published
//!   ▲                                 │
//!   └──────────────edit───────────────┘
//! ```
//!
//! A coach edits a `draft` or `ready` review (an edit of a `ready` review sends it back to
//! `draft`: it needs a new build); a `building` review takes no edits until its build ends; a
//! `published` review is what the athlete read and stays as it is. Anything else is 409
//! `review_state_conflict`.

pub use crate::model::reviews::ReviewStatus;
use crate::{Error, Result};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReviewEvent {
    Edit,
    Build,
    Built,
    Publish,
}

impl ReviewEvent {
    fn name(self) -> &'static str {
        match self {
            ReviewEvent::Edit => "edit",
            ReviewEvent::Build => "build",
            ReviewEvent::Built => "build result",
            ReviewEvent::Publish => "publish",
        }
    }
}

/// The status after `event` in status `from`, or 409 `review_state_conflict`.
pub fn next(from: ReviewStatus, event: ReviewEvent) -> Result<ReviewStatus> {
    use ReviewEvent as E;
    use ReviewStatus as S;
    Ok(match (from, event) {
        (S::Draft | S::Ready, E::Edit) => S::Draft,
        (S::Draft | S::Ready, E::Build) => S::Building,
        (S::Building, E::Built) => S::Ready,
        (S::Ready, E::Publish) => S::Published,
        _ => {
            return Err(Error::conflict(
                "review_state_conflict",
                format!("a review that is {from} cannot take a {}", event.name()),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{ReviewEvent as E, ReviewStatus as S, next};

    #[test]
    fn the_happy_path_runs_from_draft_to_published() {
        let mut s = S::Draft;
        for e in [E::Edit, E::Build, E::Built, E::Publish] {
            s = next(s, e).unwrap();
        }
        assert_eq!(s, S::Published);
        assert_eq!(
            next(S::Ready, E::Edit).unwrap(),
            S::Draft,
            "an edit needs a rebuild"
        );
    }

    #[test]
    fn published_and_building_reviews_refuse_edits_with_a_code() {
        for (s, e) in [
            (S::Published, E::Edit),
            (S::Published, E::Build),
            (S::Building, E::Edit),
            (S::Building, E::Publish),
            (S::Draft, E::Publish),
            (S::Draft, E::Built),
        ] {
            assert_eq!(
                next(s, e).unwrap_err().code,
                "review_state_conflict",
                "{s} {e:?}"
            );
        }
    }
}
